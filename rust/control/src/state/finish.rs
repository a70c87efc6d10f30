//! A task's end: its rows stored in one transaction, its dependents unblocked or failed, an
//! adaptive trial added, the run completed. A child of state.rs, whose types it reads.
use super::*;

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

impl Control {
    /// `finish` where nobody waits for the answer (a timeout, a detach): a storage failure can only
    /// be logged, and the in-memory state goes on (the run's rows are in SQLite up to the failure).
    pub(super) fn finish_logged(&self, inner: &mut Inner, run_id: &str, index: usize, outcome: Result<(), String>, measurements: Vec<Measurement>, payload: Option<(String, u64)>) {
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
    pub(super) fn finish(&self, inner: &mut Inner, run_id: &str, index: usize, outcome: Result<(), String>, measurements: Vec<Measurement>, payload: Option<(String, u64)>, phases: HashMap<String, f64>, strict: bool) -> anyhow::Result<()> {
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
        // The attached workers' languages: a collapse of byte-identical cells prefers the consumer's own.
        // Only a prepare's end can collapse anything: other task ends skip the map.
        let languages: HashMap<String, String> = if inner.runs[pos].tasks[index].task.prepare {
            inner.workers.iter().map(|(id, w)| (id.clone(), w.info.environment.as_ref().map(|e| e.language.clone()).unwrap_or_default())).collect()
        } else {
            HashMap::new()
        };
        let run = &mut inner.runs[pos];
        let mut batch = Batch::default();
        let mut events: Vec<run_event::Event> = vec![];
        // Where its time went: only a task that was given to a worker has a start to measure from.
        if run.tasks[index].summary.started_at.is_some() {
            run.tasks[index].summary.ended_at = Some(now());
        }
        run.tasks[index].summary.phase_ms = phases;
        let summary = run.tasks[index].summary.clone();
        // The payload this trial encoded or decoded: an encode cell's first trial reports it and
        // every trial of that cell shares it.
        if let Some((id, _)) = &payload {
            for t in run.tasks.iter_mut().filter(|t| t.summary.cell_id == summary.cell_id) {
                t.task.payload_blob_id = id.clone();
            }
        }
        let entry = &run.tasks[index];
        let payload_id = entry.task.payload_blob_id.clone();
        let mut stored: Vec<Measurement> = measurements.into_iter().map(|m| self.identify(run_id, entry, &payload_id, m)).collect();
        if let Err(msg) = &outcome {
            // Exactly one failure row per failed task, beside any parts that did succeed: the
            // worker's own failure rows are folded into it (the task's failure names the cause).
            let language = stored.first().map(|m| m.language.clone()).unwrap_or_default();
            stored.retain(|m| m.failure.is_empty());
            stored.push(self.identify(run_id, entry, &payload_id, Measurement { operation: summary.operation, language, verified: false, failure: msg.clone(), ..Default::default() }));
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
                changed.extend(Self::fail_dependents(run, index, &summary.id, msg));
                for &i in &changed[1..] {
                    let t = &run.tasks[i];
                    let m = self.identify(run_id, t, "", Measurement { operation: Operation::Decode as i32, failure: t.summary.failure.clone(), ..Default::default() });
                    events.push(run_event::Event::Measurement(m.clone()));
                    batch.measurements.push(m);
                }
            }
        }
        if run.tasks[index].task.prepare {
            let (same, rows) = Self::same_bytes(run, &languages);
            changed.extend(same);
            for (i, m) in rows {
                let m = self.identify(run_id, &run.tasks[i], &run.tasks[i].task.payload_blob_id.clone(), m);
                events.push(run_event::Event::Measurement(m.clone()));
                batch.measurements.push(m);
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
        let completed = Self::settle(run);
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
            Self::retire(inner, pos);
        }
        Ok(())
    }

    fn recount(run: &mut ActiveRun) {
        run.run.tasks_done = run.tasks.iter().filter(|t| t.summary.status() == TaskStatus::Done).count() as u32;
        run.run.tasks_failed = run.tasks.iter().filter(|t| t.summary.status() == TaskStatus::Failed).count() as u32;
        run.run.tasks_same_bytes = run.tasks.iter().filter(|t| t.summary.status() == TaskStatus::SameBytes).count() as u32;
    }

    pub(super) fn complete_if_done(&self, inner: &mut Inner, run_id: &str) {
        let Some(pos) = inner.runs.iter().position(|r| r.run.id == run_id) else { return };
        let run = &mut inner.runs[pos];
        if !run.tasks.iter().all(|t| is_terminal(t.summary.status())) {
            return;
        }
        Self::settle(run);
        if let Err(e) = self.store.update_run(&run.run) {
            tracing::error!("storing run {run_id}: {e:#}");
        }
        let r = run.run.clone();
        run.emit(run_event::Event::Run(r));
        Self::retire(inner, pos);
    }

    /// The run's counts and control's peak memory brought up to date, and the run marked ended
    /// when none of its tasks is left; true then.
    fn settle(run: &mut ActiveRun) -> bool {
        Self::recount(run);
        run.run.control_peak_rss_bytes = crate::memory::peak();
        let completed = run.tasks.iter().all(|t| is_terminal(t.summary.status()));
        if completed {
            run.run.status = if run.cancelled { RunStatus::Cancelled } else { RunStatus::Finished } as i32;
            run.run.finished_at = Some(now());
        }
        completed
    }

    /// An ended run leaves memory. Dropping it drops its subscribers: their streams end.
    fn retire(inner: &mut Inner, pos: usize) {
        let run = inner.runs.remove(pos);
        tracing::info!(run = run.run.id, done = run.run.tasks_done, failed = run.run.tasks_failed, "run ended: {}", crate::store::status_name(run.run.status()));
        drop(run);
        crate::memory::release_free();
    }

    /// Fails the pending tasks that wait for task `index`'s payload (its encode, `failed`, failed
    /// with `msg`); returns their indices.
    fn fail_dependents(run: &mut ActiveRun, index: usize, failed: &str, msg: &str) -> Vec<usize> {
        let mut out = vec![];
        for (i, t) in run.tasks.iter_mut().enumerate() {
            if t.depends_on == Some(index) && t.summary.status() == TaskStatus::Pending {
                t.summary.status = TaskStatus::Failed as i32;
                t.summary.failure = format!("not run: the payload's encode ({failed}) failed: {}", excerpt(msg));
                out.push(i);
            }
        }
        out
    }

    /// A measurement as stored: its identity comes from its task, whatever the worker wrote.
    fn identify(&self, run_id: &str, entry: &Entry, payload_blob_id: &str, mut m: Measurement) -> Measurement {
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
        // A decode task's decode and download legs read a payload another implementation may have written.
        m.payload_codec = s.payload_codec.clone();
        let compressed = self.blobs.known_compressed(payload_blob_id);
        m.gzip_bytes = compressed.map(|c| c.gzip);
        m.zstd_bytes = compressed.map(|c| c.zstd);
        m.recorded_at = Some(now());
        m
    }
}
