//! `codecbench.v1.HarnessService`: what the CLI and grpcurl call.
use crate::scenario;
use crate::state::Shared;
use codecbench_datasets::Records;
use codecbench_proto::v1::{
    harness_service_server::HarnessService, CancelRunRequest, CancelRunResponse, CodecOffer, GetRunRequest, GetRunResponse,
    ListCodecsRequest, ListCodecsResponse, ListRunsRequest, ListRunsResponse, ListWorkersRequest, ListWorkersResponse, Run,
    RunEvent, RunStatus, StartRunRequest, StartRunResponse, WatchRunRequest, WatchRunResponse,
};
use futures::{Stream, StreamExt};
use std::collections::HashMap;
use std::pin::Pin;
use std::time::SystemTime;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::{Request, Response, Status};

pub struct Service {
    pub control: Shared,
}

fn internal(e: anyhow::Error) -> Status {
    Status::internal(format!("{e:#}"))
}

/// A readable, sortable, unique run id: UTC time plus a random suffix.
fn new_run_id() -> String {
    let t = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let digits: String = t.chars().filter(char::is_ascii_digit).collect();
    format!("{}-{}-{:04x}", &digits[..8], &digits[8..14], rand::random::<u16>())
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

fn stream_of<T: Send + 'static>(rx: tokio::sync::mpsc::UnboundedReceiver<RunEvent>, wrap: fn(RunEvent) -> T) -> EventStream<T> {
    Box::pin(UnboundedReceiverStream::new(rx).map(move |e| Ok(wrap(e))))
}

#[tonic::async_trait]
impl HarnessService for Service {
    type StartRunStream = EventStream<StartRunResponse>;
    type WatchRunStream = EventStream<WatchRunResponse>;

    async fn start_run(&self, request: Request<StartRunRequest>) -> Result<Response<Self::StartRunStream>, Status> {
        let req = request.into_inner();
        let source = req.source;
        let scenario = req.scenario.ok_or_else(|| Status::invalid_argument("no scenario given"))?;
        let run_id = new_run_id();
        let (scenario, mut planned) = scenario::plan(&run_id, &scenario, &self.control.worker_views())
            .map_err(|m| Status::invalid_argument(if source.is_empty() { m } else { format!("{source}: {m}") }))?;

        // Canonical data: generated once per (dataset, count) and stored as a blob.
        let mut canonical: HashMap<(String, u32), (String, u64)> = HashMap::new();
        for p in &mut planned {
            let key = (p.task.dataset.clone(), p.task.record_count);
            if !canonical.contains_key(&key) {
                let (control, seed, k) = (self.control.clone(), scenario.seed, key.clone());
                let blob = tokio::task::spawn_blocking(move || {
                    let records = codecbench_datasets::generate(&k.0, k.1, seed).map_err(|e| e.to_string())?;
                    let bytes = Records::to_canonical_bytes(&records);
                    control.blobs.put_bytes(&bytes).map(|id| (id, bytes.len() as u64)).map_err(|e| e.to_string())
                })
                .await
                .map_err(|e| Status::internal(e.to_string()))?
                .map_err(Status::internal)?;
                canonical.insert(key.clone(), blob);
            }
            let (id, size) = &canonical[&key];
            p.task.canonical_blob_id = id.clone();
            p.task.canonical_blob_size = *size;
        }
        let name = if !scenario.name.is_empty() { scenario.name.clone() } else if !source.is_empty() { source.clone() } else { "unnamed".into() };
        let run = Run {
            id: run_id,
            name,
            tasks_total: planned.len() as u32,
            scenario: Some(scenario),
            status: RunStatus::Running as i32,
            created_at: Some(SystemTime::now().into()),
            ..Default::default()
        };
        let rx = self.control.start_run(run, &source, planned).map_err(internal)?;
        Ok(Response::new(stream_of(rx, |e| StartRunResponse { event: Some(e) })))
    }

    async fn watch_run(&self, request: Request<WatchRunRequest>) -> Result<Response<Self::WatchRunStream>, Status> {
        let id = request.into_inner().run_id;
        let rx = self.control.watch_run(&id).map_err(internal)?.ok_or_else(|| Status::not_found(format!("no run {id}")))?;
        Ok(Response::new(stream_of(rx, |e| WatchRunResponse { event: Some(e) })))
    }

    async fn get_run(&self, request: Request<GetRunRequest>) -> Result<Response<GetRunResponse>, Status> {
        let id = request.into_inner().run_id;
        let (run, tasks) = self.control.get_run(&id).map_err(internal)?.ok_or_else(|| Status::not_found(format!("no run {id}")))?;
        let measurements = self.control.store.measurements(&id).map_err(internal)?;
        let workers = self.control.store.run_workers(&id).map_err(internal)?;
        Ok(Response::new(GetRunResponse { run: Some(run), tasks, measurements, workers }))
    }

    async fn list_runs(&self, request: Request<ListRunsRequest>) -> Result<Response<ListRunsResponse>, Status> {
        let limit = match request.into_inner().limit { 0 => 50, n => n };
        let runs = self.control.store.list_runs(limit).map_err(internal)?;
        Ok(Response::new(ListRunsResponse { runs }))
    }

    async fn cancel_run(&self, request: Request<CancelRunRequest>) -> Result<Response<CancelRunResponse>, Status> {
        let id = request.into_inner().run_id;
        let run = self.control.cancel_run(&id).map_err(internal)?.ok_or_else(|| Status::not_found(format!("no run {id}")))?;
        Ok(Response::new(CancelRunResponse { run: Some(run) }))
    }

    async fn list_workers(&self, _: Request<ListWorkersRequest>) -> Result<Response<ListWorkersResponse>, Status> {
        Ok(Response::new(ListWorkersResponse { workers: self.control.workers() }))
    }

    async fn list_codecs(&self, _: Request<ListCodecsRequest>) -> Result<Response<ListCodecsResponse>, Status> {
        let offers = self.control.workers().into_iter().flat_map(|w| {
            let language = w.environment.as_ref().map(|e| e.language.clone()).unwrap_or_default();
            w.codecs.into_iter().map(move |c| CodecOffer { codec: Some(c), worker_id: w.id.clone(), language: language.clone() })
        }).collect();
        Ok(Response::new(ListCodecsResponse { offers }))
    }
}
