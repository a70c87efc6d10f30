//! Control's state machine tests across lanes, hosts and duets: tasks at once, each on its lane's
//! CPUs, replicas' trials spread over their hosts, a duet's two trials started together.
use super::*;

/// Two lanes: two workers' tasks run at once, each given its lane's CPUs; a worker never gets
/// a second task while its first runs, and a freed lane goes to the next ready task.
type Attached = (Me, UnboundedReceiver<ToWorker>);

/// A control with two lanes (CPUs 0 and 1), two attached rust workers and a started run of beers x
/// json x 3 records under `sampling`; and how many of its tasks are duet tasks.
fn two_lanes(dir: &std::path::Path, sampling: Sampling) -> (Control, Attached, Attached, usize) {
    let control = Control::with_lanes(Store::open(&dir.join("db.sqlite")).unwrap(), BlobStore::open(&dir.join("blobs"), u64::MAX).unwrap(), vec![vec![0], vec![1]]);
    let (a, b) = (attach_rust(&control), attach_rust(&control));
    let scenario = Scenario { datasets: vec!["beers".into()], codecs: vec!["json".into()], counts: vec![3],
        operations: vec![Operation::Encode as i32, Operation::Decode as i32], sampling: Some(sampling), ..Default::default() };
    let (scenario, planned) = plan("r1", &scenario, &control.worker_views()).unwrap();
    let duets = planned.iter().filter(|p| !p.summary.duet.is_empty()).count();
    let run = Run { id: "r1".into(), tasks_total: planned.len() as u32, scenario: Some(scenario), status: RunStatus::Running as i32,
        created_at: Some(now()), ..Default::default() };
    std::mem::forget(control.start_run(run, "", planned).unwrap());
    (control, a, b, duets)
}

#[test]
fn two_lanes_run_two_workers_at_once_each_on_its_own_cpus() {
    let dir = tempfile::tempdir().unwrap();
    let (control, (a, mut arx), (b, mut brx), _) = two_lanes(dir.path(), Sampling { trials: 2, max_trials: 2, order_seed: 3, ..Default::default() });
    let payload = control.blobs.put_bytes(b"[]").unwrap();
    let (ta, tb) = (next_task(&mut arx), next_task(&mut brx));
    assert!(arx.try_recv().is_err() && brx.try_recv().is_err(), "one task per worker at a time");
    let mut cpus = [ta.cpus.clone(), tb.cpus.clone()];
    cpus.sort();
    assert_eq!(cpus, [vec![0], vec![1]], "each running task has its own lane's CPUs");
    let tasks = control.get_run("r1").unwrap().unwrap().1;
    let lane = |id: &str| tasks.iter().find(|t| t.id == id).unwrap().lane;
    assert_ne!(lane(&ta.id), lane(&tb.id));
    assert_eq!(control.get_run("r1").unwrap().unwrap().0.lanes, 2);
    // a's task ends (with what its trial process saw of its CPUs): a gets the next one, in the freed lane.
    let freed = ta.cpus.clone();
    let report = |me: &Me, t: &Task| ReportResultRequest {
        payload_blob_id: if t.store_payload { payload.clone() } else { String::new() }, payload_blob_size: 2, trial_cpus: "0".into(),
        measurements: if t.prepare { vec![] } else { vec![Measurement { operation: t.operation, round_ns_per_op: vec![1.0; 3], verified: true, ..Default::default() }] },
        ..me.report(t)
    };
    control.report(report(&a, &ta)).unwrap();
    assert_eq!(control.store.tasks("r1").unwrap().iter().find(|t| t.id == ta.id).unwrap().trial_cpus, "0");
    let next = next_task(&mut arx);
    assert_eq!(next.cpus, freed);
    assert!(brx.try_recv().is_err());
    // Served to the end, the run finishes with every task done.
    let mut current = [Some(next), Some(tb)];
    let taken = |rx: &mut UnboundedReceiver<ToWorker>| match rx.try_recv() {
        Ok(ToWorker::Task(t)) => Some(t),
        _ => None,
    };
    while current.iter().any(Option::is_some) {
        for (k, me) in [&a, &b].into_iter().enumerate() {
            if let Some(t) = current[k].take() {
                control.report(report(me, &t)).unwrap();
            }
        }
        current = [taken(&mut arx), taken(&mut brx)];
    }
    let (run, tasks) = control.get_run("r1").unwrap().unwrap();
    assert_eq!(run.status(), RunStatus::Finished, "{tasks:#?}");
    // Both workers store the same payload: each consumer decodes it once (same_bytes.rs).
    assert!(tasks.iter().all(|t| matches!(t.status(), TaskStatus::Done | TaskStatus::SameBytes)), "{tasks:#?}");
}

