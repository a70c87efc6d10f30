//! What comes back from workers: a report (who may send it, what is kept of it) and the tasks that
//! overran their timeout. A child of state.rs, whose types it reads.
use super::*;

/// The most `phase_ms` entries kept per task (proto/README.md names nine).
const MAX_PHASES: usize = 16;
/// The longest `trial_cpus` kept ("0-63,128-191" is 12).
const MAX_TRIAL_CPUS: usize = 64;

impl Control {
    /// A worker's report. Stored before anything else happens.
    pub fn report(&self, req: ReportResultRequest) -> Result<()> {
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
            None => return Err(Error::PermissionDenied(format!(
                "no worker {:?} is attached (it detached, or control restarted); its report for task {} is refused", req.worker_id, req.task_id))),
            Some(w) if !crate::access::same_secret(&w.report_secret, &req.report_secret) => return Err(Error::PermissionDenied(format!(
                "the report for task {} does not carry the report secret control gave worker {} when it attached", req.task_id, req.worker_id))),
            Some(_) => {}
        }
        let Some(r) = inner.running.iter().find(|r| {
            inner.runs.iter().find(|a| a.run.id == r.run_id).is_some_and(|a| a.tasks[r.index].summary.id == req.task_id)
        }) else {
            return Err(Error::FailedPrecondition(format!("task {} is not running (it timed out, or control restarted)", req.task_id)));
        };
        let (run_id, index, worker_id) = (r.run_id.clone(), r.index, r.worker_id.clone());
        let run = inner.runs.iter().find(|r| r.run.id == run_id).expect("running task belongs to an active run");
        if req.worker_id != worker_id {
            return Err(Error::PermissionDenied(format!("task {} was given to {worker_id}, not {}", req.task_id, req.worker_id)));
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
            return Err(Error::Unavailable(format!("control could not store the result of task {} ({e:#}); report it again", req.task_id)));
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
    pub(super) fn abandon(inner: &Inner, r: &Running, reason: &str) {
        let Some(run) = inner.runs.iter().find(|a| a.run.id == r.run_id) else { return };
        let task_id = run.tasks[r.index].summary.id.clone();
        if let Some(w) = inner.workers.get(&r.worker_id) {
            tracing::info!(task = task_id, worker = r.worker_id, "asking the worker to abandon the task: {reason}");
            let _ = w.tx.send(ToWorker::Abandon(AbandonTask { task_id, reason: reason.to_string() }));
        }
    }
}
