//! Same bytes, measured once (state/same_bytes.rs): decode cells of byte-identical payloads run in
//! one lead cell per consumer; the rest end as TASK_STATUS_SAME_BYTES with a row naming the lead.
use super::*;

/// Two rust workers (producers and consumers), beers x json x 3 records, one lane; every task
/// served until the run ends. Each producer's prepare stores `payload_of(producer)`. Returns the
/// stored tasks and measurements.
fn run_two_producers(sampling: Sampling, payload_of: impl Fn(&str) -> Vec<u8>) -> (Vec<TaskSummary>, Vec<Measurement>, Run) {
    let dir = tempfile::tempdir().unwrap();
    let control = Control::new(Store::open(&dir.path().join("db.sqlite")).unwrap(), BlobStore::open(&dir.path().join("blobs"), u64::MAX).unwrap());
    let (a, mut arx) = attach_rust(&control);
    let (b, mut brx) = attach_rust(&control);
    start_beers_json(&control, sampling);
    loop {
        let mut served = false;
        for (me, rx) in [(&a, &mut arx), (&b, &mut brx)] {
            while let Ok(msg) = rx.try_recv() {
                let ToWorker::Task(task) = msg else { continue };
                served = true;
                let payload = if task.store_payload { control.blobs.put_bytes(&payload_of(&me.id)).unwrap() } else { String::new() };
                let measurements = if task.prepare { vec![] } else {
                    vec![Measurement { operation: task.operation, round_ns_per_op: vec![100.0; 3], verified: true, ..Default::default() }]
                };
                control.report(ReportResultRequest { measurements, payload_blob_id: payload, payload_blob_size: 2, ..me.report(&task) }).unwrap();
            }
        }
        if !served {
            break;
        }
    }
    let run = control.store.get_run("r1").unwrap().unwrap();
    (control.store.tasks("r1").unwrap(), control.store.measurements("r1").unwrap(), run)
}

fn sampling() -> Sampling {
    Sampling { trials: 2, max_trials: 2, order_seed: 5, aa_cells: 1, ..Default::default() }
}

#[test]
fn byte_identical_payloads_are_decoded_once_per_consumer_in_the_consumers_own_cell() {
    let (tasks, ms, run) = run_two_producers(sampling(), |_| b"[1]".to_vec());
    assert_eq!(run.status(), RunStatus::Finished);
    let same: Vec<&TaskSummary> = tasks.iter().filter(|t| t.status() == TaskStatus::SameBytes).collect();
    // 2 consumers x 1 other producer's cell x 2 trials.
    assert_eq!(same.len(), 4, "{same:#?}");
    assert_eq!(run.tasks_same_bytes, 4);
    assert_eq!(run.tasks_done + run.tasks_failed + run.tasks_same_bytes, run.tasks_total, "every task ended");
    for t in &same {
        assert_ne!(t.producer_worker_id, t.consumer_worker_id, "the consumer's own payload is the lead");
        let lead = format!("decode/beers/3/json/typed/{}>{}", t.consumer_worker_id, t.consumer_worker_id);
        assert_eq!(t.same_bytes_as, lead);
        assert!(t.started_at.is_none(), "never given to a worker");
        assert!(ms.iter().all(|m| m.task_id != t.id || !m.same_bytes_as.is_empty()), "no timed row of a task that did not run");
    }
    // One row per collapsed cell, naming its lead; no rounds, not claimed verified.
    let rows: Vec<&Measurement> = ms.iter().filter(|m| !m.same_bytes_as.is_empty()).collect();
    assert_eq!(rows.len(), 2);
    for m in rows {
        assert_eq!(m.operation(), Operation::Decode);
        assert!(m.round_ns_per_op.is_empty() && !m.verified && m.failure.is_empty());
        assert_eq!(m.same_bytes_as, format!("decode/beers/3/json/typed/{}>{}", m.consumer_worker_id, m.consumer_worker_id));
        assert!(m.cell_id.starts_with("decode/") && !m.payload_blob_id.is_empty());
    }
    // The A/A twins (one per consumer) still run: repeats on purpose.
    assert!(tasks.iter().filter(|t| t.cell_id.ends_with("~aa")).all(|t| t.status() == TaskStatus::Done));
}

#[test]
fn different_payloads_and_repeat_same_bytes_run_every_cell() {
    let (tasks, ms, run) = run_two_producers(sampling(), |producer| producer.as_bytes().to_vec());
    assert_eq!(run.tasks_same_bytes, 0);
    assert!(tasks.iter().all(|t| t.status() == TaskStatus::Done));
    assert!(ms.iter().all(|m| m.same_bytes_as.is_empty()));
    let (tasks, _, run) = run_two_producers(Sampling { repeat_same_bytes: true, ..sampling() }, |_| b"[1]".to_vec());
    assert_eq!(run.tasks_same_bytes, 0, "the scenario asked for every producer's cell");
    assert!(tasks.iter().all(|t| t.status() == TaskStatus::Done));
}