/// Replicas on two hosts, one lane each (`--lanes-per-host`): every cell is planned once, named by
/// the first worker; its trials are split evenly between the two; prepare tasks stay with the
/// first; the hosts run tasks at the same time; the run finishes with both workers' measurements.
#[test]
fn replicas_on_two_hosts_share_each_cells_trials_and_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let control = Control::new(Store::open(&dir.path().join("db.sqlite")).unwrap(), BlobStore::open(&dir.path().join("blobs"), u64::MAX).unwrap())
        .with_lanes_per_host(true);
    let ((a, mut arx), (b, mut brx)) = (attach_rust_on(&control, "host-a"), attach_rust_on(&control, "host-b"));
    let scenario = Scenario { datasets: vec!["beers".into(), "dummy".into(), "numeric".into(), "owners".into()], codecs: vec!["json".into()], counts: vec![3],
        operations: vec![Operation::Encode as i32, Operation::Decode as i32],
        sampling: Some(Sampling { trials: 4, max_trials: 4, order_seed: 7, replicas: true, ..Default::default() }), ..Default::default() };
    let (scenario, planned) = plan("r1", &scenario, &control.worker_views()).unwrap();
    assert!(planned.iter().all(|p| !p.summary.cell_id.contains(&b.id)), "cells are named by the first replica only");
    for p in &planned {
        if p.summary.prepare {
            assert_eq!(p.summary.replica, "", "a prepare task runs on the cell's own worker");
        } else {
            let on = |w: &str| planned.iter().filter(|q| q.summary.cell_id == p.summary.cell_id && !q.summary.prepare && q.summary.replica == w).count();
            assert_eq!((on(&a.id), on(&b.id)), (2, 2), "cell {}: two trials on each replica", p.summary.cell_id);
        }
    }
    // Every pass splits each operation's cells evenly over the replicas (not pass = replica).
    for op in [Operation::Encode, Operation::Decode] {
        for k in 0..4 {
            let pass: Vec<&str> = planned.iter().filter(|p| !p.summary.prepare && p.summary.trial == k && p.summary.operation() == op)
                .map(|p| p.summary.replica.as_str()).collect();
            let on_b = pass.iter().filter(|w| **w == b.id).count();
            assert!(pass.len() >= 2 && on_b * 2 >= pass.len() - 1 && on_b * 2 <= pass.len() + 1, "{op:?} pass {k}: {pass:?}");
        }
    }
    let run = Run { id: "r1".into(), tasks_total: planned.len() as u32, scenario: Some(scenario), status: RunStatus::Running as i32,
        created_at: Some(now()), ..Default::default() };
    std::mem::forget(control.start_run(run, "", planned).unwrap());
    let payload = control.blobs.put_bytes(b"[]").unwrap();
    let report = |me: &Me, t: &Task| ReportResultRequest {
        payload_blob_id: if t.store_payload { payload.clone() } else { String::new() }, payload_blob_size: 2,
        measurements: if t.prepare { vec![] } else { vec![Measurement { operation: t.operation, round_ns_per_op: vec![1.0; 3], verified: true, ..Default::default() }] },
        ..me.report(t)
    };
    let taken = |rx: &mut UnboundedReceiver<ToWorker>| match rx.try_recv() {
        Ok(ToWorker::Task(t)) => Some(t),
        _ => None,
    };
    let (mut current, mut together) = ([taken(&mut arx), taken(&mut brx)], 0);
    while current.iter().any(Option::is_some) {
        together += usize::from(current.iter().all(Option::is_some));
        for (k, me) in [&a, &b].into_iter().enumerate() {
            if let Some(t) = current[k].take() {
                control.report(report(me, &t)).unwrap();
            }
        }
        current = [taken(&mut arx), taken(&mut brx)];
    }
    assert!(together > 0, "the two hosts never ran tasks at the same time");
    assert_eq!(control.get_run("r1").unwrap().unwrap().0.lanes, 2, "a lane on each of two hosts");
    let (run, tasks) = control.get_run("r1").unwrap().unwrap();
    assert_eq!(run.status(), RunStatus::Finished, "{tasks:#?}");
    // Both workers store the same payload: each consumer decodes it once (same_bytes.rs).
    assert!(tasks.iter().all(|t| matches!(t.status(), TaskStatus::Done | TaskStatus::SameBytes)), "{tasks:#?}");
    let by = |w: &str| control.store.measurements("r1").unwrap().iter().filter(|m| m.worker_id == w).count();
    assert!(by(&a.id) > 0 && by(&a.id) == by(&b.id), "both replicas measured as many trials: {} and {}", by(&a.id), by(&b.id));
    assert_eq!(control.store.tasks("r1").unwrap().iter().filter(|t| t.replica == b.id).count(), by(&b.id), "the replica is stored");
}

