//! Runs one task by the worker protocol (proto/README.md) in the attached process: fetch the blobs,
//! hand the trial to a fresh `codecbench-worker trial` process (verification and timing happen
//! there), time the transfer legs here (they are gRPC calls of this process), store the payload,
//! report every measurement or a precise failure. A prepare task goes through the child too
//! (encode + verify, nothing timed) so this long-lived process never holds the codec's heap.
use crate::{blobs, client::{self, Client}, measure::{measure, median}, phases::Laps, rawtcp::RawTcp, trial};
use codecbench_proto::v1::{Environment, Measurement, Operation, ReportResultRequest, Sampling, Task};
use std::sync::atomic::AtomicBool;
use std::{path::PathBuf, sync::Arc, time::Duration};

pub struct Runner {
    pub client: Client,
    pub environment: Environment,
    /// This worker's own binary, run as `trial` children.
    program: PathBuf,
    /// The last canonical blob, by id: consecutive tasks often share it.
    canonical: Option<(String, Arc<Vec<u8>>)>,
    /// Set while a task runs to kill its trial process (see `abandon_flag`).
    abandon: Arc<AtomicBool>,
    /// The running task's phases in this process (fetch, transfer, process).
    laps: Laps,
}

/// A task failure: the message and the measurements taken before it.
struct Failed(String, Vec<Measurement>);

impl Runner {
    pub fn new(client: Client, environment: Environment, program: PathBuf) -> Self {
        Runner { client, environment, program, canonical: None, abandon: Arc::default(), laps: Laps::start() }
    }

    /// A fresh flag for the next `run`: setting it while that run is in flight kills its trial
    /// process (a task control abandoned). One per task, so a late kill never hits the next one.
    pub fn abandon_flag(&mut self) -> Arc<AtomicBool> {
        self.abandon = Arc::default();
        self.abandon.clone()
    }

    pub async fn run(&mut self, worker_id: &str, task: Task) -> ReportResultRequest {
        let started = std::time::Instant::now();
        self.laps = Laps::start();
        let outcome = match (trial::check_prepare(&task), task.operation()) {
            (Err(e), _) => Err(Failed(e, vec![])),
            (Ok(()), Operation::Encode) if task.prepare => self.prepare(&task).await,
            (Ok(()), Operation::Encode) => self.encode(&task).await,
            (Ok(()), Operation::Decode) => self.decode(&task).await,
            (Ok(()), other) => Err(Failed(format!("unsupported operation {}", other.as_str_name()), vec![])),
        };
        let mut report = match outcome {
            Ok(report) => report,
            Err(Failed(failure, measurements)) => ReportResultRequest { failure, measurements, ..Default::default() },
        };
        report.worker_id = worker_id.into();
        report.task_id = task.id.clone();
        // The trial process's own phases (load, verify, warmup, rounds, other) and this process's.
        let mut laps = std::mem::take(&mut self.laps);
        laps.merge(&report.phase_ms);
        laps.add("total", started.elapsed().as_secs_f64() * 1e3);
        report.phase_ms = laps.into_map();
        report
    }

    async fn canonical(&mut self, task: &Task) -> Result<Arc<Vec<u8>>, Failed> {
        if let Some((id, bytes)) = &self.canonical
            && *id == task.canonical_blob_id
        {
            return Ok(bytes.clone());
        }
        let bytes = blobs::get(&mut self.client, &task.canonical_blob_id)
            .await
            .map_err(|e| Failed(format!("fetching canonical records failed: {e:#}"), vec![]))?;
        self.laps.lap("fetch");
        let bytes = Arc::new(bytes);
        self.canonical = Some((task.canonical_blob_id.clone(), bytes.clone()));
        Ok(bytes)
    }

    /// The trial in a child process, on a blocking thread.
    async fn trial(&mut self, task: &Task, canonical: Arc<Vec<u8>>, payload: Arc<Vec<u8>>, before: &[Measurement]) -> Result<(ReportResultRequest, Vec<u8>), Failed> {
        let (program, task, abandon) = (self.program.clone(), task.clone(), self.abandon.clone());
        let timeout = task.sampling.map(|s| s.task_timeout_s).filter(|&s| s > 0).map(|s| Duration::from_secs(s.into()));
        self.laps.lap("fetch");
        let outcome = tokio::task::spawn_blocking(move || trial::run_in_child_until(&program, &["trial"], &task, &canonical, &payload, timeout, &abandon))
            .await
            .map_err(|e| Failed(format!("running the trial process panicked: {e}"), before.to_vec()))?
            .map_err(|e| Failed(e, before.to_vec()));
        self.laps.lap("process");
        outcome
    }

    /// A prepare task: the child encodes and verifies (nothing timed), this process stores the
    /// payload. No measurement, no upload timing, whatever `measure_transfer` says.
    async fn prepare(&mut self, task: &Task) -> Result<ReportResultRequest, Failed> {
        let canonical = self.canonical(task).await?;
        let (mut report, payload) = self.trial(task, canonical, Arc::new(vec![]), &[]).await?;
        if !report.failure.is_empty() {
            return Ok(report);
        }
        if !report.measurements.is_empty() || payload.is_empty() {
            return Err(Failed(format!("the prepare process returned {} measurements and {} payload bytes (expected none and a payload)", report.measurements.len(), payload.len()), vec![]));
        }
        report.payload_blob_id = blobs::put(&mut self.client, &payload).await.map_err(|e| Failed(format!("storing the payload failed: {e:#}"), vec![]))?;
        self.laps.lap("fetch");
        report.payload_blob_size = payload.len() as u64;
        Ok(report)
    }

