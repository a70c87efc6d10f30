//! Control's state machine tests: dispatch, lanes, reports, adaptive trials, cancel, followers.
use super::*;
use crate::scenario::plan;
use codecbench_proto::v1::{CodecInfo, Environment, Sampling, Scenario};

/// The attached test worker: its id and the report secret it was given.
#[derive(Clone)]
struct Me { id: String, secret: String }

impl Me {
    /// A report in this worker's name.
    fn report(&self, task: &Task) -> ReportResultRequest {
        ReportResultRequest { worker_id: self.id.clone(), report_secret: self.secret.clone(), task_id: task.id.clone(), ..Default::default() }
    }
}

fn attach_rust(control: &Control) -> (Me, UnboundedReceiver<ToWorker>) {
    attach_rust_on(control, "")
}

/// A rust worker whose environment names `host`.
fn attach_rust_on(control: &Control, host: &str) -> (Me, UnboundedReceiver<ToWorker>) {
    let (info, mut rx) = control.attach(AttachRequest {
        name: "rust".into(),
        environment: Some(Environment { language: "rust".into(), hostname: host.into(), ..Default::default() }),
        codecs: vec![CodecInfo { id: "json".into(), decode_modes: vec!["typed".into()], ..Default::default() }],
        compressions: vec![],
        datasets: codecbench_datasets::dataset_infos(),
    });
    let Ok(ToWorker::Attached { report_secret, .. }) = rx.try_recv() else { panic!("`attached` comes first") };
    assert_eq!(report_secret.len(), 32, "128 bits in hex");
    (Me { id: info.id, secret: report_secret }, rx)
}

/// Starts run "r1" of beers x json x 3 records (encode and decode) under `sampling` on the
/// attached workers.
fn start_beers_json(control: &Control, sampling: Sampling) {
    let scenario = Scenario { datasets: vec!["beers".into()], codecs: vec!["json".into()], counts: vec![3],
        operations: vec![Operation::Encode as i32, Operation::Decode as i32], sampling: Some(sampling), ..Default::default() };
    let (scenario, planned) = plan("r1", &scenario, &control.worker_views()).unwrap();
    let run = Run { id: "r1".into(), tasks_total: planned.len() as u32, scenario: Some(scenario), status: RunStatus::Running as i32,
        created_at: Some(now()), ..Default::default() };
    std::mem::forget(control.start_run(run, "", planned).unwrap());
}

/// A control with one attached rust worker offering json (typed), and a run of `sampling`.
fn setup(dir: &std::path::Path, sampling: Sampling) -> (Control, UnboundedReceiver<ToWorker>, Me, String) {
    let control = Control::new(Store::open(&dir.join("db.sqlite")).unwrap(), BlobStore::open(&dir.join("blobs"), u64::MAX).unwrap());
    let (me, rx) = attach_rust(&control);
    start_beers_json(&control, sampling);
    let payload = control.blobs.put_bytes(b"[]").unwrap();
    (control, rx, me, payload)
}

/// Answers every task with rounds from `ns(cell, trial)` until the run ends; returns its measurements.
fn serve(control: &Control, rx: &mut UnboundedReceiver<ToWorker>, worker: &Me, payload: &str, ns: impl Fn(&str, u32) -> f64) -> Vec<Measurement> {
    while let Ok(msg) = rx.try_recv() {
        let ToWorker::Task(task) = msg else { continue };
        let figure = ns(&task.cell_id, task.trial);
        let measurements = if task.prepare { vec![] } else {
            vec![Measurement { operation: task.operation, round_ns_per_op: vec![figure; 3], verified: true, ..Default::default() }]
        };
        control.report(ReportResultRequest {
            measurements, payload_blob_id: if task.store_payload { payload.into() } else { String::new() }, payload_blob_size: 2,
            ..worker.report(&task)
        }).unwrap();
    }
    control.store.measurements("r1").unwrap()
}

