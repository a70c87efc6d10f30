//! A run's lifecycle: started (stored, then dispatched), watched, read, cancelled. A child of
//! state.rs, whose types it reads; a task's end is finish.rs.
use super::*;

impl Control {
    /// Blob ids the active runs still need: their tasks' canonical data and payloads.
    pub fn needed_blobs(&self) -> std::collections::HashSet<String> {
        let inner = self.lock();
        inner.runs.iter().flat_map(|r| r.tasks.iter())
            .flat_map(|e| [e.task.canonical_blob_id.clone(), e.task.payload_blob_id.clone()])
            .filter(|id| !id.is_empty())
            .collect()
    }

    /// Stores a planned run and starts it; returns its event stream (the run comes first).
    pub fn start_run(&self, mut run: Run, source: &str, planned: Vec<Planned>) -> Result<Follow> {
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
    pub fn watch_run(&self, run_id: &str) -> Result<Option<Follow>> {
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
    pub fn get_run(&self, run_id: &str) -> Result<Option<(Run, Vec<TaskSummary>)>> {
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
    pub fn cancel_run(&self, run_id: &str) -> Result<Option<Run>> {
        let mut inner = self.lock();
        let Some(pos) = inner.runs.iter().position(|r| r.run.id == run_id) else {
            return Ok(self.store.get_run(run_id)?);
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
}