    async fn encode(&mut self, task: &Task) -> Result<ReportResultRequest, Failed> {
        let canonical = self.canonical(task).await?;
        let (mut report, payload) = self.trial(task, canonical, Arc::new(vec![]), &[]).await?;
        if !report.failure.is_empty() {
            return Ok(report);
        }
        if (task.store_payload || task.measure_transfer) && payload.is_empty() {
            return Err(Failed("the trial process returned no payload to store or upload".into(), report.measurements));
        }
        if task.store_payload {
            let id = blobs::put(&mut self.client, &payload)
                .await
                .map_err(|e| Failed(format!("storing the payload failed: {e:#}"), report.measurements.clone()))?;
            self.laps.lap("fetch");
            report.payload_blob_id = id;
            report.payload_blob_size = payload.len() as u64;
        }
        if task.measure_transfer {
            let payload = Arc::new(payload);
            for compression in legs(task) {
                let client = client::compressed(&self.client, &compression).map_err(|e| Failed(format!("{e:#}"), report.measurements.clone()))?;
                let bytes = payload.clone();
                let m = self
                    .time_transfer(Operation::Upload, &compression, payload.clone(), task.sampling.unwrap_or_default(), move |handle| {
                        handle.block_on(blobs::put(&mut client.clone(), &bytes)).map(|_| ())
                    })
                    .await
                    .map_err(|e| Failed(e, report.measurements.clone()))?;
                self.laps.lap("transfer");
                report.measurements.push(m);
            }
        }
        Ok(report)
    }

    async fn decode(&mut self, task: &Task) -> Result<ReportResultRequest, Failed> {
        let canonical = self.canonical(task).await?;
        let payload = blobs::get(&mut self.client, &task.payload_blob_id)
            .await
            .map_err(|e| Failed(format!("fetching payload failed: {e:#}"), vec![]))?;
        if payload.len() as u64 != task.payload_blob_size && task.payload_blob_size != 0 {
            return Err(Failed(format!("fetching payload failed: got {} bytes, the task says {}", payload.len(), task.payload_blob_size), vec![]));
        }
        self.laps.lap("fetch");
        let payload = Arc::new(payload);
        let mut measurements = vec![];
        if task.measure_transfer {
            for compression in legs(task) {
                let client = client::compressed(&self.client, &compression).map_err(|e| Failed(format!("{e:#}"), measurements.clone()))?;
                let id = task.payload_blob_id.clone();
                let m = self
                    .time_transfer(Operation::Download, &compression, payload.clone(), task.sampling.unwrap_or_default(), move |handle| {
                        handle.block_on(blobs::get(&mut client.clone(), &id)).map(|b| drop(std::hint::black_box(b)))
                    })
                    .await
                    .map_err(|e| Failed(e, measurements.clone()))?;
                self.laps.lap("transfer");
                measurements.push(m);
            }
        }
        let (mut report, _) = self.trial(task, canonical, payload, &measurements).await?;
        measurements.append(&mut report.measurements);
        report.measurements = measurements;
        Ok(report)
    }

    /// Times one transfer leg here, by the same warm-up / steady state / rounds as every operation
    /// (one op = the whole payload through one gRPC call sequence, in `compression`), on a
    /// blocking thread; then, for the identity leg, the same bytes the same way over a plain
    /// loopback TCP connection, the baseline the report sets the leg against
    /// (`extras["raw_tcp_ns_per_op"]`, the median of its rounds).
    async fn time_transfer(
        &self,
        operation: Operation,
        compression: &str,
        payload: Arc<Vec<u8>>,
        sampling: Sampling,
        mut op: impl FnMut(&tokio::runtime::Handle) -> anyhow::Result<()> + Send + 'static,
    ) -> Result<Measurement, String> {
        let handle = tokio::runtime::Handle::current();
        let leg = if operation == Operation::Upload { "upload" } else { "download" };
        let payload_bytes = payload.len();
        let identity = client::is_identity(compression);
        let (sample, raw, first_error) = tokio::task::spawn_blocking(move || {
            let mut first_error = None;
            let mut record = |r: anyhow::Result<()>| {
                if let Err(e) = r
                    && first_error.is_none()
                {
                    first_error = Some(format!("{e:#}"));
                }
            };
            let sample = measure(&sampling, || record(op(&handle)));
            let raw = match identity.then(|| RawTcp::connect(payload, operation)) {
                None => None,
                Some(Ok(mut raw)) => Some(measure(&sampling, || record(raw.copy().map(drop).map_err(|e| anyhow::anyhow!("raw TCP copy: {e}"))))),
                Some(Err(e)) => {
                    record(Err(anyhow::anyhow!("raw TCP copy: {e}")));
                    None
                }
            };
            (sample, raw, first_error)
        })
        .await
        .map_err(|e| format!("{leg} timing panicked: {e}"))?;
        if let Some(e) = first_error {
            return Err(if identity { format!("{leg} timing failed: {e}") } else { format!("{leg} ({compression}) timing failed: {e}") });
        }
        let mut m = trial::measurement(operation, payload_bytes, &sample, &self.environment);
        if !identity {
            m.compression = compression.to_string();
        }
        if let Some(raw) = raw {
            m.extras.insert("raw_tcp_ns_per_op".into(), median(&raw.round_ns_per_op));
        }
        Ok(m)
    }
}

/// The compressions a task's transfer leg is timed with, in order: the task's, else identity.
fn legs(task: &Task) -> Vec<String> {
    if task.compressions.is_empty() { vec!["identity".into()] } else { task.compressions.clone() }
}
