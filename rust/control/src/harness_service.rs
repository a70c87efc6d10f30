//! `codecbench.v1.HarnessService`: what the CLI and grpcurl call.
use crate::bounds;
use crate::scenario;
use crate::state::Shared;
use crate::user_datasets;
use codecbench_proto::v1::{
    harness_service_server::HarnessService, CancelRunRequest, CancelRunResponse, CodecOffer, CollectGarbageRequest,
    CollectGarbageResponse, GetRunRequest, GetRunResponse,
    ListCodecsRequest, ListCodecsResponse, ListRunsRequest, ListRunsResponse, ListWorkersRequest, ListWorkersResponse,
    Measurement, Run, RunEvent, RunStatus, Scenario, StartRunRequest, StartRunResponse, TaskSummary, WatchRunRequest,
    WatchRunResponse, WorkerInfo, run_event,
};
use prost::Message;
use futures::{Stream, StreamExt};
use std::collections::HashMap;
use std::pin::Pin;
use std::time::SystemTime;
use tonic::{Request, Response, Status};

pub struct Service {
    pub control: Shared,
    /// GetRun's page budget (encoded bytes); below the 4 MiB message limit with room to spare.
    pub page_bytes: usize,
}

/// One GetRun page from task `first` on: whole tasks with all their measurements, added while the
/// page stays within `budget` encoded bytes (a page holds at least one task). Measurements of no
/// listed task (none are expected) go on the first page, so nothing is dropped.
pub fn run_page(run: Run, tasks: Vec<TaskSummary>, measurements: Vec<Measurement>, workers: Vec<WorkerInfo>, first: usize, budget: usize) -> GetRunResponse {
    let mut by_task: HashMap<String, Vec<Measurement>> = HashMap::new();
    for m in measurements {
        by_task.entry(m.task_id.clone()).or_default().push(m);
    }
    let mut page = GetRunResponse { run: Some(run), workers, ..Default::default() };
    if first == 0 {
        let known: std::collections::HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        let orphans: Vec<String> = by_task.keys().filter(|k| !known.contains(k.as_str())).cloned().collect();
        for k in orphans {
            page.measurements.extend(by_task.remove(&k).unwrap_or_default());
        }
    }
    // Each repeated element costs its length, a tag byte and a length prefix (at most 5 bytes).
    let framed = |len: usize| len + 6;
    let mut size = page.encoded_len() + 16;
    let mut next = first;
    for task in tasks.into_iter().skip(first) {
        let own = by_task.remove(&task.id).unwrap_or_default();
        let add = framed(task.encoded_len()) + own.iter().map(|m| framed(m.encoded_len())).sum::<usize>();
        if next > first && size + add > budget {
            page.next_page_token = next.to_string();
            break;
        }
        size += add;
        page.tasks.push(task);
        page.measurements.extend(own);
        next += 1;
    }
    page
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

/// The run record of a planned scenario, before it starts.
fn new_run(run_id: String, source: &str, scenario: Scenario, workers: &[scenario::WorkerView], tasks: usize) -> Run {
    let name = if !scenario.name.is_empty() { scenario.name.clone() } else if !source.is_empty() { source.to_string() } else { "unnamed".into() };
    Run {
        id: run_id,
        name,
        tasks_total: tasks as u32,
        refusals: {
            let mut r = scenario::refusals(&scenario, workers);
            bounds::cap_refusals(&mut r);
            r
        },
        scenario: Some(scenario),
        status: RunStatus::Running as i32,
        created_at: Some(SystemTime::now().into()),
        ..Default::default()
    }
}

/// A plan-only answer (StartRunRequest.plan_only): the run as planned, then each task, then the end.
fn planned_stream(run_id: String, source: String, scenario: Scenario, workers: &[scenario::WorkerView], planned: Vec<scenario::Planned>, lanes: u32) -> EventStream<StartRunResponse> {
    let mut run = new_run(run_id, &source, scenario, workers, planned.len());
    run.status = RunStatus::Unspecified as i32;
    run.lanes = lanes;
    let events = std::iter::once(run_event::Event::Run(run))
        .chain(planned.into_iter().map(|p| run_event::Event::Task(p.summary)))
        .map(|e| Ok(StartRunResponse { event: Some(RunEvent { event: Some(e) }) }));
    Box::pin(futures::stream::iter(events.collect::<Vec<_>>()))
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

fn stream_of<T: Send + 'static>(control: &crate::state::Shared, follow: crate::follow::Follow, wrap: fn(RunEvent) -> T) -> EventStream<T> {
    Box::pin(crate::follow::stream(control.clone(), follow).map(move |e| e.map(wrap).map_err(Status::from)))
}

#[tonic::async_trait]
impl HarnessService for Service {
    type StartRunStream = EventStream<StartRunResponse>;
    type WatchRunStream = EventStream<WatchRunResponse>;

    async fn start_run(&self, request: Request<StartRunRequest>) -> Result<Response<Self::StartRunStream>, Status> {
        let req = request.into_inner();
        let source = req.source.clone();
        let scenario = req.scenario.ok_or_else(|| Status::invalid_argument("no scenario given"))?;
        // Bounded before anything is planned or stored: every reply that carries it must fit.
        bounds::check_scenario(&scenario, &source).map_err(|m| {
            Status::invalid_argument(if source.is_empty() || source.len() > scenario::limits().max_path_bytes { m } else { format!("{source}: {m}") })
        })?;
        if scenario.sampling.is_some_and(|s| s.duets) && self.control.lane_count() < 2 {
            let m = format!("sampling.duets: a duet runs two trials at once, each in its own lane, and control runs {} lane \
                             (start it with --lanes 2 or more)", self.control.lane_count());
            return Err(Status::invalid_argument(if source.is_empty() { m } else { format!("{source}: {m}") }));
        }
        let run_id = new_run_id();
        let workers = self.control.worker_views();
        let (scenario, mut planned) = scenario::plan(&run_id, &scenario, &workers)
            .map_err(|m| Status::invalid_argument(if source.is_empty() { m } else { format!("{source}: {m}") }))?;

        if req.plan_only {
            return Ok(Response::new(planned_stream(run_id, source, scenario, &workers, planned, self.control.planned_lanes())));
        }
        // Canonical data: generated once per (dataset, count) and stored as a blob; a user
        // dataset's is cut from its records blob, cycling through the records.
        let mut canonical: HashMap<(String, u32), (String, u64)> = HashMap::new();
        let mut user_records: HashMap<String, std::sync::Arc<Vec<u8>>> = HashMap::new();
        for p in &mut planned {
            let key = (p.task.dataset.clone(), p.task.record_count);
            if !canonical.contains_key(&key) {
                let (control, seed, k) = (self.control.clone(), scenario.seed, key.clone());
                let user = match user_datasets::find(&scenario, &key.0) {
                    Some(u) if !user_records.contains_key(&u.id) => {
                        let path = self.control.blobs.path(&u.records_blob_id).map_err(|e| {
                            Status::failed_precondition(format!("dataset {}: records blob {}: {e}", u.id, u.records_blob_id))
                        })?;
                        let bytes = tokio::fs::read(&path).await.map_err(|e| Status::internal(format!("dataset {}: {e}", u.id)))?;
                        user_records.insert(u.id.clone(), std::sync::Arc::new(bytes));
                        user_records.get(&u.id).cloned()
                    }
                    Some(u) => user_records.get(&u.id).cloned(),
                    None => None,
                };
                // Written record by record into the store: memory stays bounded for any count.
                let blob = tokio::task::spawn_blocking(move || -> Result<(String, u64), Status> { match user {
                    Some(bytes) => {
                        let records = user_datasets::records(&bytes)
                            .map_err(|e| Status::invalid_argument(format!("dataset {}: the records blob is not a record list: {e}", k.0)))?;
                        Ok(control.blobs.put_with(|out| user_datasets::write_cycled(&records, k.1, out))?)
                    }
                    None => Ok(control.blobs.put_with(|out| codecbench_datasets::write_canonical(&k.0, k.1, seed, out))?),
                } })
                .await
                .map_err(|e| Status::internal(e.to_string()))??;
                canonical.insert(key.clone(), blob);
            }
            let (id, size) = &canonical[&key];
            p.task.canonical_blob_id = id.clone();
            p.task.canonical_blob_size = *size;
        }
        let run = new_run(run_id, &source, scenario, &workers, planned.len());
        let follow = self.control.start_run(run, &source, planned)?;
        Ok(Response::new(stream_of(&self.control, follow, |e| StartRunResponse { event: Some(e) })))
    }

    async fn watch_run(&self, request: Request<WatchRunRequest>) -> Result<Response<Self::WatchRunStream>, Status> {
        let id = request.into_inner().run_id;
        let follow = self.control.watch_run(&id)?.ok_or_else(|| Status::not_found(format!("no run {id}")))?;
        Ok(Response::new(stream_of(&self.control, follow, |e| WatchRunResponse { event: Some(e) })))
    }

    async fn get_run(&self, request: Request<GetRunRequest>) -> Result<Response<GetRunResponse>, Status> {
        let req = request.into_inner();
        let id = req.run_id;
        let first = match req.page_token.as_str() {
            "" => 0,
            t => t.parse::<usize>().map_err(|_| Status::invalid_argument(format!("page_token {t:?} is not one GetRun gave")))?,
        };
        let (run, tasks) = self.control.get_run(&id)?.ok_or_else(|| Status::not_found(format!("no run {id}")))?;
        if first > tasks.len() {
            return Err(Status::invalid_argument(format!("page_token {first} is past the run's {} tasks", tasks.len())));
        }
        let measurements = self.control.store.measurements(&id).map_err(internal)?;
        let workers = if first == 0 { self.control.store.run_workers(&id).map_err(internal)? } else { vec![] };
        Ok(Response::new(run_page(run, tasks, measurements, workers, first, self.page_bytes)))
    }

    async fn list_runs(&self, request: Request<ListRunsRequest>) -> Result<Response<ListRunsResponse>, Status> {
        let limit = match request.into_inner().limit { 0 => 50, n => n };
        let runs = self.control.store.list_runs(limit).map_err(internal)?;
        // No pages here: the newest runs that fit the page budget (each run is bounded: bounds.rs).
        Ok(Response::new(ListRunsResponse { runs: bounds::runs_within(runs, self.page_bytes) }))
    }

    async fn cancel_run(&self, request: Request<CancelRunRequest>) -> Result<Response<CancelRunResponse>, Status> {
        let id = request.into_inner().run_id;
        let run = self.control.cancel_run(&id)?.ok_or_else(|| Status::not_found(format!("no run {id}")))?;
        Ok(Response::new(CancelRunResponse { run: Some(run) }))
    }

    async fn list_workers(&self, _: Request<ListWorkersRequest>) -> Result<Response<ListWorkersResponse>, Status> {
        Ok(Response::new(ListWorkersResponse { workers: self.control.workers() }))
    }

    async fn collect_garbage(&self, request: Request<CollectGarbageRequest>) -> Result<Response<CollectGarbageResponse>, Status> {
        let dry_run = request.into_inner().dry_run;
        let keep = self.control.needed_blobs();
        let control = self.control.clone();
        let c = tokio::task::spawn_blocking(move || control.blobs.collect(&keep, dry_run))
            .await
            .map_err(|e| Status::internal(e.to_string()))??;
        tracing::info!(dry_run, removed = c.removed, removed_bytes = c.removed_bytes, kept = c.kept, kept_bytes = c.kept_bytes, "collected blobs");
        Ok(Response::new(CollectGarbageResponse { blobs_removed: c.removed, bytes_removed: c.removed_bytes, blobs_kept: c.kept, bytes_kept: c.kept_bytes }))
    }

    async fn list_codecs(&self, _: Request<ListCodecsRequest>) -> Result<Response<ListCodecsResponse>, Status> {
        Ok(Response::new(ListCodecsResponse { offers: codec_offers(self.control.workers()) }))
    }
}

/// Every codec every worker offers, with the worker's id and language.
pub fn codec_offers(workers: Vec<WorkerInfo>) -> Vec<CodecOffer> {
    workers.into_iter().flat_map(|w| {
        let language = w.environment.as_ref().map(|e| e.language.clone()).unwrap_or_default();
        w.codecs.into_iter().map(move |c| CodecOffer { codec: Some(c), worker_id: w.id.clone(), language: language.clone() })
    }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(i: usize) -> TaskSummary {
        TaskSummary { id: format!("t{i}"), ..Default::default() }
    }

    fn measurement(task: usize, rounds: usize) -> Measurement {
        Measurement { task_id: format!("t{task}"), round_ns_per_op: vec![1.5; rounds], ..Default::default() }
    }

    /// Every page fetched in turn, as a client does.
    fn all_pages(tasks: &[TaskSummary], ms: &[Measurement], budget: usize) -> Vec<GetRunResponse> {
        let mut pages = vec![];
        let mut first = 0;
        loop {
            let workers = if first == 0 { vec![WorkerInfo { id: "rust-1".into(), ..Default::default() }] } else { vec![] };
            let page = run_page(Run { id: "r".into(), ..Default::default() }, tasks.to_vec(), ms.to_vec(), workers, first, budget);
            let next = page.next_page_token.clone();
            pages.push(page);
            if next.is_empty() {
                return pages;
            }
            first = next.parse().unwrap();
        }
    }

    #[test]
    fn pages_hold_whole_tasks_within_the_budget_and_together_the_whole_run() {
        let tasks: Vec<TaskSummary> = (0..300).map(task).collect();
        // 1 to 3 measurements a task, of 40..1000 rounds: up to ~24 KB a task.
        let ms: Vec<Measurement> = (0..300).flat_map(|i| (0..1 + i % 3).map(move |k| measurement(i, 40 + (i * 37 + k * 11) % 960))).collect();
        let whole: usize = ms.iter().map(|m| m.encoded_len()).sum();
        let budget = 64 << 10;
        let pages = all_pages(&tasks, &ms, budget);
        assert!(pages.len() > whole / budget, "{} pages for {whole} bytes", pages.len());
        for p in &pages {
            assert!(p.encoded_len() <= budget, "a page of {} bytes", p.encoded_len());
            assert!(p.run.is_some());
            // Whole tasks: every measurement's task is on the same page.
            assert!(p.measurements.iter().all(|m| p.tasks.iter().any(|t| t.id == m.task_id)));
        }
        assert_eq!(pages[0].workers.len(), 1);
        assert!(pages[1..].iter().all(|p| p.workers.is_empty()));
        let got_tasks: Vec<TaskSummary> = pages.iter().flat_map(|p| p.tasks.clone()).collect();
        assert_eq!(got_tasks, tasks);
        let mut got: Vec<Measurement> = pages.iter().flat_map(|p| p.measurements.clone()).collect();
        let mut want = ms.clone();
        let key = |m: &Measurement| (m.task_id.clone(), m.round_ns_per_op.len());
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(got, want);
    }

    #[test]
    fn a_task_bigger_than_the_budget_still_gets_a_page_and_orphans_are_not_dropped() {
        let tasks: Vec<TaskSummary> = (0..3).map(task).collect();
        let mut ms = vec![measurement(0, 10), measurement(1, 5000), measurement(2, 10)];
        ms.push(measurement(99, 3));
        let pages = all_pages(&tasks, &ms, 4096);
        assert_eq!(pages.iter().map(|p| p.tasks.len()).collect::<Vec<_>>(), [1, 1, 1]);
        assert_eq!(pages.iter().map(|p| p.measurements.len()).sum::<usize>(), 4);
        assert!(pages[0].measurements.iter().any(|m| m.task_id == "t99"));
    }
}
