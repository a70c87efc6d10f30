//! Adaptive trials (DESIGN.md rule 3): a cell whose interval is still wide after its trials gets
//! one more, while its cap and the run's budget allow. A child of state.rs, whose types it reads.
use super::*;

impl Control {
    /// Adaptive trials (DESIGN.md rule 3): once every trial of the cell has ended, a cell whose
    /// rerun interval (stats.rs) is wider than the target gets one more trial, placed at
    /// a random point among the pending ones, up to `max_trials` and while the run's time budget
    /// lasts.
    pub(super) fn add_trial_if_needed(&self, run: &mut ActiveRun, index: usize) -> Option<TaskSummary> {
        let sampling = run.run.scenario.as_ref().and_then(|s| s.sampling)?;
        if !run.tasks[index].summary.duet.is_empty() {
            return None; // A duet's trials come in pairs: one more on one side would have no partner.
        }
        let cell = run.tasks[index].summary.cell_id.clone();
        let trials: Vec<&Entry> = run.tasks.iter().filter(|t| t.summary.cell_id == cell && !t.task.prepare).collect();
        if trials.iter().any(|t| !is_terminal(t.summary.status())) || trials.len() >= sampling.max_trials as usize {
            return None;
        }
        if sampling.max_seconds > 0 && run.started.elapsed() > Duration::from_secs(u64::from(sampling.max_seconds)) {
            return None;
        }
        let figures: Vec<f64> = trials.iter().filter_map(|t| t.figure).collect();
        if figures.len() < 2 || stats::relative_half_width_pct(&figures).is_some_and(|w| w <= sampling.target_ci_pct) {
            return None;
        }
        let template = trials.iter().max_by_key(|t| t.summary.trial).unwrap();
        let trial = template.summary.trial + 1;
        // With replicas, the one that ran the fewest of the cell's trials takes the next.
        let used: Vec<&str> = trials.iter().map(|t| t.summary.replica.as_str()).collect();
        let replica = crate::replicas::Replicas::least_used(&used).unwrap_or_default();
        let id = format!("{}-t{:05}", run.run.id, run.tasks.len());
        let pending: Vec<f64> = run.tasks.iter().filter(|t| t.summary.status() == TaskStatus::Pending).map(|t| t.order).collect();
        let (lo, hi) = pending.iter().fold((f64::MAX, f64::MIN), |(a, b), &o| (a.min(o), b.max(o)));
        let last = run.tasks.iter().map(|t| t.order).fold(0.0, f64::max);
        let order = if pending.is_empty() { last + 1.0 } else { run.rng.random_range(lo..=hi + 1.0) };
        let entry = Entry {
            summary: TaskSummary {
                id: id.clone(), trial, status: TaskStatus::Pending as i32, failure: String::new(),
                started_at: None, ended_at: None, phase_ms: HashMap::new(), replica, ..template.summary.clone()
            },
            task: Task { id, trial, store_payload: false, ..template.task.clone() },
            depends_on: template.depends_on,
            aa_twin: template.aa_twin,
            order,
            figure: None,
            partner: None,
        };
        tracing::info!(cell, trial, "interval still wide: one more trial");
        run.run.tasks_total += 1;
        let s = entry.summary.clone();
        run.tasks.push(entry);
        Some(s)
    }
}