#[test]
fn every_trial_is_identified_and_steady_cells_get_no_extra_trials() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, payload) = setup(dir.path(), Sampling { trials: 3, max_trials: 6, order_seed: 3, ..Default::default() });
    let ms = serve(&control, &mut rx, &worker, &payload, |_, _| 1000.0);
    let sizes = crate::blobs::compressed_sizes(&control.blobs.path(&payload).unwrap()).unwrap();
    // encode + decode + its A/A twin, 3 trials each, nothing added: the interval is 0 wide.
    // The prepare task reports no measurement.
    assert_eq!(ms.len(), 9, "{ms:#?}");
    assert_eq!(control.store.get_run("r1").unwrap().unwrap().status(), RunStatus::Finished);
    for m in &ms {
        assert!(m.cell_id.starts_with(if m.operation() == Operation::Encode { "encode/beers/3/json/" } else { "decode/beers/3/json/typed/" }));
        assert_eq!(m.payload_blob_id, payload, "every trial names the payload it worked on");
        assert_eq!((m.gzip_bytes, m.zstd_bytes), (Some(sizes.gzip), Some(sizes.zstd)), "and its compressed sizes");
    }
    assert_eq!(ms.iter().filter(|m| m.aa_twin).count(), 3);
    assert!(ms.iter().filter(|m| m.aa_twin).all(|m| m.cell_id.ends_with("~aa")));
    let mut trials: Vec<u32> = ms.iter().filter(|m| m.operation() == Operation::Encode).map(|m| m.trial).collect();
    trials.sort();
    assert_eq!(trials, [0, 1, 2]);
}

#[test]
fn a_wide_cell_gets_adaptive_trials_up_to_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, payload) = setup(dir.path(), Sampling { trials: 3, max_trials: 5, target_ci_pct: 3.0, order_seed: 3, ..Default::default() });
    // Encode trials alternate 1000 / 2000 ns: never within +-3 %; decode cells are flat.
    let ms = serve(&control, &mut rx, &worker, &payload, |cell, trial| if cell.starts_with("encode") { 1000.0 * f64::from(1 + trial % 2) } else { 500.0 });
    let encode: Vec<u32> = ms.iter().filter(|m| m.operation() == Operation::Encode).map(|m| m.trial).collect();
    assert_eq!(encode.len(), 5, "trials 3, then adaptive up to maxTrials 5: {encode:?}");
    assert_eq!(ms.iter().filter(|m| m.operation() == Operation::Decode).count(), 6);
    let run = control.store.get_run("r1").unwrap().unwrap();
    assert_eq!((run.tasks_total, run.tasks_done, run.status()), (12, 12, RunStatus::Finished), "prepare + 5 + 3 + 3");
    assert_eq!(control.store.tasks("r1").unwrap().len(), 12, "adaptive trials are stored tasks too");
}

/// The next task sent to the worker (skipping the `attached` message).
fn next_task(rx: &mut UnboundedReceiver<ToWorker>) -> Task {
    loop {
        match rx.try_recv() {
            Ok(ToWorker::Task(t)) => return t,
            Ok(_) => continue,
            Err(e) => panic!("no task sent: {e}"),
        }
    }
}

#[test]
fn a_report_that_cannot_be_stored_is_refused_unchanged_and_stored_when_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, payload) = setup(dir.path(), Sampling { trials: 1, max_trials: 1, order_seed: 3, ..Default::default() });
    let report = |task: &Task| ReportResultRequest {
        measurements: if task.prepare { vec![] } else { vec![Measurement { operation: task.operation, round_ns_per_op: vec![5.0; 3], verified: true, ..Default::default() }] },
        payload_blob_id: if task.store_payload { payload.clone() } else { String::new() }, payload_blob_size: 2,
        ..worker.report(task)
    };
    let prepare = next_task(&mut rx);
    control.report(report(&prepare)).unwrap();
    let trial = next_task(&mut rx);
    // Another process holds SQLite's write lock past control's busy timeout (5 s).
    let other = rusqlite::Connection::open(dir.path().join("db.sqlite")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let refused = control.report(report(&trial)).unwrap_err();
    assert!(matches!(&refused, Error::Unavailable(m) if m.contains("report it again")), "{refused:?}");
    // Nothing moved: the task is still the running one, and no other task was dispatched.
    assert_eq!(control.get_run("r1").unwrap().unwrap().1.iter().find(|t| t.id == trial.id).unwrap().status(), TaskStatus::Running);
    assert!(rx.try_recv().is_err(), "no task dispatched while the report is unstored");
    other.execute_batch("ROLLBACK").unwrap();
    control.report(report(&trial)).unwrap();
    let rows: Vec<Measurement> = control.store.measurements("r1").unwrap().into_iter().filter(|m| m.task_id == trial.id).collect();
    assert_eq!(rows.len(), 1, "stored exactly once: {rows:#?}");
}

