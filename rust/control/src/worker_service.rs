//! `codecbench.v1.WorkerService`: what workers call. Everything a browser page needs is unary or
//! server-streaming, so a page can be a worker over gRPC-web; UploadBlob (client-streaming) is the
//! faster upload for workers that can stream a request.
use crate::blobs::{BlobStore, MAX_CHUNK};
use crate::bounds;
use crate::clients::Clients;
use crate::error::Error;
use crate::state::{Shared, ToWorker};
use codecbench_proto::v1::{
    attach_response, worker_service_server::WorkerService, AttachRequest, AttachResponse, GetBlobRequest, GetBlobResponse, PutBlobRequest,
    PutBlobResponse, ReportResultRequest, ReportResultResponse, UploadBlobRequest, UploadBlobResponse,
};
use futures::Stream;
use std::os::unix::fs::FileExt;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc::UnboundedReceiver;
use tonic::{Request, Response, Status, Streaming};

pub struct Service {
    pub control: Shared,
    /// Attached workers by report secret: the key of their blob calls for the upload caps.
    pub clients: std::sync::Arc<Clients>,
}

/// A worker's task stream. When tonic drops it (the worker's connection or call ended), the
/// worker is detached.
pub struct AttachStream {
    /// The `attached` message, read first to learn the worker's secret (clients.rs).
    first: Option<ToWorker>,
    rx: UnboundedReceiver<ToWorker>,
    worker_id: String,
    control: Shared,
    clients: std::sync::Arc<Clients>,
}

impl Stream for AttachStream {
    type Item = Result<AttachResponse, Status>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(first.into())));
        }
        self.rx.poll_recv(cx).map(|m| m.map(|m| Ok(m.into())))
    }
}

/// A message of the task stream as the worker reads it: only `attached` carries the secret.
impl From<ToWorker> for AttachResponse {
    fn from(m: ToWorker) -> Self {
        use attach_response::Message;
        let (message, report_secret) = match m {
            ToWorker::Attached { info, report_secret } => (Message::Attached(info), report_secret),
            ToWorker::Task(t) => (Message::Task(t), String::new()),
            ToWorker::Abandon(a) => (Message::Abandon(a), String::new()),
        };
        AttachResponse { message: Some(message), report_secret }
    }
}

impl Drop for AttachStream {
    fn drop(&mut self) {
        self.clients.detached(&self.worker_id);
        self.control.detach(&self.worker_id);
    }
}

/// An UploadBlob stream's upload, dropped with its file unless it was stored: whatever ends the
/// stream (an error, a deadline, a client that cancelled and so made tonic drop the handler).
struct OpenUpload {
    control: Shared,
    id: String,
    stored: bool,
}

impl Drop for OpenUpload {
    fn drop(&mut self) {
        if !self.stored {
            self.control.blobs.abandon(&self.id);
        }
    }
}

type Written = tokio::task::JoinHandle<Result<Option<(String, u64)>, Error>>;

/// The result of a chunk's write on a blocking thread (held only while it writes).
async fn written(write: Written) -> Result<Option<(String, u64)>, Status> {
    Ok(write.await.map_err(|e| Status::internal(e.to_string()))??)
}

