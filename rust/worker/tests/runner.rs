//! The attached side of a task against an in-process blob store standing in for control: an encode
//! trial stores its payload and times the upload; a decode trial times the download; failures of
//! the child reach the report.
use codecbench_codecs::{Codec, Json};
use codecbench_datasets::{generate, lazy_fields};
use codecbench_proto::v1::{
    worker_service_server::{WorkerService, WorkerServiceServer},
    AttachRequest, AttachResponse, GetBlobRequest, GetBlobResponse, Operation, PutBlobRequest, PutBlobResponse,
    ReportResultRequest, ReportResultResponse, Sampling, Task, UploadBlobRequest, UploadBlobResponse,
};
use codecbench_worker::client::SECRET_HEADER;
use codecbench_worker::task::Runner;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tonic::{transport::server::TcpIncoming, Request, Response, Status, Streaming};

type Stream<T> = Pin<Box<dyn futures::Stream<Item = Result<T, Status>> + Send>>;

/// Blobs by SHA-256 hex, how many uploads finished, and each call's method with the worker secret
/// it carried.
#[derive(Default, Clone)]
struct Store {
    blobs: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    finished: Arc<Mutex<u64>>,
    secrets: Arc<Mutex<Vec<(&'static str, Option<String>)>>>,
}

impl Store {
    fn saw<T>(&self, method: &'static str, r: &Request<T>) {
        let secret = r.metadata().get(SECRET_HEADER).map(|v| v.to_str().unwrap().to_string());
        self.secrets.lock().unwrap().push((method, secret));
    }

    fn add(&self, data: Vec<u8>) -> String {
        let id = hex::encode(Sha256::digest(&data));
        self.blobs.lock().unwrap().insert(id.clone(), data);
        id
    }
}

#[tonic::async_trait]
impl WorkerService for Store {
    type AttachStream = Stream<AttachResponse>;
    type GetBlobStream = Stream<GetBlobResponse>;
    async fn attach(&self, _: Request<AttachRequest>) -> Result<Response<Self::AttachStream>, Status> {
        Err(Status::unimplemented("not in this test"))
    }
    async fn report_result(&self, r: Request<ReportResultRequest>) -> Result<Response<ReportResultResponse>, Status> {
        self.saw("ReportResult", &r);
        Err(Status::unimplemented("not in this test"))
    }
    async fn get_blob(&self, r: Request<GetBlobRequest>) -> Result<Response<Self::GetBlobStream>, Status> {
        self.saw("GetBlob", &r);
        let id = r.into_inner().blob_id;
        let data = self.blobs.lock().unwrap().get(&id).cloned().ok_or_else(|| Status::not_found(format!("no blob {id}")))?;
        let total = data.len() as u64;
        let chunks: Vec<_> = data.chunks(1 << 20).enumerate().map(|(i, c)| Ok(GetBlobResponse { data: c.to_vec(), offset: (i << 20) as u64, total_size: total })).collect();
        Ok(Response::new(Box::pin(futures::stream::iter(chunks))))
    }
    // The Rust worker streams its uploads (UploadBlob); a unary PutBlob from it is a regression.
    async fn put_blob(&self, _: Request<PutBlobRequest>) -> Result<Response<PutBlobResponse>, Status> {
        Err(Status::unimplemented("the Rust worker uploads with UploadBlob"))
    }
    async fn upload_blob(&self, r: Request<Streaming<UploadBlobRequest>>) -> Result<Response<UploadBlobResponse>, Status> {
        self.saw("UploadBlob", &r);
        let mut chunks = r.into_inner();
        let mut data = vec![];
        while let Some(c) = chunks.message().await? {
            if c.offset != data.len() as u64 {
                return Err(Status::invalid_argument(format!("chunk at {} after {} bytes", c.offset, data.len())));
            }
            data.extend_from_slice(&c.data);
            if c.finish {
                *self.finished.lock().unwrap() += 1;
                let size = data.len() as u64;
                return Ok(Response::new(UploadBlobResponse { blob_id: self.add(data), size }));
            }
        }
        Err(Status::invalid_argument("no finishing chunk"))
    }
}

async fn serve(store: Store) -> codecbench_worker::client::Client {
    serve_attached(store).await.0
}

/// A client, and the secret its blob calls carry once set (as `attached` sets it).
async fn serve_attached(store: Store) -> (codecbench_worker::client::Client, codecbench_worker::client::Secret) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(tonic::transport::Server::builder().add_service(WorkerServiceServer::new(store)).serve_with_incoming(TcpIncoming::from(listener)));
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    codecbench_worker::client::new(channel, Default::default())
}