#[test]
fn a_failed_task_has_exactly_one_failure_row_with_its_first_message() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, _) = setup(dir.path(), Sampling { trials: 2, max_trials: 2, order_seed: 3, ..Default::default() });
    let prepare = next_task(&mut rx);
    assert!(prepare.prepare);
    // The worker reports a failure and a failure row of its own: one row, not two.
    control.report(ReportResultRequest {
        failure: "encode: boom".into(),
        measurements: vec![Measurement { operation: prepare.operation, failure: "encode: boom".into(), language: "rust".into(), ..Default::default() }],
        ..worker.report(&prepare)
    }).unwrap();
    let tasks = control.store.tasks("r1").unwrap();
    let rows = control.store.measurements("r1").unwrap();
    // The prepare and every decode trial (they need its payload) failed; encode trials go on.
    let failed: Vec<&TaskSummary> = tasks.iter().filter(|t| t.status() == TaskStatus::Failed).collect();
    assert_eq!(failed.len(), 1 + tasks.iter().filter(|t| t.operation() == Operation::Decode).count(), "{tasks:#?}");
    for t in failed {
        let own: Vec<&Measurement> = rows.iter().filter(|m| m.task_id == t.id).collect();
        assert_eq!(own.len(), 1, "{}: {own:#?}", t.id);
        assert_eq!(own[0].failure, t.failure, "{}", t.id);
    }
    assert_eq!(tasks.iter().find(|t| t.id == prepare.id).unwrap().failure, "encode: boom");
    assert!(tasks.iter().filter(|t| t.operation() == Operation::Decode).all(|t| t.failure.contains("encode: boom")), "the cascade's message: {tasks:#?}");
    assert_eq!(rows.iter().find(|m| m.task_id == prepare.id).unwrap().language, "rust");
}

#[test]
fn a_task_ends_once() {
    let dir = tempfile::tempdir().unwrap();
    let (control, _rx, _worker, _) = setup(dir.path(), Sampling { trials: 2, max_trials: 2, order_seed: 3, ..Default::default() });
    let pending = control.store.tasks("r1").unwrap().iter().position(|t| t.status() == TaskStatus::Pending).unwrap();
    // A detach after a cascade (or a late timeout) ends the same task again.
    control.finish_logged(&mut control.lock(), "r1", pending, Err("first".into()), vec![], None);
    control.finish_logged(&mut control.lock(), "r1", pending, Err("second".into()), vec![], None);
    let id = &control.store.tasks("r1").unwrap()[pending].id.clone();
    let rows: Vec<Measurement> = control.store.measurements("r1").unwrap().into_iter().filter(|m| &m.task_id == id).collect();
    assert_eq!(rows.iter().map(|m| m.failure.as_str()).collect::<Vec<_>>(), ["first"]);
    assert_eq!(control.store.tasks("r1").unwrap()[pending].failure, "first");
}

#[test]
fn cancelling_ends_a_running_task_and_refuses_its_late_report() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, _) = setup(dir.path(), Sampling { trials: 2, max_trials: 2, order_seed: 3, ..Default::default() });
    let hung = next_task(&mut rx);
    control.cancel_run("r1").unwrap();
    // The worker is told to stop it at once.
    match rx.try_recv() {
        Ok(ToWorker::Abandon(a)) => {
            assert_eq!(a.task_id, hung.id);
            assert!(a.reason.contains("cancelled"), "{}", a.reason);
        }
        other => panic!("expected an abandon message, got {other:?}"),
    }
    let run = control.store.get_run("r1").unwrap().unwrap();
    assert_eq!(run.status(), RunStatus::Cancelled, "the run does not wait for the hung task");
    let task = control.store.tasks("r1").unwrap().into_iter().find(|t| t.id == hung.id).unwrap();
    assert_eq!(task.status(), TaskStatus::Cancelled, "nothing failed: it was cancelled");
    assert!(task.failure.starts_with("cancelled while running"), "{}", task.failure);
    assert!(control.store.measurements("r1").unwrap().iter().all(|m| m.failure.is_empty()), "no failure row for a cancelled task");
    let late = control.report(worker.report(&hung)).unwrap_err();
    assert!(matches!(late, Error::FailedPrecondition(_)), "{late:?}");
}