fn write_chunk(blobs: &Shared, client: &str, id: &str, c: UploadBlobRequest) -> Written {
    let (control, client, id) = (blobs.clone(), client.to_string(), id.to_string());
    tokio::task::spawn_blocking(move || BlobStore::append(&control.blobs, &client, &id, c.offset, &c.data, c.finish))
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
        bounds::check_attach(&req).map_err(|m| Status::invalid_argument(format!("attach: {m}")))?;
        let most = crate::scenario::limits().max_workers;
        if self.control.workers().len() >= most {
            return Err(Status::resource_exhausted(format!("{most} workers are attached, the most control serves at once (proto/codecbench/v1/limits.json)")));
        }
        let (info, mut rx) = self.control.attach(req);
        // The first message is `attached`, sent before attach returned: it carries the secret.
        let first = rx.try_recv().ok();
        if let Some(ToWorker::Attached { report_secret, .. }) = &first {
            self.clients.attached(report_secret, &info.id);
        }
        Ok(Response::new(AttachStream { first, rx, worker_id: info.id, control: self.control.clone(), clients: self.clients.clone() }))
    }

    async fn report_result(&self, request: Request<ReportResultRequest>) -> Result<Response<ReportResultResponse>, Status> {
        let mut req = request.into_inner();
        bounds::clip_report(&mut req).map_err(|m| Status::invalid_argument(format!("report for task {}: {m}", req.task_id)))?;
        self.control.report(req)?;
        Ok(Response::new(ReportResultResponse {}))
    }

    async fn get_blob(&self, request: Request<GetBlobRequest>) -> Result<Response<BlobStream>, Status> {
        let req = request.into_inner();
        let path = self.control.blobs.path(&req.blob_id)?;
        let file = std::fs::File::open(&path).map_err(|e| Status::internal(format!("opening blob: {e}")))?;
        let total = file.metadata().map_err(|e| Status::internal(e.to_string()))?.len();
        if req.offset > total {
            return Err(Status::out_of_range(format!("offset {} is past the end of a {total}-byte blob", req.offset)));
        }
        // Chunks are read as the client takes them, each on a blocking thread only while it
        // reads: a client that stops reading holds no thread.
        let file = std::sync::Arc::new(file);
        let chunks = futures::stream::unfold(Some((req.offset, true)), move |state| {
            let file = file.clone();
            async move {
                let (offset, first) = state?;
                // One message at least (an empty blob, an offset at the end), then to the end.
                if !first && offset >= total {
                    return None;
                }
                let want = MAX_CHUNK.min((total - offset) as usize);
                let read = tokio::task::spawn_blocking(move || {
                    let mut data = vec![0u8; want];
                    file.read_exact_at(&mut data, offset).map(|_| data)
                }).await;
                Some(match read {
                    Ok(Ok(data)) => (Ok(GetBlobResponse { data, offset, total_size: total }), Some((offset + want as u64, false))),
                    Ok(Err(e)) => (Err(Status::internal(format!("reading blob: {e}"))), None),
                    Err(e) => (Err(Status::internal(e.to_string())), None),
                })
            }
        });
        Ok(Response::new(Box::pin(chunks)))
    }

    async fn put_blob(&self, request: Request<PutBlobRequest>) -> Result<Response<PutBlobResponse>, Status> {
        let client = self.clients.key(&request)?;
        let req = request.into_inner();
        let control = self.control.clone();
        let done = tokio::task::spawn_blocking(move || control.blobs.put_chunk(&client, &req.upload_id, req.offset, &req.data, req.finish))
            .await
            .map_err(|e| Status::internal(e.to_string()))??;
        let (blob_id, size) = done.unwrap_or_default();
        Ok(Response::new(PutBlobResponse { blob_id, size }))
    }

    /// The upload counts against the caps from the moment the stream opens; each chunk must
    /// arrive within the stream deadline (the first too), or the stream is closed and its upload
    /// dropped. A chunk is written on a blocking thread while the next one is received, so an
    /// idle stream holds no thread, only its slot.
    async fn upload_blob(&self, request: Request<Streaming<UploadBlobRequest>>) -> Result<Response<UploadBlobResponse>, Status> {
        let client = self.clients.key(&request)?;
        let mut chunks = request.into_inner();
        let id = format!("stream-{:032x}", rand::random::<u128>());
        self.control.blobs.begin(&client, &id)?;
        let mut upload = OpenUpload { control: self.control.clone(), id, stored: false };
        let deadline = self.control.blobs.stream_idle();
        let mut writing: Option<Written> = None;
        let mut received = 0u64;
        loop {
            let next = tokio::time::timeout(deadline, chunks.message()).await;
            // The previous chunk's write ran meanwhile; an error there ends the upload.
            if let Some(w) = writing.take() {
                written(w).await?;
            }
            let chunk = match next {
                Err(_) => return Err(Status::deadline_exceeded(format!(
                    "the upload stream sent no chunk for {} s after {received} chunk(s); it was closed and its upload dropped", deadline.as_secs()))),
                Ok(Err(e)) => return Err(e),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(c))) => c,
            };
            received += 1;
            let finish = chunk.finish;
            writing = Some(write_chunk(&self.control, &client, &upload.id, chunk));
            if finish {
                break;
            }
        }
        let stored = match writing {
            Some(w) => written(w).await?,
            None => None,
        };
        match stored {
            Some((blob_id, size)) => {
                upload.stored = true;
                Ok(Response::new(UploadBlobResponse { blob_id, size }))
            }
            None => Err(Status::invalid_argument("the upload stream ended without a chunk marked `finish`: nothing was stored")),
        }
    }
}
