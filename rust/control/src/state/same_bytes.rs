//! Same bytes, measured once (Sampling.repeat_same_bytes off; docs/DESIGN.md "Same bytes, measured
//! once"). Once every prepare task of a run has ended, the payloads are known: decode cells of one
//! consumer, dataset, count, codec and mode whose payloads are the same blob would do the same work,
//! so one lead cell measures it and the others are not run. A child of state.rs.
//!
//! The lead is a cell that has already started (with several lanes a decode of an early payload
//! may run while a later prepare does), else the consumer's own payload, else a payload of the
//! consumer's language, else the producer first by id: the row a leaderboard reads (leaderboard.py
//! takes the same) is the measured one. Deliberate A/A twins and duet copies are never collapsed: they are repeats on purpose.
//! Each collapsed cell gets one row (Measurement.same_bytes_as) so its producer → consumer row
//! exists and carries the lead's figures and verification, marked.
use super::*;

/// What two decode cells must share to do byte-identical work.
#[derive(PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Work {
    consumer: String,
    dataset: String,
    count: u32,
    codec: String,
    mode: String,
    payload: String,
    transfer: bool,
    compressions: Vec<String>,
}

impl Control {
    /// Collapses the run's byte-identical decode cells when its last prepare task has ended: their
    /// pending tasks become TASK_STATUS_SAME_BYTES. Returns the changed task indices and one row
    /// per collapsed cell. Nothing happens while a prepare is pending or running, or when the
    /// scenario repeats same bytes.
    pub(super) fn same_bytes(run: &mut ActiveRun, languages: &HashMap<String, String>) -> (Vec<usize>, Vec<(usize, Measurement)>) {
        let repeat = run.run.scenario.as_ref().and_then(|s| s.sampling).is_some_and(|s| s.repeat_same_bytes);
        if repeat || run.tasks.iter().any(|t| t.task.prepare && !is_terminal(t.summary.status())) {
            return (vec![], vec![]);
        }
        // Cells in plan order, with their tasks.
        let mut cells: Vec<(String, Vec<usize>)> = vec![];
        let mut at: HashMap<String, usize> = HashMap::new();
        for (i, t) in run.tasks.iter().enumerate() {
            let s = &t.summary;
            if t.task.prepare || t.aa_twin || !s.duet.is_empty() || s.operation() != Operation::Decode || t.task.payload_blob_id.is_empty() {
                continue;
            }
            let k = *at.entry(s.cell_id.clone()).or_insert_with(|| { cells.push((s.cell_id.clone(), vec![])); cells.len() - 1 });
            cells[k].1.push(i);
        }
        let mut groups: BTreeMap<Work, Vec<usize>> = BTreeMap::new();
        for (k, (_, tasks)) in cells.iter().enumerate() {
            let t = &run.tasks[tasks[0]];
            let work = Work {
                consumer: t.summary.consumer_worker_id.clone(), dataset: t.summary.dataset.clone(), count: t.summary.record_count,
                codec: t.summary.codec.clone(), mode: t.summary.decode_mode.clone(), payload: t.task.payload_blob_id.clone(),
                transfer: t.task.measure_transfer, compressions: t.task.compressions.clone(),
            };
            groups.entry(work).or_default().push(k);
        }
        let pending = |k: usize| cells[k].1.iter().all(|&i| run.tasks[i].summary.status() == TaskStatus::Pending);
        let language = |w: &str| languages.get(w).cloned().unwrap_or_default();
        let producer = |k: usize| run.tasks[cells[k].1[0]].summary.producer_worker_id.clone();
        // (lead cell, the cells it measures for, the consumer's language), decided before anything changes.
        let mut decided: Vec<(usize, Vec<usize>, String)> = vec![];
        for (work, members) in groups.iter().filter(|(_, m)| m.len() > 1) {
            let lead = members.iter().copied().find(|&k| !pending(k))
                .or_else(|| members.iter().copied().find(|&k| producer(k) == work.consumer))
                .or_else(|| members.iter().copied().find(|&k| language(&producer(k)) == language(&work.consumer)))
                .unwrap_or_else(|| *members.iter().min_by_key(|&&k| producer(k)).expect("a group has members"));
            let rest: Vec<usize> = members.iter().copied().filter(|&k| k != lead && pending(k)).collect();
            decided.push((lead, rest, language(&work.consumer)));
        }
        let mut changed = vec![];
        let mut rows = vec![];
        for (lead, rest, consumer_language) in decided {
            let lead_id = cells[lead].0.clone();
            for k in rest {
                for &i in &cells[k].1 {
                    let s = &mut run.tasks[i].summary;
                    s.status = TaskStatus::SameBytes as i32;
                    s.same_bytes_as = lead_id.clone();
                    changed.push(i);
                }
                let first = cells[k].1[0];
                rows.push((first, Measurement {
                    operation: Operation::Decode as i32, language: consumer_language.clone(), same_bytes_as: lead_id.clone(),
                    payload_bytes: run.tasks[first].task.payload_blob_size, ..Default::default()
                }));
            }
        }
        if !changed.is_empty() {
            tracing::info!(run = run.run.id, tasks = changed.len(), cells = rows.len(), "byte-identical payloads: cells measured once");
        }
        (changed, rows)
    }
}
