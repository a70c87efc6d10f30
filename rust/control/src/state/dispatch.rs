//! Dispatch: which ready task starts next, in which lane, and duets' two tasks together
//! (docs/DESIGN.md "Lanes" and "Duets"). A child of state.rs, whose types it reads.
use super::*;

impl Control {
    /// How many tasks may run at once: lanes × hosts (Run.lanes).
    pub fn planned_lanes(&self) -> u32 {
        self.lanes.len() as u32 * self.host_count() as u32
    }

    /// How many hosts have lanes of their own: the attached workers' hosts with lanes per host,
    /// else one (the machine). Run.lanes is lanes × hosts: what ran at once at most.
    fn host_count(&self) -> usize {
        if !self.lanes_per_host {
            return 1;
        }
        let inner = self.lock();
        let hosts: std::collections::BTreeSet<&str> = inner.workers.values()
            .map(|w| w.info.environment.as_ref().map(|e| e.hostname.as_str()).unwrap_or_default()).collect();
        hosts.len().max(1)
    }

    /// Gives ready tasks to idle workers while a lane is free: at most one task per lane and one
    /// per worker, the lowest order key first (a ready task whose worker is busy waits, and the
    /// next one whose worker is idle goes). With one lane this is one task at a time, machine-wide;
    /// with lanes per host, one at a time per host. A duet task starts with its partner, each in a
    /// lane of its own, or not at all; while the lowest ready task is a duet that cannot start
    /// yet, nothing overtakes it (the lanes drain for it instead of its pair waiting forever
    /// behind later tasks).
    pub(super) fn dispatch(&self, inner: &mut Inner) {
        while let Some((run_pos, group)) = self.next_ready(inner) {
            for i in group {
                if !self.give(inner, run_pos, i) {
                    return; // Its worker's stream is closing: detach fails its tasks and dispatches again.
                }
            }
        }
    }

    /// The host whose lanes a worker's tasks use: its own with lanes per host, else the one
    /// machine ("").
    fn host_of(&self, workers: &BTreeMap<String, Worker>, worker_id: &str) -> String {
        if !self.lanes_per_host {
            return String::new();
        }
        workers.get(worker_id).and_then(|w| w.info.environment.as_ref()).map(|e| e.hostname.clone()).unwrap_or_default()
    }

    /// The lanes of `host` no running task holds.
    fn free_lanes(&self, running: &[Running], host: &str) -> Vec<usize> {
        (0..self.lanes.len()).filter(|l| running.iter().all(|r| r.lane != *l || r.host != host)).collect()
    }

    /// The next task(s) to start: (index of its run, the task and its partner if a duet).
    fn next_ready(&self, inner: &Inner) -> Option<(usize, Vec<usize>)> {
        let Inner { runs, workers, running, .. } = inner;
        let free = |w: &str| self.free_lanes(running, &self.host_of(workers, w)).len();
        let busy = |w: &str| running.iter().any(|r| r.worker_id == w);
        for (pos, run) in runs.iter().enumerate().filter(|(_, r)| !r.cancelled) {
            let ready_now = |i: usize| {
                run.tasks[i].summary.status() == TaskStatus::Pending
                    && run.tasks[i].depends_on.is_none_or(|d| run.tasks[d].summary.status() == TaskStatus::Done)
            };
            let mut ready: Vec<usize> = (0..run.tasks.len()).filter(|&i| ready_now(i)).collect();
            ready.sort_by(|&a, &b| run.tasks[a].order.total_cmp(&run.tasks[b].order));
            for i in ready {
                let worker = run.tasks[i].worker_id();
                // A partner that can never run (failed, cancelled, its payload lost) leaves a solo task.
                let partner = run.tasks[i].partner.filter(|&j| !is_terminal(run.tasks[j].summary.status())
                    && run.tasks[j].depends_on.is_none_or(|d| !is_terminal(run.tasks[d].summary.status()) || run.tasks[d].summary.status() == TaskStatus::Done));
                match partner {
                    None => {
                        if !busy(worker) && workers.contains_key(worker) && free(worker) > 0 {
                            return Some((pos, vec![i]));
                        }
                    }
                    Some(j) => {
                        let other = run.tasks[j].worker_id();
                        // Two lanes: on one host two of its own, on two hosts one on each.
                        let lanes_ok = if self.host_of(workers, worker) == self.host_of(workers, other) { free(worker) >= 2 } else { free(worker) >= 1 && free(other) >= 1 };
                        if ready_now(j) && lanes_ok && !busy(worker) && !busy(other) && workers.contains_key(worker) && workers.contains_key(other) {
                            return Some((pos, vec![i, j]));
                        }
                        return None;
                    }
                }
            }
        }
        None
    }

    /// Sends task `i` of run `run_pos` to its worker in a free lane of its host (its worker's last
    /// lane when free); false when the worker's stream is closing.
    fn give(&self, inner: &mut Inner, run_pos: usize, i: usize) -> bool {
        let worker_id = inner.runs[run_pos].tasks[i].worker_id().to_string();
        let host = self.host_of(&inner.workers, &worker_id);
        let free = self.free_lanes(&inner.running, &host);
        let Inner { runs, workers, running, .. } = inner;
        let run = &mut runs[run_pos];
        let Some(worker) = workers.get_mut(&worker_id) else { return false };
        let lane = worker.last_lane.filter(|l| free.contains(l)).unwrap_or(free[0]);
        run.tasks[i].task.cpus = self.lanes[lane].clone();
        let task = run.tasks[i].task.clone();
        let timeout = Duration::from_secs(u64::from(task.sampling.map(|s| s.task_timeout_s).unwrap_or(300).max(1)));
        if worker.tx.send(ToWorker::Task(task)).is_err() {
            return false;
        }
        worker.info.current_task_id = run.tasks[i].summary.id.clone();
        worker.last_lane = Some(lane);
        run.tasks[i].summary.status = TaskStatus::Running as i32;
        run.tasks[i].summary.started_at = Some(now());
        run.tasks[i].summary.lane = lane as u32;
        if let Err(e) = self.store.update_task(&run.tasks[i].summary) {
            tracing::error!("storing task: {e:#}");
        }
        let s = run.tasks[i].summary.clone();
        run.emit(run_event::Event::Task(s));
        running.push(Running { run_id: run.run.id.clone(), index: i, worker_id, host, lane, deadline: Instant::now() + timeout, timeout });
        true
    }
}

/// Links each duet task to its partner: the other task with its duet and trial.
pub(super) fn partnered(mut tasks: Vec<Entry>) -> Vec<Entry> {
    let mut first: HashMap<(String, u32), usize> = HashMap::new();
    for i in 0..tasks.len() {
        if tasks[i].summary.duet.is_empty() {
            continue;
        }
        let key = (tasks[i].summary.duet.clone(), tasks[i].summary.trial);
        if let Some(&j) = first.get(&key) {
            tasks[i].partner = Some(j);
            tasks[j].partner = Some(i);
        } else {
            first.insert(key, i);
        }
    }
    tasks
}

