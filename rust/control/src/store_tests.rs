//! The store's tests: what survives a reopen, and what a restart closes.
use super::*;
use codecbench_proto::v1::{RunStatus, TaskStatus};

#[test]
fn runs_and_measurements_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let run = Run { id: "r1".into(), name: "n".into(), status: RunStatus::Running as i32, tasks_total: 1,
        created_at: Some(std::time::SystemTime::now().into()), ..Default::default() };
    let task = TaskSummary { id: "r1-t0".into(), status: TaskStatus::Running as i32, ..Default::default() };
    {
        let s = Store::open(&path).unwrap();
        s.insert_run(&run, "x.yaml", &[task], &[WorkerInfo { id: "rust-1".into(), ..Default::default() }]).unwrap();
        let m = Measurement { run_id: "r1".into(), task_id: "r1-t0".into(), round_ns_per_op: vec![3.0, 1.0, 2.0], verified: true,
            gzip_bytes: Some(22), zstd_bytes: Some(11),
            recorded_at: Some(std::time::SystemTime::now().into()), ..Default::default() };
        s.commit(&Batch { measurements: vec![m.clone()], ..Default::default() }).unwrap();
    }
    let s = Store::open(&path).unwrap();
    let m = &s.measurements("r1").unwrap()[0];
    assert_eq!(m.round_ns_per_op, vec![3.0, 1.0, 2.0]);
    assert_eq!((m.gzip_bytes, m.zstd_bytes), (Some(22), Some(11)));
    let gzip: Option<i64> = s.db().query_row("SELECT gzip_bytes FROM measurements", [], |r| r.get(0)).unwrap();
    assert_eq!(gzip, Some(22), "the column sqlite3 users query holds it too");
    assert_eq!(s.close_interrupted_runs().unwrap(), 1);
    let back = s.get_run("r1").unwrap().unwrap();
    assert_eq!(back.status(), RunStatus::Failed);
    assert_eq!(back.tasks_failed, 1);
    assert_eq!(s.tasks("r1").unwrap()[0].status(), TaskStatus::Failed);
    assert_eq!(s.run_workers("r1").unwrap()[0].id, "rust-1");
}

#[test]
fn tasks_closed_by_a_restart_get_exactly_one_failure_row_each() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let run = Run { id: "r1".into(), status: RunStatus::Running as i32, tasks_total: 3,
        created_at: Some(std::time::SystemTime::now().into()), ..Default::default() };
    let task = |i: usize, status: TaskStatus, op: Operation| TaskSummary {
        id: format!("r1-t{i}"), status: status as i32, operation: op as i32, producer_worker_id: "rust-1".into(),
        consumer_worker_id: "java-1".into(), dataset: "dummy".into(), codec: "json".into(), ..Default::default() };
    let tasks = [task(0, TaskStatus::Done, Operation::Encode), task(1, TaskStatus::Running, Operation::Encode),
        task(2, TaskStatus::Pending, Operation::Decode)];
    s.insert_run(&run, "x.yaml", &tasks, &[]).unwrap();
    s.close_interrupted_runs().unwrap();
    let rows = s.measurements("r1").unwrap();
    let failed: Vec<_> = s.tasks("r1").unwrap().into_iter().filter(|t| t.status() == TaskStatus::Failed).collect();
    assert_eq!(failed.len(), 2);
    for t in &failed {
        assert_eq!(t.failure, RESTARTED);
        let own: Vec<_> = rows.iter().filter(|m| m.task_id == t.id).collect();
        assert_eq!(own.len(), 1, "{}: {rows:?}", t.id);
        assert_eq!((own[0].failure.as_str(), own[0].run_id.as_str(), own[0].operation), (RESTARTED, "r1", t.operation));
    }
    assert_eq!(rows.iter().find(|m| m.task_id == "r1-t1").unwrap().worker_id, "rust-1", "the encoder's producer");
    assert_eq!(rows.iter().find(|m| m.task_id == "r1-t2").unwrap().worker_id, "java-1", "the decoder's consumer");
    // A second restart finds nothing left to close and adds no row.
    s.close_interrupted_runs().unwrap();
    assert_eq!(s.measurements("r1").unwrap().len(), 2);
    assert_eq!(s.get_run("r1").unwrap().unwrap().tasks_failed, 2);
}
