//! `codecbench.v1.WorkerService`: what workers call. Everything a browser page needs is unary or
//! server-streaming, so a page can be a worker over gRPC-web; UploadBlob (client-streaming) is the
//! faster upload for workers that can stream a request.
use crate::blobs::{BlobError, MAX_CHUNK};
use crate::state::Shared;
use codecbench_proto::v1::{
    worker_service_server::WorkerService, AttachRequest, AttachResponse, GetBlobRequest, GetBlobResponse, PutBlobRequest,
    PutBlobResponse, ReportResultRequest, ReportResultResponse, UploadBlobRequest, UploadBlobResponse,
};
use futures::Stream;
use std::io::{Read, Seek, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc::{self, UnboundedReceiver};
use tonic::{Request, Response, Status, Streaming};

pub struct Service {
    pub control: Shared,
}

/// A worker's task stream. When tonic drops it (the worker's connection or call ended), the
/// worker is detached.
pub struct AttachStream {
    rx: UnboundedReceiver<Result<AttachResponse, Status>>,
    worker_id: String,
    control: Shared,
}

impl Stream for AttachStream {
    type Item = Result<AttachResponse, Status>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}

impl Drop for AttachStream {
    fn drop(&mut self) {
        self.control.detach(&self.worker_id);
    }
}

pub fn blob_status(e: BlobError) -> Status {
    match e {
        BlobError::NotFound(m) => Status::not_found(m),
        BlobError::BadRequest(m) => Status::invalid_argument(m),
        BlobError::Busy(m) => Status::resource_exhausted(m),
        BlobError::Io(m) => Status::internal(m),
    }
}

type BlobStream = Pin<Box<dyn Stream<Item = Result<GetBlobResponse, Status>> + Send>>;

#[tonic::async_trait]
impl WorkerService for Service {
    type AttachStream = AttachStream;
    type GetBlobStream = BlobStream;

    async fn attach(&self, request: Request<AttachRequest>) -> Result<Response<AttachStream>, Status> {
        let req = request.into_inner();
        if req.codecs.is_empty() {
            return Err(Status::invalid_argument("a worker must announce at least one codec"));
        }
        if let Some(c) = req.codecs.iter().find(|c| c.id.is_empty() || c.decode_modes.is_empty()) {
            return Err(Status::invalid_argument(format!("codec {:?} needs an id and at least one decode mode", c.id)));
        }
        let (info, rx) = self.control.attach(req);
        Ok(Response::new(AttachStream { rx, worker_id: info.id, control: self.control.clone() }))
    }

    async fn report_result(&self, request: Request<ReportResultRequest>) -> Result<Response<ReportResultResponse>, Status> {
        self.control.report(request.into_inner())?;
        Ok(Response::new(ReportResultResponse {}))
    }

    async fn get_blob(&self, request: Request<GetBlobRequest>) -> Result<Response<BlobStream>, Status> {
        let req = request.into_inner();
        let path = self.control.blobs.path(&req.blob_id).map_err(blob_status)?;
        let mut file = std::fs::File::open(&path).map_err(|e| Status::internal(format!("opening blob: {e}")))?;
        let total = file.metadata().map_err(|e| Status::internal(e.to_string()))?.len();
        if req.offset > total {
            return Err(Status::out_of_range(format!("offset {} is past the end of a {total}-byte blob", req.offset)));
        }
        // Chunks are read on a blocking thread and sent as the client takes them (bounded channel).
        let (tx, rx) = mpsc::channel(4);
        tokio::task::spawn_blocking(move || {
            let mut offset = req.offset;
            if let Err(e) = file.seek(SeekFrom::Start(offset)) {
                let _ = tx.blocking_send(Err(Status::internal(e.to_string())));
                return;
            }
            loop {
                let want = MAX_CHUNK.min((total - offset) as usize);
                let mut data = vec![0u8; want];
                if let Err(e) = file.read_exact(&mut data) {
                    let _ = tx.blocking_send(Err(Status::internal(format!("reading blob: {e}"))));
                    return;
                }
                let msg = GetBlobResponse { data, offset, total_size: total };
                offset += want as u64;
                if tx.blocking_send(Ok(msg)).is_err() || offset >= total {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))))
    }

    async fn put_blob(&self, request: Request<PutBlobRequest>) -> Result<Response<PutBlobResponse>, Status> {
        // Uploads are capped per client, by the peer's address (its IP: one machine is one client).
        let client = request.remote_addr().map(|a| a.ip().to_string()).unwrap_or_else(|| "unknown".into());
        let req = request.into_inner();
        let control = self.control.clone();
        let done = tokio::task::spawn_blocking(move || control.blobs.put_chunk(&client, &req.upload_id, req.offset, &req.data, req.finish))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(blob_status)?;
        let (blob_id, size) = done.unwrap_or_default();
        Ok(Response::new(PutBlobResponse { blob_id, size }))
    }

    async fn upload_blob(&self, request: Request<Streaming<UploadBlobRequest>>) -> Result<Response<UploadBlobResponse>, Status> {
        let client = request.remote_addr().map(|a| a.ip().to_string()).unwrap_or_else(|| "unknown".into());
        let mut chunks = request.into_inner();
        // A writer thread hashes and writes chunk n while this task receives chunk n+1; the
        // channel holds two, so an upload's memory is bounded.
        let upload_id = format!("stream-{:032x}", rand::random::<u128>());
        let (to_writer, mut writer_rx) = mpsc::channel::<UploadBlobRequest>(2);
        let (control, id) = (self.control.clone(), upload_id);
        let writer = tokio::task::spawn_blocking(move || {
            let stored = (|| {
                while let Some(c) = writer_rx.blocking_recv() {
                    if let Some(done) = control.blobs.put_chunk(&client, &id, c.offset, &c.data, c.finish)? {
                        return Ok(Some(done));
                    }
                }
                Ok(None)
            })();
            // Anything but a stored blob (an error, a stream that ended or broke off, a client
            // that cancelled: tonic then drops this handler, and with it the sender) leaves no
            // upload behind. Only this thread touches the upload, so nothing races with it.
            if !matches!(stored, Ok(Some(_))) {
                control.blobs.abandon(&id);
            }
            stored
        });
        let mut received = Ok(());
        loop {
            match chunks.message().await {
                Ok(Some(c)) => {
                    let finish = c.finish;
                    // A closed channel: the writer stopped on an error, which it returns below.
                    if to_writer.send(c).await.is_err() || finish {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    received = Err(e);
                    break;
                }
            }
        }
        drop(to_writer);
        let written = writer.await.map_err(|e| Status::internal(e.to_string()))?;
        match (received, written) {
            (_, Err(e)) => Err(blob_status(e)),
            (Err(e), Ok(_)) => Err(e),
            (Ok(()), Ok(Some((blob_id, size)))) => Ok(Response::new(UploadBlobResponse { blob_id, size })),
            (Ok(()), Ok(None)) => Err(Status::invalid_argument("the upload stream ended without a chunk marked `finish`: nothing was stored")),
        }
    }
}