fn task(operation: Operation, canonical: &str, count: u32) -> Task {
    Task {
        id: "t9".into(),
        operation: operation as i32,
        dataset: "beers".into(),
        codec: "json".into(),
        record_count: count,
        canonical_blob_id: canonical.into(),
        sampling: Some(Sampling { warmup_ms: 20, max_warmup_ms: 1000, rounds: 3, min_round_ms: 2, task_timeout_s: 60, ..Default::default() }),
        lazy_fields: lazy_fields("beers").unwrap().iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_of_any_size_stream_in_order_and_come_back_whole() {
    let store = Store::default();
    let mut client = serve(store.clone()).await;
    // Empty, under one chunk, exactly two chunks, and two and a half.
    for size in [0usize, 5, 2 << 20, (5 << 20) / 2] {
        let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        let id = codecbench_worker::blobs::put(&mut client, &data).await.unwrap();
        assert_eq!(id, hex::encode(Sha256::digest(&data)), "{size} bytes");
        assert_eq!(codecbench_worker::blobs::get(&mut client, &id).await.unwrap(), data, "{size} bytes");
    }
    assert_eq!(*store.finished.lock().unwrap(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encode_stores_and_uploads_decode_downloads_and_failures_are_reported() {
    let store = Store::default();
    let client = serve(store.clone()).await;
    let records = generate("beers", 8, 1).unwrap();
    let canonical = store.add(records.to_canonical_bytes());
    let env = codecbench_worker::environment::current();
    let mut runner = Runner::new(client, env, env!("CARGO_BIN_EXE_codecbench-worker").into());
    let json = Json.encode(&records).unwrap();

    // A prepare task: stored once, no measurement, no upload timing even if transfer is measured.
    let mut p = task(Operation::Encode, &canonical, 8);
    p.prepare = true;
    p.store_payload = true;
    p.measure_transfer = true;
    let report = runner.run("rust-1", p.clone()).await;
    assert_eq!(report.failure, "");
    assert!(report.measurements.is_empty(), "{:?}", report.measurements);
    assert_eq!(report.payload_blob_size, json.len() as u64);
    assert_eq!(store.blobs.lock().unwrap()[&report.payload_blob_id], json);
    assert_eq!(*store.finished.lock().unwrap(), 1);
    // Its failure is the report's, and nothing is stored.
    p.codec = "yaml".into();
    let report = runner.run("rust-1", p.clone()).await;
    assert_eq!(report.failure, "this worker has no codec \"yaml\"");
    assert!(report.measurements.is_empty() && report.payload_blob_id.is_empty());
    assert_eq!(*store.finished.lock().unwrap(), 1);
    // A prepare task that is not an encode task is refused before anything is fetched.
    p.operation = Operation::Decode as i32;
    p.payload_blob_id = "0".repeat(64);
    let report = runner.run("rust-1", p).await;
    assert_eq!(report.failure, "a prepare task must be an encode task, this one is OPERATION_DECODE");
    *store.finished.lock().unwrap() = 0;

    // Encode, first trial of its cell: stored, and the upload is timed.
    let mut t = task(Operation::Encode, &canonical, 8);
    t.store_payload = true;
    t.measure_transfer = true;
    let report = runner.run("rust-1", t.clone()).await;
    assert_eq!(report.failure, "");
    assert_eq!((report.worker_id.as_str(), report.task_id.as_str()), ("rust-1", "t9"));
    let ops: Vec<_> = report.measurements.iter().map(|m| m.operation()).collect();
    assert_eq!(ops, [Operation::Encode, Operation::Upload]);
    assert!(report.measurements.iter().all(|m| m.payload_bytes == json.len() as u64 && m.round_ns_per_op.len() == 3));
    assert_eq!(report.payload_blob_size, json.len() as u64);
    assert_eq!(store.blobs.lock().unwrap()[&report.payload_blob_id], json);
    let uploads = *store.finished.lock().unwrap();
    assert!(uploads > 10, "one stored upload plus the timed ones, got {uploads}");
    let payload_id = report.payload_blob_id.clone();

    // A later trial stores nothing and reports no payload.
    t.store_payload = false;
    t.measure_transfer = false;
    let report = runner.run("rust-1", t).await;
    assert_eq!(report.failure, "");
    assert_eq!(report.measurements.len(), 1);
    assert_eq!((report.payload_blob_id.as_str(), report.payload_blob_size), ("", 0));

    // Decode with transfer: the download leg, then the decode trial.
    let mut d = task(Operation::Decode, &canonical, 8);
    d.decode_mode = "tree".into();
    d.payload_blob_id = payload_id.clone();
    d.payload_blob_size = json.len() as u64;
    d.measure_transfer = true;
    let report = runner.run("rust-1", d.clone()).await;
    assert_eq!(report.failure, "");
    let ops: Vec<_> = report.measurements.iter().map(|m| m.operation()).collect();
    assert_eq!(ops, [Operation::Download, Operation::Decode]);
    assert!(report.measurements[0].extras.contains_key("warmup_rounds"));

    // The child's failure is the task's failure; the download already measured is kept.
    let other = store.add(Json.encode(&generate("beers", 8, 5).unwrap()).unwrap());
    d.payload_blob_id = other;
    d.payload_blob_size = 0;
    let report = runner.run("rust-1", d.clone()).await;
    assert!(report.failure.starts_with("verification failed: record 0:"), "{}", report.failure);
    assert_eq!(report.measurements.len(), 1);
    assert_eq!(report.measurements[0].operation(), Operation::Download);

    // A missing blob is named.
    d.payload_blob_id = "0".repeat(64);
    let report = runner.run("rust-1", d).await;
    assert!(report.failure.starts_with("fetching payload failed:") && report.failure.contains("no blob 000"), "{}", report.failure);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_attached_every_blob_call_carries_the_report_secret_and_no_other_call_does() {
    let store = Store::default();
    let (client, secret) = serve_attached(store.clone()).await;
    let mut runner_side = client.clone();
    codecbench_worker::blobs::put(&mut runner_side, b"before attached").await.unwrap();
    // Set on the attachment's client; its clones (the runner's, a compressed leg's) see it too.
    secret.set("0123abcd");
    let id = codecbench_worker::blobs::put(&mut runner_side, b"payload").await.unwrap();
    let mut leg = codecbench_worker::client::compressed(&client, "identity").unwrap();
    assert_eq!(codecbench_worker::blobs::get(&mut leg, &id).await.unwrap(), b"payload");
    let _ = client.clone().report_result(ReportResultRequest::default()).await;
    let seen = store.secrets.lock().unwrap().clone();
    let s = Some("0123abcd".to_string());
    assert_eq!(seen, vec![("UploadBlob", None), ("UploadBlob", s.clone()), ("GetBlob", s), ("ReportResult", None)]);
}
