//! Moving blobs through control's store, in chunks of at most 1 MiB (no gRPC message nears the
//! 4 MiB default limit): GetBlob streams them down, UploadBlob streams them up.
use anyhow::{bail, Context, Result};
use crate::client::Client;
use codecbench_proto::v1::{GetBlobRequest, UploadBlobRequest};

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

/// Stores `data` in one UploadBlob stream: chunks are copied into messages as the stream takes
/// them (at most two waiting), so the upload holds a bounded amount beyond `data` itself.
pub async fn put(client: &mut Client, data: &[u8]) -> Result<String> {
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    // The call wants a 'static stream; the chunks borrow `data`, so they are fed from this task,
    // alongside the call, instead of from an iterator the call owns.
    let feed = async move {
        let mut offset = 0;
        loop {
            let end = (offset + CHUNK).min(data.len());
            let finish = end == data.len();
            let chunk = UploadBlobRequest { offset: offset as u64, data: prost::bytes::Bytes::copy_from_slice(&data[offset..end]), finish };
            // A closed stream: the call failed, and says why below.
            if tx.send(chunk).await.is_err() || finish {
                return;
            }
            offset = end;
        }
    };
    let (resp, ()) = tokio::join!(client.upload_blob(tokio_stream::wrappers::ReceiverStream::new(rx)), feed);
    let resp = resp.context("uploading payload")?.into_inner();
    if resp.size != data.len() as u64 {
        bail!("control stored {} bytes of a {}-byte payload", resp.size, data.len());
    }
    Ok(resp.blob_id)
}
