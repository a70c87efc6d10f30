//! Embedded SQLite: runs, tasks and measurements, each committed when it happens, readable after a
//! restart. Readable columns for people with `sqlite3`, plus the exact protobuf of each measurement
//! and scenario so the API returns what was reported, byte for byte.
use anyhow::{Context, Result};
use codecbench_proto::v1::{ListWorkersResponse, Measurement, Operation, Run, RunStatus, Scenario, TaskStatus, TaskSummary, WorkerInfo};
use prost::Message;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::Mutex;

/// The rows one task's end writes (Store::commit).
#[derive(Default)]
pub struct Batch {
    pub measurements: Vec<Measurement>,
    pub tasks: Vec<TaskSummary>,
    /// Adaptive trials added: (run id, seq, task).
    pub new_tasks: Vec<(String, usize, TaskSummary)>,
    pub runs: Vec<Run>,
}

pub struct Store {
    db: Mutex<Connection>,
}

/// The failure of a task that was pending or running when control stopped (its row and its status).
pub const RESTARTED: &str = "control restarted during the run";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, finished_at TEXT,
  tasks_total INTEGER NOT NULL, tasks_done INTEGER NOT NULL DEFAULT 0,
  tasks_failed INTEGER NOT NULL DEFAULT 0, scenario BLOB NOT NULL, workers BLOB);
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
  operation TEXT NOT NULL, dataset TEXT NOT NULL, codec TEXT NOT NULL, decode_mode TEXT NOT NULL,
  record_count INTEGER NOT NULL, producer_worker_id TEXT NOT NULL, consumer_worker_id TEXT NOT NULL,
  status TEXT NOT NULL, failure TEXT NOT NULL DEFAULT '', cell_id TEXT NOT NULL DEFAULT '',
  trial INTEGER NOT NULL DEFAULT 0, prepare INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS tasks_run ON tasks(run_id, seq);
CREATE TABLE IF NOT EXISTS measurements (
  id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL REFERENCES runs(id),
  task_id TEXT NOT NULL, dataset TEXT NOT NULL, codec TEXT NOT NULL, decode_mode TEXT NOT NULL,
  record_count INTEGER NOT NULL, producer_worker_id TEXT NOT NULL, consumer_worker_id TEXT NOT NULL,
  worker_id TEXT NOT NULL, language TEXT NOT NULL, operation TEXT NOT NULL,
  payload_bytes INTEGER NOT NULL, median_ns_per_op REAL, round_ns_per_op TEXT NOT NULL,
  alloc_bytes_per_op REAL, verified INTEGER NOT NULL, failure TEXT NOT NULL,
  recorded_at TEXT NOT NULL, proto BLOB NOT NULL, cell_id TEXT NOT NULL DEFAULT '',
  trial INTEGER NOT NULL DEFAULT 0, steady INTEGER NOT NULL DEFAULT 0, payload_blob_id TEXT NOT NULL DEFAULT '',
  gzip_bytes INTEGER, zstd_bytes INTEGER);
CREATE INDEX IF NOT EXISTS measurements_run ON measurements(run_id, id);
";

