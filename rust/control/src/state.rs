//! Control's live state: attached workers and active runs. Tasks run one at a time across the
//! whole machine (workers share its cores; two timed loops at once would disturb each other).
//! Every change that matters is written to SQLite before it is announced.
use crate::blobs::BlobStore;
use crate::follow::{Follow, Subscriber};
use crate::stats;
use crate::scenario::{Planned, WorkerView};
use crate::store::{Batch, Store};
use codecbench_proto::v1::{
    attach_response, run_event, AbandonTask, AttachRequest, AttachResponse, Measurement, Operation, ReportResultRequest, Run,
    RunEvent, RunStatus, TaskStatus, TaskSummary, WorkerInfo, Task,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tonic::Status;

/// The most `phase_ms` entries kept per task (proto/README.md names nine).
const MAX_PHASES: usize = 16;
/// The longest `trial_cpus` kept ("0-63,128-191" is 12).
const MAX_TRIAL_CPUS: usize = 64;

pub type TaskSender = UnboundedSender<Result<AttachResponse, Status>>;

pub struct Control {
    pub store: Store,
    pub blobs: BlobStore,
    /// The CPUs of each lane: how many tasks run at once, and where (docs/DESIGN.md "Lanes").
    lanes: Vec<Vec<u32>>,
    /// Every worker host (Environment.hostname) has lanes of its own (`--lanes-per-host`): workers
    /// on different hosts run trials at once. Off: the lanes are shared by every worker, as on
    /// one machine.
    lanes_per_host: bool,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    workers: BTreeMap<String, Worker>,
    name_counters: HashMap<String, u32>,
    /// Active runs, oldest first.
    runs: Vec<ActiveRun>,
    /// The tasks given to workers and not yet ended: at most one per lane and one per worker.
    running: Vec<Running>,
}

struct Worker {
    info: WorkerInfo,
    tx: TaskSender,
    /// Sent once with `attached`; every report for this worker's tasks must carry it.
    report_secret: String,
    /// The lane of its last task: its next one goes there when that lane is free (a browser
    /// worker keeps its pinned Chromium launch instead of relaunching on other CPUs).
    last_lane: Option<usize>,
}

#[derive(Clone)]
struct ActiveRun {
    run: Run,
    tasks: Vec<Entry>,
    subscribers: Vec<Subscriber>,
    cancelled: bool,
    started: Instant,
    /// Draws where adaptive trials go among the pending ones (seeded from the run's order seed).
    rng: ChaCha8Rng,
}

#[derive(Clone)]
struct Entry {
    summary: TaskSummary,
    task: Task,
    depends_on: Option<usize>,
    aa_twin: bool,
    /// Dispatch order: the lowest pending, ready key runs next.
    order: f64,
    /// The trial's figure (median of its rounds of the task's own operation), once done.
    figure: Option<f64>,
    /// A duet task's partner: the other task of its duet and trial (duets.rs); they start together.
    partner: Option<usize>,
}

#[derive(Clone)]
struct Running {
    run_id: String,
    index: usize,
    worker_id: String,
    /// Its worker's host when each host has lanes of its own, else "" (one machine).
    host: String,
    lane: usize,
    deadline: Instant,
    timeout: Duration,
}

fn now() -> prost_types::Timestamp {
    SystemTime::now().into()
}

/// The most of an encode's failure message each task that waited for its payload repeats.
const DEPENDENT_EXCERPT: usize = 200;

/// The start of a failure message, for the tasks that depend on the failed one: the whole message
/// is stored once, in the failed task's own row, however many tasks waited for its payload.
fn excerpt(msg: &str) -> String {
    match msg.char_indices().nth(DEPENDENT_EXCERPT) {
        None => msg.to_string(),
        Some((cut, _)) => format!("{}… (the whole message is the encode task's failure)", &msg[..cut]),
    }
}

fn is_terminal(s: TaskStatus) -> bool {
    matches!(s, TaskStatus::Done | TaskStatus::Failed | TaskStatus::Cancelled)
}

impl Entry {
    /// The worker that runs this task: its replica when the run spreads trials over replicas,
    /// else the producer encodes and the consumer decodes.
    fn worker_id(&self) -> &str {
        if !self.summary.replica.is_empty() {
            &self.summary.replica
        } else if self.summary.operation() == Operation::Encode {
            &self.summary.producer_worker_id
        } else {
            &self.summary.consumer_worker_id
        }
    }
}

impl ActiveRun {
    fn emit(&mut self, event: run_event::Event) {
        let ev = RunEvent { event: Some(event) };
        self.subscribers.retain(|s| s.offer(&ev));
    }
}

impl Control {
    /// One lane: one task at a time, its trial process placed by the OS.
    #[cfg(test)]
    pub fn new(store: Store, blobs: BlobStore) -> Self {
        Self::with_lanes(store, blobs, vec![vec![]])
    }

    /// `lanes`: the CPUs of each lane (crate::lanes::split); at least one.
    pub fn with_lanes(store: Store, blobs: BlobStore, lanes: Vec<Vec<u32>>) -> Self {
        assert!(!lanes.is_empty(), "control needs at least one lane");
        Control { store, blobs, lanes, lanes_per_host: false, inner: Mutex::new(Inner::default()) }
    }

    /// Gives every worker host lanes of its own (docs/DESIGN.md "Hosts").
    pub fn with_lanes_per_host(mut self, on: bool) -> Self {
        self.lanes_per_host = on;
        self
    }


    pub fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    // ---- workers ----------------------------------------------------------------------------

    /// Registers a worker and returns its info and the receiving end of its task stream.
    pub fn attach(&self, req: AttachRequest) -> (WorkerInfo, UnboundedReceiver<Result<AttachResponse, Status>>) {
        let (tx, rx) = unbounded_channel();
        let mut inner = self.lock();
        let name: String = req.name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
        let name = if name.is_empty() { "worker".to_string() } else { name };
        let n = inner.name_counters.entry(name.clone()).or_insert(0);
        *n += 1;
        let info = WorkerInfo {
            id: format!("{name}-{n}"),
            name,
            environment: req.environment,
            codecs: req.codecs,
            attached_at: Some(now()),
            current_task_id: String::new(),
            tasks_done: 0,
            compressions: req.compressions,
            datasets: req.datasets,
        };
        // 128 bits from the thread-local CSPRNG (ChaCha, seeded from the OS).
        let report_secret = hex::encode(rand::rng().random::<[u8; 16]>());
        let _ = tx.send(Ok(AttachResponse {
            message: Some(attach_response::Message::Attached(info.clone())),
            report_secret: report_secret.clone(),
        }));
        inner.workers.insert(info.id.clone(), Worker { info: info.clone(), tx, report_secret, last_lane: None });
        tracing::info!(worker = info.id, language = info.environment.as_ref().map(|e| e.language.as_str()).unwrap_or("?"), "attached");
        self.dispatch(&mut inner);
        (info, rx)
    }

    /// Blob ids the active runs still need: their tasks' canonical data and payloads.
    pub fn needed_blobs(&self) -> std::collections::HashSet<String> {
        let inner = self.lock();
        inner.runs.iter().flat_map(|r| r.tasks.iter())
            .flat_map(|e| [e.task.canonical_blob_id.clone(), e.task.payload_blob_id.clone()])
            .filter(|id| !id.is_empty())
            .collect()
    }

    /// The worker's stream closed: it is gone. Its running task fails, and so do the tasks that
    /// were waiting for it; the runs go on.
    pub fn detach(&self, worker_id: &str) {
        let mut inner = self.lock();
        if inner.workers.remove(worker_id).is_none() {
            return;
        }
        tracing::warn!(worker = worker_id, "detached");
        if let Some(r) = inner.running.iter().find(|r| r.worker_id == worker_id) {
            let (run_id, index) = (r.run_id.clone(), r.index);
            let msg = format!("worker {worker_id} went away while running the task (its stream closed: the process died or was stopped)");
            self.finish_logged(&mut inner, &run_id, index, Err(msg), vec![], None);
        }
        let waiting: Vec<(String, usize)> = inner.runs.iter().flat_map(|r| {
            r.tasks.iter().enumerate()
                .filter(|(_, t)| t.summary.status() == TaskStatus::Pending && t.worker_id() == worker_id)
                .map(|(i, _)| (r.run.id.clone(), i))
                .collect::<Vec<_>>()
        }).collect();
        for (run_id, i) in waiting {
            let msg = format!("worker {worker_id} detached before the task ran");
            self.finish_logged(&mut inner, &run_id, i, Err(msg), vec![], None);
        }
        self.dispatch(&mut inner);
    }

    pub fn workers(&self) -> Vec<WorkerInfo> {
        self.lock().workers.values().map(|w| w.info.clone()).collect()
    }

    pub fn worker_views(&self) -> Vec<WorkerView> {
        self.lock().workers.values().map(|w| WorkerView {
            id: w.info.id.clone(),
            name: w.info.name.clone(),
            language: w.info.environment.as_ref().map(|e| e.language.clone()).unwrap_or_default(),
            codecs: w.info.codecs.clone(),
            compressions: w.info.compressions.clone(),
            datasets: w.info.datasets.clone(),
        }).collect()
    }

    /// Ends every worker and run stream (control is stopping). Runs still active stay RUNNING in
    /// SQLite; the next start closes them as interrupted.
    pub fn close_streams(&self) {
        let mut inner = self.lock();
        inner.workers.clear();
        inner.running.clear();
        for run in &mut inner.runs {
            run.subscribers.clear();
        }
    }

    // ---- runs -------------------------------------------------------------------------------

    /// Stores a planned run and starts it; returns its event stream (the run comes first).
    pub fn start_run(&self, mut run: Run, source: &str, planned: Vec<Planned>) -> anyhow::Result<Follow> {
        run.control_rss_start_bytes = crate::memory::reset_peak();
        run.control_peak_rss_bytes = run.control_rss_start_bytes;
        run.lanes = self.planned_lanes();
        let summaries: Vec<TaskSummary> = planned.iter().map(|p| p.summary.clone()).collect();
        self.store.insert_run(&run, source, &summaries, &self.workers())?;
        let (follow, sub) = Follow::live(&run.id, vec![], None);
        let mut inner = self.lock();
        let run_id = run.id.clone();
        let seed = run.scenario.as_ref().and_then(|s| s.sampling).map(|s| s.order_seed).unwrap_or_default();
        let mut active = ActiveRun {
            run,
            tasks: partnered(planned.into_iter().map(|p| Entry {
                summary: p.summary, task: p.task, depends_on: p.depends_on, aa_twin: p.aa_twin, order: p.order, figure: None,
                partner: None,
            }).collect()),
            subscribers: vec![sub],
            cancelled: false,
            started: Instant::now(),
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_ada9),
        };
        active.emit(run_event::Event::Run(active.run.clone()));
        inner.runs.push(active);
        tracing::info!(run = run_id, tasks = summaries.len(), "run started");
        // A worker chosen while planning may have gone since.
        let gone: Vec<usize> = inner.runs.last().unwrap().tasks.iter().enumerate()
            .filter(|(_, t)| !inner.workers.contains_key(t.worker_id()))
            .map(|(i, _)| i).collect();
        for i in gone {
            let w = inner.runs.last().unwrap().tasks[i].worker_id().to_string();
            self.finish_logged(&mut inner, &run_id, i, Err(format!("worker {w} detached before the task ran")), vec![], None);
        }
        self.dispatch(&mut inner);
        Ok(follow)
    }

    /// Events of a run: the run, what is stored so far (read by the follower's stream, a page at
    /// a time, outside this lock), then live events while it is active (follow.rs).
    pub fn watch_run(&self, run_id: &str) -> anyhow::Result<Option<Follow>> {
        {
            let mut inner = self.lock();
            if let Some(active) = inner.runs.iter_mut().find(|r| r.run.id == run_id) {
                // Measurements are committed and emitted under this lock: those stored by now are
                // replayed, every later one arrives live, none twice. Task events may repeat a
                // state the replay already read; the last one a follower sees is the current one.
                let through = self.store.last_measurement_id(run_id)?;
                let first = vec![RunEvent { event: Some(run_event::Event::Run(active.run.clone())) }];
                let (follow, sub) = Follow::live(run_id, first, Some(through));
                active.subscribers.push(sub);
                return Ok(Some(follow));
            }
        }
        let Some(run) = self.store.get_run(run_id)? else { return Ok(None) };
        Ok(Some(Follow::stored(run_id, RunEvent { event: Some(run_event::Event::Run(run)) })))
    }

    /// The run as it stands, from memory while active, else from SQLite.
    pub fn get_run(&self, run_id: &str) -> anyhow::Result<Option<(Run, Vec<TaskSummary>)>> {
        if let Some(r) = self.lock().runs.iter().find(|r| r.run.id == run_id) {
            return Ok(Some((r.run.clone(), r.tasks.iter().map(|t| t.summary.clone()).collect())));
        }
        Ok(match self.store.get_run(run_id)? {
            Some(run) => Some((run, self.store.tasks(run_id)?)),
            None => None,
        })
    }

    /// Cancels pending tasks and the running one too (a hung worker must not hold the run, or
    /// every later run, until its timeout); the running task's late report is refused. What was
    /// measured is kept.
    pub fn cancel_run(&self, run_id: &str) -> anyhow::Result<Option<Run>> {
        let mut inner = self.lock();
        let Some(pos) = inner.runs.iter().position(|r| r.run.id == run_id) else {
            return self.store.get_run(run_id);
        };
        let run = &mut inner.runs[pos];
        run.cancelled = true;
        run.run.message = "cancelled".into();
        for i in 0..run.tasks.len() {
            if run.tasks[i].summary.status() == TaskStatus::Pending {
                run.tasks[i].summary.status = TaskStatus::Cancelled as i32;
                self.store.update_task(&run.tasks[i].summary)?;
                let s = run.tasks[i].summary.clone();
                run.emit(run_event::Event::Task(s));
            }
        }
        tracing::info!(run = run_id, "cancelled");
        let snapshot = inner.runs[pos].run.clone();
        while let Some(k) = inner.running.iter().position(|r| r.run_id == run_id) {
            Self::abandon(&inner, &inner.running[k], "its run was cancelled (CancelRun)");
            // Cancelled, not failed: nothing went wrong with the codec or the worker, so the
            // task's cell must not read as a failed verification.
            let r = inner.running.remove(k);
            if let Some(w) = inner.workers.get_mut(&r.worker_id) {
                w.info.current_task_id.clear();
            }
            let run = &mut inner.runs[pos];
            let t = &mut run.tasks[r.index].summary;
            t.status = TaskStatus::Cancelled as i32;
            t.ended_at = Some(now());
            t.failure = "cancelled while running (CancelRun); the worker was told to abandon it, and its late report is refused".into();
            self.store.update_task(t)?;
            let s = t.clone();
            run.emit(run_event::Event::Task(s));
        }
        self.complete_if_done(&mut inner, run_id);
        self.dispatch(&mut inner);
        Ok(Some(snapshot))
    }

    // ---- tasks ------------------------------------------------------------------------------

    /// A worker's report. Stored before anything else happens.
    pub fn report(&self, req: ReportResultRequest) -> Result<(), Status> {
        // A new payload's compressed sizes are measured here, before the lock: compressing a big
        // payload takes seconds, and no other task starts until this report is answered anyway.
        // A report that is refused below costs one compression of a blob that exists.
        if !req.payload_blob_id.is_empty() {
            if let Err(e) = self.blobs.compressed(&req.payload_blob_id) {
                tracing::debug!(blob = req.payload_blob_id, "no compressed sizes: {e}");
            }
        }
        let mut inner = self.lock();
        // Who may report comes first: a caller without the attachment's secret learns nothing
        // about the task's state.
        match inner.workers.get(&req.worker_id) {
            None => return Err(Status::permission_denied(format!(
                "no worker {:?} is attached (it detached, or control restarted); its report for task {} is refused", req.worker_id, req.task_id))),
            Some(w) if !crate::access::same_secret(&w.report_secret, &req.report_secret) => return Err(Status::permission_denied(format!(
                "the report for task {} does not carry the report secret control gave worker {} when it attached", req.task_id, req.worker_id))),
            Some(_) => {}
        }
        let Some(r) = inner.running.iter().find(|r| {
            inner.runs.iter().find(|a| a.run.id == r.run_id).is_some_and(|a| a.tasks[r.index].summary.id == req.task_id)
        }) else {
            return Err(Status::failed_precondition(format!("task {} is not running (it timed out, or control restarted)", req.task_id)));
        };
        let (run_id, index, worker_id) = (r.run_id.clone(), r.index, r.worker_id.clone());
        let run = inner.runs.iter().find(|r| r.run.id == run_id).expect("running task belongs to an active run");
        if req.worker_id != worker_id {
            return Err(Status::permission_denied(format!("task {} was given to {worker_id}, not {}", req.task_id, req.worker_id)));
        }
        // Only an encode cell's first trial stores the payload; later trials only time.
        let is_encode = run.tasks[index].task.store_payload;
        // Phases are a worker's few named figures; anything else (long names, many keys) is not kept.
        let phases: HashMap<String, f64> = req.phase_ms.into_iter()
            .filter(|(k, v)| k.len() <= 32 && v.is_finite())
            .take(MAX_PHASES)
            .collect();
        let outcome = if !req.failure.is_empty() {
            Err(req.failure)
        } else if is_encode && req.payload_blob_id.is_empty() {
            Err("the worker reported an encode without a payload".to_string())
        } else if is_encode && self.blobs.path(&req.payload_blob_id).is_err() {
            Err(format!("the worker reported payload {} but control has no such blob", req.payload_blob_id))
        } else {
            Ok(())
        };
        let payload = is_encode.then_some((req.payload_blob_id, req.payload_blob_size));
        // What this report changes is stored in one transaction before it is acknowledged. If
        // SQLite refuses, nothing changes here: the task stays running and the worker, told
        // UNAVAILABLE, reports again.
        let pos = inner.runs.iter().position(|r| r.run.id == run_id).expect("running task belongs to an active run");
        let saved = (inner.runs[pos].clone(), inner.running.clone(), inner.workers.get(&worker_id).map(|w| w.info.clone()));
        // What the trial process itself saw of its CPUs (a short list; anything longer is not kept).
        inner.runs[pos].tasks[index].summary.trial_cpus = req.trial_cpus.chars().take(MAX_TRIAL_CPUS).collect();
        if let Err(e) = self.finish(&mut inner, &run_id, index, outcome, req.measurements, payload, phases, true) {
            let (run, running, worker) = saved;
            match inner.runs.iter().position(|r| r.run.id == run_id) {
                Some(p) => inner.runs[p] = run,
                None => inner.runs.insert(pos, run),
            }
            inner.running = running;
            if let (Some(w), Some(info)) = (inner.workers.get_mut(&worker_id), worker) {
                w.info = info;
            }
            tracing::error!(task = req.task_id, "storing the report failed, the worker is asked to report again: {e:#}");
            return Err(Status::unavailable(format!("control could not store the result of task {} ({e:#}); report it again", req.task_id)));
        }
        self.dispatch(&mut inner);
        Ok(())
    }

    /// Fails the running task when it overran its timeout, and tells its worker to abandon it.
    pub fn check_timeouts(&self) {
        let mut inner = self.lock();
        let now = Instant::now();
        let overdue: Vec<Running> = inner.running.iter().filter(|r| now > r.deadline).cloned().collect();
        if overdue.is_empty() {
            return;
        }
        for r in overdue {
            let why = format!("timed out after {} s (sampling.taskTimeoutS)", r.timeout.as_secs());
            Self::abandon(&inner, &r, &why);
            self.finish_logged(&mut inner, &r.run_id, r.index, Err(why), vec![], None);
        }
        self.dispatch(&mut inner);
    }

    /// Tells the worker running `r` to stop it: control is about to end it, and will refuse its
    /// report, so the worker should not spend minutes finishing it.
    fn abandon(inner: &Inner, r: &Running, reason: &str) {
        let Some(run) = inner.runs.iter().find(|a| a.run.id == r.run_id) else { return };
        let task_id = run.tasks[r.index].summary.id.clone();
        if let Some(w) = inner.workers.get(&r.worker_id) {
            tracing::info!(task = task_id, worker = r.worker_id, "asking the worker to abandon the task: {reason}");
            let _ = w.tx.send(Ok(AttachResponse {
                message: Some(attach_response::Message::Abandon(AbandonTask { task_id, reason: reason.to_string() })),
                report_secret: String::new(),
            }));
        }
    }

    /// `finish` where nobody waits for the answer (a timeout, a detach): a storage failure can only
    /// be logged, and the in-memory state goes on (the run's rows are in SQLite up to the failure).
    fn finish_logged(&self, inner: &mut Inner, run_id: &str, index: usize, outcome: Result<(), String>, measurements: Vec<Measurement>, payload: Option<(String, u64)>) {
        let _ = self.finish(inner, run_id, index, outcome, measurements, payload, HashMap::new(), false);
    }

    /// Ends a task: its measurements (or its one failure row), its dependents unblocked or failed,
    /// its worker freed, an adaptive trial if its cell needs one, and the run completed when
    /// nothing is left. Every row this writes goes to SQLite in one transaction (Store::commit),
    /// and events go out only after it committed. If that transaction fails: `strict` (a report
    /// someone can send again) returns the error at once, with the in-memory state changed, for
    /// the caller to restore; otherwise (a timeout, a detach: nobody to retry) it is logged and
    /// the run goes on in memory, so it still ends and its watchers hear of it.
    #[allow(clippy::too_many_arguments)]
    fn finish(&self, inner: &mut Inner, run_id: &str, index: usize, outcome: Result<(), String>, measurements: Vec<Measurement>, payload: Option<(String, u64)>, phases: HashMap<String, f64>, strict: bool) -> anyhow::Result<()> {
        let Some(pos) = inner.runs.iter().position(|r| r.run.id == run_id) else { return Ok(()) };
        // A task ends once: a second end (a dependent already failed by a cascade, a late
        // detach) would add a second failure row and overwrite the first message.
        if is_terminal(inner.runs[pos].tasks[index].summary.status()) {
            tracing::debug!(run = run_id, index, "task already ended; ignoring a second end");
            return Ok(());
        }
        if let Some(k) = inner.running.iter().position(|r| r.run_id == run_id && r.index == index) {
            let r = inner.running.remove(k);
            if let Some(w) = inner.workers.get_mut(&r.worker_id) {
                w.info.current_task_id.clear();
                w.info.tasks_done += 1;
            }
        }
        let run = &mut inner.runs[pos];
        let mut batch = Batch::default();
        let mut events: Vec<run_event::Event> = vec![];
        // Where its time went: only a task that was given to a worker has a start to measure from.
        if run.tasks[index].summary.started_at.is_some() {
            run.tasks[index].summary.ended_at = Some(now());
        }
        run.tasks[index].summary.phase_ms = phases;
        let summary = run.tasks[index].summary.clone();
        // A measurement's identity comes from its task, whatever the worker wrote.
        let identify = |entry: &Entry, payload_blob_id: &str, mut m: Measurement| {
            let s = &entry.summary;
            m.run_id = run_id.into();
            m.task_id = s.id.clone();
            m.dataset = s.dataset.clone();
            m.codec = s.codec.clone();
            // Decode cells carry their mode; encode cells only the streaming one ("" in memory).
            m.decode_mode = if matches!(m.operation(), Operation::Decode | Operation::Encode) { s.decode_mode.clone() } else { String::new() };
            m.record_count = s.record_count;
            m.producer_worker_id = s.producer_worker_id.clone();
            m.consumer_worker_id = s.consumer_worker_id.clone();
            m.worker_id = entry.worker_id().to_string();
            m.cell_id = s.cell_id.clone();
            m.trial = s.trial;
            m.aa_twin = entry.aa_twin;
            m.payload_blob_id = payload_blob_id.to_string();
            let compressed = self.blobs.known_compressed(payload_blob_id);
            m.gzip_bytes = compressed.map(|c| c.gzip);
            m.zstd_bytes = compressed.map(|c| c.zstd);
            m.recorded_at = Some(now());
            m
        };
        // The payload this trial encoded or decoded: an encode cell's first trial reports it and
        // every trial of that cell shares it.
        if let Some((id, _)) = &payload {
            for t in run.tasks.iter_mut().filter(|t| t.summary.cell_id == summary.cell_id) {
                t.task.payload_blob_id = id.clone();
            }
        }
        let entry = &run.tasks[index];
        let payload_id = entry.task.payload_blob_id.clone();
        let mut stored: Vec<Measurement> = measurements.into_iter().map(|m| identify(entry, &payload_id, m)).collect();
        if let Err(msg) = &outcome {
            // Exactly one failure row per failed task, beside any parts that did succeed: the
            // worker's own failure rows are folded into it (the task's failure names the cause).
            let language = stored.first().map(|m| m.language.clone()).unwrap_or_default();
            stored.retain(|m| m.failure.is_empty());
            stored.push(identify(entry, &payload_id, Measurement { operation: summary.operation, language, verified: false, failure: msg.clone(), ..Default::default() }));
        }
        if outcome.is_ok() {
            let own = stored.iter().find(|m| m.operation == summary.operation && m.failure.is_empty());
            run.tasks[index].figure = own.and_then(|m| stats::median(&m.round_ns_per_op));
        }
        events.extend(stored.iter().cloned().map(run_event::Event::Measurement));
        batch.measurements = stored;
        let mut changed = vec![index];
        match &outcome {
            Ok(()) => {
                run.tasks[index].summary.status = TaskStatus::Done as i32;
                if let Some((id, size)) = payload {
                    for t in run.tasks.iter_mut().filter(|t| t.depends_on == Some(index)) {
                        t.task.payload_blob_id = id.clone();
                        t.task.payload_blob_size = size;
                    }
                }
            }
            Err(msg) => {
                tracing::warn!(task = summary.id, "failed: {msg}");
                run.tasks[index].summary.status = TaskStatus::Failed as i32;
                run.tasks[index].summary.failure = msg.clone();
                for (i, t) in run.tasks.iter_mut().enumerate() {
                    if t.depends_on == Some(index) && t.summary.status() == TaskStatus::Pending {
                        t.summary.status = TaskStatus::Failed as i32;
                        t.summary.failure = format!("not run: the payload's encode ({}) failed: {}", summary.id, excerpt(msg));
                        changed.push(i);
                    }
                }
                for &i in &changed[1..] {
                    let t = &run.tasks[i];
                    let m = identify(t, "", Measurement { operation: Operation::Decode as i32, failure: t.summary.failure.clone(), ..Default::default() });
                    events.push(run_event::Event::Measurement(m.clone()));
                    batch.measurements.push(m);
                }
            }
        }
        for i in changed {
            batch.tasks.push(run.tasks[i].summary.clone());
            events.push(run_event::Event::Task(run.tasks[i].summary.clone()));
        }
        if outcome.is_ok() && !run.tasks[index].task.prepare {
            if let Some(added) = self.add_trial_if_needed(run, index) {
                batch.new_tasks.push((run.run.id.clone(), run.tasks.len() - 1, added.clone()));
                events.push(run_event::Event::Task(added));
            }
        }
        Self::recount(run);
        run.run.control_peak_rss_bytes = crate::memory::peak();
        let completed = run.tasks.iter().all(|t| is_terminal(t.summary.status()));
        if completed {
            run.run.status = if run.cancelled { RunStatus::Cancelled } else { RunStatus::Finished } as i32;
            run.run.finished_at = Some(now());
        }
        batch.runs.push(run.run.clone());
        events.push(run_event::Event::Run(run.run.clone()));
        if let Err(e) = self.store.commit(&batch) {
            if strict {
                return Err(e);
            }
            tracing::error!(run = run_id, task = summary.id, "storing the end of the task failed; the run goes on: {e:#}");
        }
        for e in events {
            run.emit(e);
        }
        if completed {
            tracing::info!(run = run_id, done = run.run.tasks_done, failed = run.run.tasks_failed, "run ended: {}", crate::store::status_name(run.run.status()));
            inner.runs.remove(pos);
            crate::memory::release_free();
        }
        Ok(())
    }

    fn recount(run: &mut ActiveRun) {
        run.run.tasks_done = run.tasks.iter().filter(|t| t.summary.status() == TaskStatus::Done).count() as u32;
        run.run.tasks_failed = run.tasks.iter().filter(|t| t.summary.status() == TaskStatus::Failed).count() as u32;
    }

    fn complete_if_done(&self, inner: &mut Inner, run_id: &str) {
        let Some(pos) = inner.runs.iter().position(|r| r.run.id == run_id) else { return };
        let run = &mut inner.runs[pos];
        if !run.tasks.iter().all(|t| is_terminal(t.summary.status())) {
            return;
        }
        Self::recount(run);
        run.run.control_peak_rss_bytes = crate::memory::peak();
        run.run.status = if run.cancelled { RunStatus::Cancelled } else { RunStatus::Finished } as i32;
        run.run.finished_at = Some(now());
        if let Err(e) = self.store.update_run(&run.run) {
            tracing::error!("storing run {run_id}: {e:#}");
        }
        let r = run.run.clone();
        run.emit(run_event::Event::Run(r));
        tracing::info!(run = run_id, done = run.run.tasks_done, failed = run.run.tasks_failed, "run ended: {}", crate::store::status_name(run.run.status()));
        // Dropping the run drops its subscribers: their streams end.
        inner.runs.remove(pos);
        crate::memory::release_free();
    }
}

pub type Shared = Arc<Control>;

#[path = "dispatch.rs"]
mod dispatch;
#[path = "adaptive.rs"]
mod adaptive;
use dispatch::partnered;

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
