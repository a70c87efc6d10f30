//! The worker registry: attach (its name, its report secret, its task stream), detach (its tasks
//! fail), and the views planning and ListWorkers read. A child of state.rs, whose types it reads.
use super::*;

impl Control {
    /// Registers a worker and returns its info and the receiving end of its task stream.
    pub fn attach(&self, req: AttachRequest) -> (WorkerInfo, UnboundedReceiver<ToWorker>) {
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
        let _ = tx.send(ToWorker::Attached { info: info.clone(), report_secret: report_secret.clone() });
        inner.workers.insert(info.id.clone(), Worker { info: info.clone(), tx, report_secret, last_lane: None });
        tracing::info!(worker = info.id, language = info.environment.as_ref().map(|e| e.language.as_str()).unwrap_or("?"), "attached");
        self.dispatch(&mut inner);
        (info, rx)
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
}