/// Columns added since the first schema: a database written by an older control gains them.
const ADDED_COLUMNS: &[(&str, &str, &str)] = &[
    ("runs", "workers", "BLOB"),
    ("runs", "control_rss_start", "INTEGER NOT NULL DEFAULT 0"),
    ("runs", "control_peak_rss", "INTEGER NOT NULL DEFAULT 0"),
    // Run.refusals, as a Run holding only them (protobuf).
    ("runs", "refusals", "BLOB"),
    ("tasks", "cell_id", "TEXT NOT NULL DEFAULT ''"),
    ("tasks", "trial", "INTEGER NOT NULL DEFAULT 0"),
    ("tasks", "prepare", "INTEGER NOT NULL DEFAULT 0"),
    ("tasks", "started_at", "TEXT"),
    ("tasks", "ended_at", "TEXT"),
    // TaskSummary.phase_ms as a JSON object (ms by phase).
    ("tasks", "phase_ms", "TEXT"),
    // TaskSummary.lane and .trial_cpus; Run.lanes (0: a run from before lanes, one at a time).
    ("tasks", "lane", "INTEGER NOT NULL DEFAULT 0"),
    ("tasks", "trial_cpus", "TEXT NOT NULL DEFAULT ''"),
    ("runs", "lanes", "INTEGER NOT NULL DEFAULT 0"),
    // TaskSummary.duet (Sampling.duets; '' for ordinary tasks).
    ("tasks", "duet", "TEXT NOT NULL DEFAULT ''"),
    // TaskSummary.replica (Sampling.replicas; '' when the cell's own worker runs it).
    ("tasks", "replica", "TEXT NOT NULL DEFAULT ''"),
    ("measurements", "cell_id", "TEXT NOT NULL DEFAULT ''"),
    ("measurements", "trial", "INTEGER NOT NULL DEFAULT 0"),
    ("measurements", "steady", "INTEGER NOT NULL DEFAULT 0"),
    ("measurements", "payload_blob_id", "TEXT NOT NULL DEFAULT ''"),
    ("measurements", "gzip_bytes", "INTEGER"),
    ("measurements", "zstd_bytes", "INTEGER"),
];

pub fn status_name(s: RunStatus) -> &'static str {
    s.as_str_name().trim_start_matches("RUN_STATUS_")
}

pub fn task_status_name(s: TaskStatus) -> &'static str {
    s.as_str_name().trim_start_matches("TASK_STATUS_")
}

pub fn operation_name(op: Operation) -> String {
    op.as_str_name().trim_start_matches("OPERATION_").to_lowercase()
}

fn ts(t: &Option<prost_types::Timestamp>) -> Option<String> {
    t.as_ref().map(|t| {
        let st = std::time::UNIX_EPOCH + std::time::Duration::new(t.seconds.max(0) as u64, t.nanos.max(0) as u32);
        humantime::format_rfc3339_micros(st).to_string()
    })
}

fn parse_ts(s: Option<String>) -> Option<prost_types::Timestamp> {
    let st = humantime::parse_rfc3339(&s?).ok()?;
    Some(prost_types::Timestamp::from(st))
}