#[test]
fn a_report_without_the_workers_secret_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, payload) = setup(dir.path(), Sampling { trials: 1, max_trials: 1, order_seed: 3, ..Default::default() });
    // A second client attaches: it has a secret of its own, and knows the first worker's id.
    let (intruder, _irx) = attach_rust(&control);
    assert_ne!(intruder.secret, worker.secret);
    let prepare = next_task(&mut rx);
    control.report(ReportResultRequest { payload_blob_id: payload, payload_blob_size: 2, ..worker.report(&prepare) }).unwrap();
    let task = next_task(&mut rx);
    assert!(!task.prepare);
    let forged = |secret: &str| ReportResultRequest {
        report_secret: secret.into(),
        measurements: vec![Measurement { operation: task.operation, round_ns_per_op: vec![0.001; 3], verified: true, ..Default::default() }],
        ..worker.report(&task)
    };
    let longer = format!("{}0", worker.secret);
    for secret in ["", intruder.secret.as_str(), &worker.secret[..31], longer.as_str()] {
        let refused = control.report(forged(secret)).unwrap_err();
        assert!(matches!(&refused, Error::PermissionDenied(m) if m.contains("report secret")), "{secret:?}: {refused:?}");
    }
    let unknown = control.report(ReportResultRequest { worker_id: "rust-99".into(), ..intruder.report(&task) }).unwrap_err();
    assert!(matches!(unknown, Error::PermissionDenied(_)), "{unknown:?}");
    let stored = |id: &str| control.store.measurements("r1").unwrap().into_iter().filter(|m| m.task_id == id).count();
    assert_eq!(stored(&task.id), 0, "nothing stored");
    assert_eq!(control.get_run("r1").unwrap().unwrap().1.iter().find(|t| t.id == task.id).unwrap().status(), TaskStatus::Running);
    // The owner's report, with its secret, is stored.
    control.report(forged(&worker.secret.clone())).unwrap();
    assert_eq!(stored(&task.id), 1);
}

/// A follower's events until its stream ends, and the status it ended with, if any.
async fn follow_all(control: Shared, follow: Follow) -> (Vec<RunEvent>, Option<Error>) {
    use futures::StreamExt;
    let mut stream = std::pin::pin!(crate::follow::stream(control, follow));
    let mut events = vec![];
    while let Some(item) = stream.next().await {
        match item {
            Ok(ev) => events.push(ev),
            Err(status) => return (events, Some(status)),
        }
    }
    (events, None)
}

/// Answers `n` tasks (or all there are); returns how many it answered.
fn serve_some(control: &Control, rx: &mut UnboundedReceiver<ToWorker>, worker: &Me, payload: &str, n: usize) -> usize {
    let mut done = 0;
    while done < n {
        let Ok(msg) = rx.try_recv() else { break };
        let ToWorker::Task(task) = msg else { continue };
        let measurements = if task.prepare { vec![] } else {
            vec![Measurement { operation: task.operation, round_ns_per_op: vec![1000.0; 3], verified: true, ..Default::default() }]
        };
        control.report(ReportResultRequest {
            measurements, payload_blob_id: if task.store_payload { payload.into() } else { String::new() }, payload_blob_size: 2,
            ..worker.report(&task)
        }).unwrap();
        done += 1;
    }
    done
}

