//! Moving blobs through control's store, in chunks of at most 1 MiB (no gRPC message nears the
//! 4 MiB default limit).
use anyhow::{bail, Context, Result};
use crate::client::Client;
use codecbench_proto::v1::{GetBlobRequest, PutBlobRequest};

pub const CHUNK: usize = 1 << 20;

pub async fn get(client: &mut Client, blob_id: &str) -> Result<Vec<u8>> {
    let mut stream = client
        .get_blob(GetBlobRequest { blob_id: blob_id.into(), offset: 0 })
        .await
        .with_context(|| format!("fetching blob {blob_id}"))?
        .into_inner();
    let mut out = Vec::new();
    while let Some(chunk) = stream.message().await.with_context(|| format!("fetching blob {blob_id}"))? {
        if out.is_empty() {
            out.reserve_exact(chunk.total_size as usize);
        }
        out.extend_from_slice(&chunk.data);
    }
    Ok(out)
}

pub async fn put(client: &mut Client, data: &[u8]) -> Result<String> {
    let upload_id = format!("{:032x}", rand::random::<u128>());
    let mut offset = 0usize;
    loop {
        let end = (offset + CHUNK).min(data.len());
        let finish = end == data.len();
        let resp = client
            .put_blob(PutBlobRequest { upload_id: upload_id.clone(), offset: offset as u64, data: data[offset..end].to_vec(), finish })
            .await
            .context("uploading payload")?
            .into_inner();
        offset = end;
        if finish {
            if resp.size != data.len() as u64 {
                bail!("control stored {} bytes of a {}-byte payload", resp.size, data.len());
            }
            return Ok(resp.blob_id);
        }
    }
}