impl Store {
    pub fn open(path: &Path) -> Result<Self> {
        let db = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
        // WAL: readers (sqlite3, the harness) never block the writer; NORMAL is durable across a
        // process crash, which is what "a reported result is never lost" asks of control.
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.execute_batch(SCHEMA).context("creating the schema")?;
        for (table, column, decl) in ADDED_COLUMNS {
            let has: bool = db.query_row(
                &format!("SELECT COUNT(*) FROM pragma_table_info('{table}') WHERE name = ?1"), [column], |r| r.get::<_, i64>(0),
            )? > 0;
            if !has {
                db.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {decl}")).with_context(|| format!("adding {table}.{column}"))?;
            }
        }
        Ok(Store { db: Mutex::new(db) })
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs left RUNNING by a control that stopped: they can't go on, so they are closed as FAILED
    /// with their unfinished tasks; their measurements stay. Each task closed here gets its one
    /// failure row (DESIGN.md: exactly one per failed task), in the same transaction as its status.
    pub fn close_interrupted_runs(&self) -> Result<usize> {
        let mut db = self.db();
        let tx = db.transaction()?;
        let unfinished: Vec<Measurement> = {
            let mut stmt = tx.prepare(
                "SELECT run_id, id, operation, dataset, codec, decode_mode, record_count, producer_worker_id,
                 consumer_worker_id, cell_id, trial FROM tasks WHERE status IN ('PENDING', 'RUNNING') ORDER BY run_id, seq")?;
            let rows = stmt.query_map([], |row| {
                let op: String = row.get(2)?;
                let operation = Operation::from_str_name(&format!("OPERATION_{}", op.to_uppercase())).unwrap_or_default();
                let (producer, consumer): (String, String) = (row.get(7)?, row.get(8)?);
                Ok(Measurement {
                    run_id: row.get(0)?,
                    task_id: row.get(1)?,
                    operation: operation as i32,
                    dataset: row.get(3)?,
                    codec: row.get(4)?,
                    decode_mode: row.get(5)?,
                    record_count: row.get(6)?,
                    // The worker that runs it, as state.rs names it: the producer encodes.
                    worker_id: if operation == Operation::Encode { producer.clone() } else { consumer.clone() },
                    producer_worker_id: producer,
                    consumer_worker_id: consumer,
                    cell_id: row.get(9)?,
                    trial: row.get(10)?,
                    failure: RESTARTED.into(),
                    recorded_at: Some(std::time::SystemTime::now().into()),
                    ..Default::default()
                })
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for m in &unfinished {
            Self::insert_measurement_in(&tx, m)?;
        }
        let n = tx.execute(
            "UPDATE tasks SET status = 'FAILED', failure = ?1 WHERE status IN ('PENDING', 'RUNNING')",
            [RESTARTED],
        )?;
        let runs = tx.execute(
            "UPDATE runs SET status = 'FAILED', message = 'control stopped before the run ended',
             tasks_failed = (SELECT COUNT(*) FROM tasks t WHERE t.run_id = runs.id AND t.status = 'FAILED'),
             finished_at = COALESCE(finished_at, strftime('%Y-%m-%dT%H:%M:%fZ','now'))
             WHERE status = 'RUNNING'",
            [],
        )?;
        tx.commit()?;
        if n > 0 || runs > 0 {
            tracing::warn!("closed {runs} interrupted run(s) and {n} unfinished task(s), each with its failure row");
        }
        Ok(runs)
    }

    /// Stores a new run with its tasks and the workers attached when it started.
    pub fn insert_run(&self, run: &Run, source: &str, tasks: &[TaskSummary], workers: &[WorkerInfo]) -> Result<()> {
        let mut db = self.db();
        let tx = db.transaction()?;
        tx.execute(
            "INSERT INTO runs (id, name, source, status, message, created_at, tasks_total, scenario, workers, control_rss_start, control_peak_rss, refusals, lanes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![run.id, run.name, source, status_name(run.status()), run.message, ts(&run.created_at), run.tasks_total,
                run.scenario.clone().unwrap_or_default().encode_to_vec(),
                ListWorkersResponse { workers: workers.to_vec() }.encode_to_vec(), run.control_rss_start_bytes as i64,
                run.control_peak_rss_bytes as i64, Run { refusals: run.refusals.clone(), ..Default::default() }.encode_to_vec(), run.lanes],
        )?;
        for (seq, t) in tasks.iter().enumerate() {
            Self::insert_task_in(&tx, &run.id, seq, t)?;
        }
        tx.commit()?;
        Ok(())
    }

    fn insert_task_in(db: &Connection, run_id: &str, seq: usize, t: &TaskSummary) -> Result<()> {
        db.execute(
            "INSERT INTO tasks (id, run_id, seq, operation, dataset, codec, decode_mode, record_count,
             producer_worker_id, consumer_worker_id, status, failure, cell_id, trial, prepare, duet, replica)
             VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
            params![t.id, run_id, seq, operation_name(t.operation()), t.dataset, t.codec, t.decode_mode, t.record_count,
                t.producer_worker_id, t.consumer_worker_id, task_status_name(t.status()), t.failure, t.cell_id, t.trial, t.prepare, t.duet,
                t.replica],
        )?;
        Ok(())
    }

    /// The workers attached when the run started.
    pub fn run_workers(&self, run_id: &str) -> Result<Vec<WorkerInfo>> {
        let blob: Option<Option<Vec<u8>>> =
            self.db().query_row("SELECT workers FROM runs WHERE id = ?1", [run_id], |r| r.get(0)).optional()?;
        Ok(match blob.flatten() {
            Some(b) => ListWorkersResponse::decode(b.as_slice())?.workers,
            None => vec![],
        })
    }

    /// Everything one task's end changes, written in one transaction: all of it is stored or none
    /// of it is (then the caller keeps its state as it was and says so).
    pub fn commit(&self, batch: &Batch) -> Result<()> {
        let mut db = self.db();
        let tx = db.transaction()?;
        for m in &batch.measurements {
            Self::insert_measurement_in(&tx, m)?;
        }
        for t in &batch.tasks {
            Self::update_task_in(&tx, t)?;
        }
        for (run_id, seq, t) in &batch.new_tasks {
            Self::insert_task_in(&tx, run_id, *seq, t)?;
            tx.execute("UPDATE runs SET tasks_total = tasks_total + 1 WHERE id = ?1", [run_id])?;
        }
        for run in &batch.runs {
            Self::update_run_in(&tx, run)?;
        }
        tx.commit()?;
        Ok(())
    }

    pub fn update_run(&self, run: &Run) -> Result<()> {
        Self::update_run_in(&self.db(), run)
    }

    fn update_run_in(db: &Connection, run: &Run) -> Result<()> {
        db.execute(
            "UPDATE runs SET status = ?2, message = ?3, finished_at = ?4, tasks_done = ?5, tasks_failed = ?6, control_peak_rss = ?7 WHERE id = ?1",
            params![run.id, status_name(run.status()), run.message, ts(&run.finished_at), run.tasks_done, run.tasks_failed,
                run.control_peak_rss_bytes as i64],
        )?;
        Ok(())
    }

    pub fn update_task(&self, t: &TaskSummary) -> Result<()> {
        Self::update_task_in(&self.db(), t)
    }

    fn update_task_in(db: &Connection, t: &TaskSummary) -> Result<()> {
        db.execute(
            "UPDATE tasks SET status = ?2, failure = ?3, started_at = ?4, ended_at = ?5, phase_ms = ?6, lane = ?7, trial_cpus = ?8 WHERE id = ?1",
            params![t.id, task_status_name(t.status()), t.failure, ts(&t.started_at), ts(&t.ended_at),
                (!t.phase_ms.is_empty()).then(|| serde_json::to_string(&t.phase_ms)).transpose()?, t.lane, t.trial_cpus],
        )?;
        Ok(())
    }

    fn insert_measurement_in(db: &Connection, m: &Measurement) -> Result<()> {
        db.execute(
            "INSERT INTO measurements (run_id, task_id, dataset, codec, decode_mode, record_count, producer_worker_id,
             consumer_worker_id, worker_id, language, operation, payload_bytes, median_ns_per_op, round_ns_per_op,
             alloc_bytes_per_op, verified, failure, recorded_at, proto, cell_id, trial, steady, payload_blob_id,
             gzip_bytes, zstd_bytes)
             VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25)",
            params![m.run_id, m.task_id, m.dataset, m.codec, m.decode_mode, m.record_count, m.producer_worker_id,
                m.consumer_worker_id, m.worker_id, m.language, operation_name(m.operation()), m.payload_bytes,
                crate::stats::median(&m.round_ns_per_op), serde_json::to_string(&m.round_ns_per_op)?, m.alloc_bytes_per_op,
                m.verified, m.failure, ts(&m.recorded_at), m.encode_to_vec(), m.cell_id, m.trial, m.steady, m.payload_blob_id,
                m.gzip_bytes, m.zstd_bytes],
        )?;
        Ok(())
    }

    fn run_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
        let status: String = row.get("status")?;
        let scenario: Vec<u8> = row.get("scenario")?;
        let refusals: Option<Vec<u8>> = row.get("refusals")?;
        Ok(Run {
            refusals: refusals.and_then(|r| Run::decode(r.as_slice()).ok()).map(|r| r.refusals).unwrap_or_default(),
            id: row.get("id")?,
            name: row.get("name")?,
            scenario: Scenario::decode(scenario.as_slice()).ok(),
            status: RunStatus::from_str_name(&format!("RUN_STATUS_{status}")).unwrap_or_default() as i32,
            created_at: parse_ts(row.get("created_at")?),
            finished_at: parse_ts(row.get("finished_at")?),
            tasks_total: row.get("tasks_total")?,
            tasks_done: row.get("tasks_done")?,
            tasks_failed: row.get("tasks_failed")?,
            message: row.get("message")?,
            control_rss_start_bytes: row.get::<_, i64>("control_rss_start")? as u64,
            control_peak_rss_bytes: row.get::<_, i64>("control_peak_rss")? as u64,
            lanes: row.get("lanes")?,
        })
    }

