//! Control's live state: attached workers and active runs. Tasks run at most one per lane and one
//! per worker (two timed loops on the same cores would disturb each other: docs/DESIGN.md "Lanes").
//! Every change that matters is written to SQLite before it is announced. This file holds the
//! shared state and its types; each job is a child module: workers.rs (the registry), runs.rs
//! (a run's lifecycle), ingest.rs (reports, their authorisation, timeouts), finish.rs (a task's
//! end), dispatch.rs (which task starts where), adaptive.rs (one more trial for a wide cell) and
//! same_bytes.rs (byte-identical payloads measured once).
//! None of them knows gRPC: errors are crate::error::Error, worker messages are ToWorker.
use crate::blobs::BlobStore;
use crate::error::{Error, Result};
use crate::follow::{Follow, Subscriber};
use crate::stats;
use crate::scenario::{Planned, WorkerView};
use crate::store::{Batch, Store};
use codecbench_proto::v1::{
    run_event, AbandonTask, AttachRequest, Measurement, Operation, ReportResultRequest, Run,
    RunEvent, RunStatus, TaskStatus, TaskSummary, WorkerInfo, Task,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// What control sends a worker on its task stream; worker_service.rs turns each into an
/// AttachResponse.
#[derive(Debug, Clone, PartialEq)]
pub enum ToWorker {
    /// First, once: the worker's identity and the secret every report of its tasks must carry.
    Attached { info: WorkerInfo, report_secret: String },
    Task(Task),
    /// Stop this task: control has ended it and will refuse its report.
    Abandon(AbandonTask),
}

pub type TaskSender = UnboundedSender<ToWorker>;

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

fn is_terminal(s: TaskStatus) -> bool {
    matches!(s, TaskStatus::Done | TaskStatus::Failed | TaskStatus::Cancelled | TaskStatus::SameBytes)
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
}

pub type Shared = Arc<Control>;

mod adaptive;
mod dispatch;
mod finish;
mod ingest;
mod runs;
mod same_bytes;
mod workers;
use dispatch::partnered;

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