/// One machine (no lanes per host): two workers on different hosts still share the one lane.
#[test]
fn without_lanes_per_host_two_hosts_share_the_lane() {
    let dir = tempfile::tempdir().unwrap();
    let control = Control::new(Store::open(&dir.path().join("db.sqlite")).unwrap(), BlobStore::open(&dir.path().join("blobs"), u64::MAX).unwrap());
    let (_a, _b) = (attach_rust_on(&control, "host-a"), attach_rust_on(&control, "host-b"));
    let scenario = Scenario { datasets: vec!["beers".into()], codecs: vec!["json".into()], counts: vec![3],
        operations: vec![Operation::Encode as i32, Operation::Decode as i32],
        sampling: Some(Sampling { trials: 2, max_trials: 2, order_seed: 7, replicas: true, ..Default::default() }), ..Default::default() };
    let (scenario, planned) = plan("r1", &scenario, &control.worker_views()).unwrap();
    let run = Run { id: "r1".into(), tasks_total: planned.len() as u32, scenario: Some(scenario), status: RunStatus::Running as i32,
        created_at: Some(now()), ..Default::default() };
    std::mem::forget(control.start_run(run, "", planned).unwrap());
    let tasks = control.get_run("r1").unwrap().unwrap().1;
    assert_eq!(tasks.iter().filter(|t| t.status() == TaskStatus::Running).count(), 1, "one task at a time on one machine");
}

#[test]
fn a_duets_two_trials_start_together_on_two_workers_and_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let (control, (a, mut arx), (b, mut brx), duet_tasks) = two_lanes(dir.path(), Sampling { trials: 3, max_trials: 3, order_seed: 5, duets: true, ..Default::default() });
    assert_eq!(duet_tasks, 2 * 2 * 3, "encode and decode A/A duets, two sides, three trials");
    let payload = control.blobs.put_bytes(b"[]").unwrap();
    let taken = |rx: &mut UnboundedReceiver<ToWorker>| match rx.try_recv() {
        Ok(ToWorker::Task(t)) => Some(t),
        _ => None,
    };
    let report = |me: &Me, t: &Task| ReportResultRequest {
        payload_blob_id: if t.store_payload { payload.clone() } else { String::new() }, payload_blob_size: 2,
        measurements: if t.prepare { vec![] } else { vec![Measurement { operation: t.operation, round_ns_per_op: vec![1.0; 3], verified: true, ..Default::default() }] },
        ..me.report(t)
    };
    let duet_of = |t: &Task| control.store.tasks("r1").unwrap().into_iter().find(|s| s.id == t.id).unwrap();
    let (mut current, mut paired) = ([taken(&mut arx), taken(&mut brx)], 0);
    while current.iter().any(Option::is_some) {
        let summaries: Vec<Option<TaskSummary>> = current.iter().map(|t| t.as_ref().map(duet_of)).collect();
        for s in summaries.iter().flatten().filter(|s| !s.duet.is_empty()) {
            // Its partner was given at the same moment, to the other worker, in the other lane.
            let other = summaries.iter().flatten().find(|o| o.id != s.id).unwrap_or_else(|| panic!("{} started alone", s.cell_id));
            assert_eq!((other.duet.as_str(), other.trial), (s.duet.as_str(), s.trial));
            assert_ne!(other.lane, s.lane);
            paired += 1;
        }
        // Lane by lane: one worker reports first, and the other's duet partner must not be
        // overtaken by a solo task in the freed lane.
        for (k, me) in [&a, &b].into_iter().enumerate() {
            if let Some(t) = current[k].take() {
                control.report(report(me, &t)).unwrap();
            }
        }
        current = [taken(&mut arx), taken(&mut brx)];
    }
    assert_eq!(paired, duet_tasks);
    let (run, tasks) = control.get_run("r1").unwrap().unwrap();
    assert_eq!(run.status(), RunStatus::Finished);
    // Both workers store the same payload: each consumer decodes it once (same_bytes.rs).
    assert!(tasks.iter().all(|t| matches!(t.status(), TaskStatus::Done | TaskStatus::SameBytes)), "{tasks:#?}");
}