    pub fn get_run(&self, id: &str) -> Result<Option<Run>> {
        Ok(self.db().query_row("SELECT * FROM runs WHERE id = ?1", [id], Self::run_from_row).optional()?)
    }

    pub fn list_runs(&self, limit: u32) -> Result<Vec<Run>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT ?1")?;
        let rows = stmt.query_map([limit], Self::run_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn tasks(&self, run_id: &str) -> Result<Vec<TaskSummary>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT * FROM tasks WHERE run_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([run_id], Self::task_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `limit` of the run's tasks after position `after` (their `seq`), with their positions:
    /// a replay reads a big run a page at a time instead of holding it all.
    pub fn tasks_page(&self, run_id: &str, after: i64, limit: u32) -> Result<Vec<(i64, TaskSummary)>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT * FROM tasks WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")?;
        let rows = stmt.query_map(params![run_id, after, limit], |row| Ok((row.get::<_, i64>("seq")?, Self::task_from_row(row)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The run's newest measurement row id (0 when it has none).
    pub fn last_measurement_id(&self, run_id: &str) -> Result<i64> {
        Ok(self.db().query_row("SELECT coalesce(max(id), 0) FROM measurements WHERE run_id = ?1", [run_id], |r| r.get(0))?)
    }

    /// Up to `limit` of the run's measurements with row ids in (after, through], with their ids.
    pub fn measurements_page(&self, run_id: &str, after: i64, through: i64, limit: u32) -> Result<Vec<(i64, Measurement)>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT id, proto FROM measurements WHERE run_id = ?1 AND id > ?2 AND id <= ?3 ORDER BY id LIMIT ?4")?;
        let rows = stmt.query_map(params![run_id, after, through, limit], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Vec<u8>>(1)?)))?;
        rows.map(|r| {
            let (id, b) = r?;
            Ok((id, Measurement::decode(b.as_slice())?))
        })
        .collect()
    }

    fn task_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<TaskSummary> {
        let op: String = row.get("operation")?;
        let status: String = row.get("status")?;
        Ok(TaskSummary {
            id: row.get("id")?,
            operation: Operation::from_str_name(&format!("OPERATION_{}", op.to_uppercase())).unwrap_or_default() as i32,
            dataset: row.get("dataset")?,
            codec: row.get("codec")?,
            decode_mode: row.get("decode_mode")?,
            record_count: row.get("record_count")?,
            producer_worker_id: row.get("producer_worker_id")?,
            consumer_worker_id: row.get("consumer_worker_id")?,
            status: TaskStatus::from_str_name(&format!("TASK_STATUS_{status}")).unwrap_or_default() as i32,
            failure: row.get("failure")?,
            cell_id: row.get("cell_id")?,
            trial: row.get("trial")?,
            prepare: row.get("prepare")?,
            started_at: parse_ts(row.get("started_at")?),
            ended_at: parse_ts(row.get("ended_at")?),
            phase_ms: row.get::<_, Option<String>>("phase_ms")?.and_then(|j| serde_json::from_str(&j).ok()).unwrap_or_default(),
            lane: row.get("lane")?,
            trial_cpus: row.get("trial_cpus")?,
            duet: row.get("duet")?,
            replica: row.get("replica")?,
        })
    }

    pub fn measurements(&self, run_id: &str) -> Result<Vec<Measurement>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT proto FROM measurements WHERE run_id = ?1 ORDER BY id")?;
        let rows = stmt.query_map([run_id], |row| row.get::<_, Vec<u8>>(0))?;
        rows.map(|b| Ok(Measurement::decode(b?.as_slice())?)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