/// A watcher that joins mid-run gets the stored tasks and measurements (read a page at a time,
/// more than one page here), then live events: every measurement exactly once, and each
/// task's last event its final state. A watcher of the finished run replays the same.
#[tokio::test]
async fn a_watcher_replays_a_big_run_in_pages_and_sees_each_measurement_once() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, payload) = setup(dir.path(), Sampling { trials: 12, max_trials: 12, order_seed: 3, ..Default::default() });
    let control: Shared = Arc::new(control);
    assert_eq!(serve_some(&control, &mut rx, &worker, &payload, 20), 20);
    let follow = control.watch_run("r1").unwrap().unwrap();
    serve_some(&control, &mut rx, &worker, &payload, usize::MAX);
    assert_eq!(control.store.get_run("r1").unwrap().unwrap().status(), RunStatus::Finished);
    let stored = control.store.measurements("r1").unwrap();
    let tasks = control.store.tasks("r1").unwrap();
    let page = crate::follow::PAGE as usize;
    assert!(stored.len() > page && tasks.len() > page, "more than one replay page");
    for (events, end) in [follow_all(control.clone(), follow).await, follow_all(control.clone(), control.watch_run("r1").unwrap().unwrap()).await] {
        assert!(end.is_none(), "{end:?}");
        let mut seen: Vec<(String, i32)> = events.iter().filter_map(|e| match &e.event {
            Some(run_event::Event::Measurement(m)) => Some((m.task_id.clone(), m.operation)),
            _ => None,
        }).collect();
        assert_eq!(seen.len(), stored.len(), "every measurement once");
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), stored.len(), "no measurement twice");
        let mut last: HashMap<String, i32> = HashMap::new();
        for e in &events {
            if let Some(run_event::Event::Task(t)) = &e.event {
                last.insert(t.id.clone(), t.status);
            }
        }
        assert_eq!(last.len(), tasks.len());
        assert!(last.values().all(|&s| s == TaskStatus::Done as i32));
        assert!(matches!(&events[0].event, Some(run_event::Event::Run(_))), "the run comes first");
    }
}

/// A follower that stops reading costs one bounded queue: past it, the run drops the follower;
/// the stream still delivers what was queued, then ends with a status saying how to resume.
#[tokio::test]
async fn a_follower_that_falls_behind_is_dropped_with_a_status_saying_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let control: Shared = Arc::new(Control::new(Store::open(&dir.path().join("db.sqlite")).unwrap(), BlobStore::open(&dir.path().join("blobs"), u64::MAX).unwrap()));
    let (follow, sub) = Follow::live("r9", vec![], None);
    let ev = RunEvent { event: Some(run_event::Event::Run(Run { id: "r9".into(), ..Default::default() })) };
    for _ in 0..crate::follow::QUEUE {
        assert!(sub.offer(&ev));
    }
    assert!(!sub.offer(&ev), "one more than the queue holds: the follower is dropped");
    drop(sub);
    let (events, end) = follow_all(control, follow).await;
    assert_eq!(events.len(), crate::follow::QUEUE, "what was queued is delivered");
    let end = end.expect("a status");
    assert!(matches!(&end, Error::ResourceExhausted(m) if m.contains("WatchRun again to resume")), "{end:?}");
}

/// An encode's failure is stored once: the decode tasks that waited for its payload say so in
/// a bounded excerpt, however long the message.
#[test]
fn dependents_of_a_failed_encode_repeat_only_an_excerpt_of_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let (control, mut rx, worker, _) = setup(dir.path(), Sampling { trials: 2, max_trials: 2, order_seed: 3, ..Default::default() });
    let prepare = next_task(&mut rx);
    assert!(prepare.prepare);
    let long = "x".repeat(3000);
    control.report(ReportResultRequest { failure: long.clone(), ..worker.report(&prepare) }).unwrap();
    let tasks = control.get_run("r1").unwrap().unwrap().1;
    let own = tasks.iter().find(|t| t.id == prepare.id).unwrap();
    assert_eq!(own.failure, long, "the failed task keeps the whole message");
    let dependents: Vec<_> = tasks.iter().filter(|t| t.failure.starts_with("not run")).collect();
    assert!(!dependents.is_empty());
    for t in dependents {
        assert!(t.failure.len() < 400, "{}", t.failure.len());
        assert!(t.failure.ends_with("(the whole message is the encode task's failure)"), "{}", t.failure);
    }
}

#[path = "state_lanes_tests.rs"]
mod lanes;

#[cfg(test)]
#[path = "state_same_bytes_tests.rs"]
mod same_bytes;
