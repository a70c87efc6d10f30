//! Embedded SQLite: runs, tasks and measurements, each committed when it happens, readable after a
//! restart. Readable columns for people with `sqlite3`, plus the exact protobuf of each measurement
//! and scenario so the API returns what was reported, byte for byte.
use anyhow::{Context, Result};
use codecbench_proto::v1::{ListWorkersResponse, Measurement, Operation, Run, TaskSummary, WorkerInfo};
use prost::Message;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::Mutex;

mod rows;
mod schema;
pub use rows::{operation_name, status_name, task_status_name};
use rows::ts;

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

impl Store {
    pub fn open(path: &Path) -> Result<Self> {
        let db = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
        // WAL: readers (sqlite3, the harness) never block the writer; NORMAL is durable across a
        // process crash, which is what "a reported result is never lost" asks of control.
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "NORMAL")?;
        schema::create(&db)?;
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
             producer_worker_id, consumer_worker_id, status, failure, cell_id, trial, prepare, duet, replica, payload_codec)
             VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
            params![t.id, run_id, seq, operation_name(t.operation()), t.dataset, t.codec, t.decode_mode, t.record_count,
                t.producer_worker_id, t.consumer_worker_id, task_status_name(t.status()), t.failure, t.cell_id, t.trial, t.prepare, t.duet,
                t.replica, t.payload_codec],
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
            "UPDATE runs SET status = ?2, message = ?3, finished_at = ?4, tasks_done = ?5, tasks_failed = ?6, control_peak_rss = ?7,
             tasks_same_bytes = ?8 WHERE id = ?1",
            params![run.id, status_name(run.status()), run.message, ts(&run.finished_at), run.tasks_done, run.tasks_failed,
                run.control_peak_rss_bytes as i64, run.tasks_same_bytes],
        )?;
        Ok(())
    }

    pub fn update_task(&self, t: &TaskSummary) -> Result<()> {
        Self::update_task_in(&self.db(), t)
    }

    fn update_task_in(db: &Connection, t: &TaskSummary) -> Result<()> {
        db.execute(
            "UPDATE tasks SET status = ?2, failure = ?3, started_at = ?4, ended_at = ?5, phase_ms = ?6, lane = ?7, trial_cpus = ?8,
             same_bytes_as = ?9 WHERE id = ?1",
            params![t.id, task_status_name(t.status()), t.failure, ts(&t.started_at), ts(&t.ended_at),
                (!t.phase_ms.is_empty()).then(|| serde_json::to_string(&t.phase_ms)).transpose()?, t.lane, t.trial_cpus,
                t.same_bytes_as],
        )?;
        Ok(())
    }

    fn insert_measurement_in(db: &Connection, m: &Measurement) -> Result<()> {
        db.execute(
            "INSERT INTO measurements (run_id, task_id, dataset, codec, decode_mode, record_count, producer_worker_id,
             consumer_worker_id, worker_id, language, operation, payload_bytes, median_ns_per_op, round_ns_per_op,
             alloc_bytes_per_op, verified, failure, recorded_at, proto, cell_id, trial, steady, payload_blob_id,
             gzip_bytes, zstd_bytes, payload_codec)
             VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26)",
            params![m.run_id, m.task_id, m.dataset, m.codec, m.decode_mode, m.record_count, m.producer_worker_id,
                m.consumer_worker_id, m.worker_id, m.language, operation_name(m.operation()), m.payload_bytes,
                crate::stats::median(&m.round_ns_per_op), serde_json::to_string(&m.round_ns_per_op)?, m.alloc_bytes_per_op,
                m.verified, m.failure, ts(&m.recorded_at), m.encode_to_vec(), m.cell_id, m.trial, m.steady, m.payload_blob_id,
                m.gzip_bytes, m.zstd_bytes, m.payload_codec],
        )?;
        Ok(())
    }

    pub fn get_run(&self, id: &str) -> Result<Option<Run>> {
        Ok(self.db().query_row("SELECT * FROM runs WHERE id = ?1", [id], rows::run).optional()?)
    }

    pub fn list_runs(&self, limit: u32) -> Result<Vec<Run>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT ?1")?;
        let rows = stmt.query_map([limit], rows::run)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn tasks(&self, run_id: &str) -> Result<Vec<TaskSummary>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT * FROM tasks WHERE run_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([run_id], rows::task)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Up to `limit` of the run's tasks after position `after` (their `seq`), with their positions:
    /// a replay reads a big run a page at a time instead of holding it all.
    pub fn tasks_page(&self, run_id: &str, after: i64, limit: u32) -> Result<Vec<(i64, TaskSummary)>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT * FROM tasks WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")?;
        let rows = stmt.query_map(params![run_id, after, limit], |row| Ok((row.get::<_, i64>("seq")?, rows::task(row)?)))?;
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

    pub fn measurements(&self, run_id: &str) -> Result<Vec<Measurement>> {
        let db = self.db();
        let mut stmt = db.prepare("SELECT proto FROM measurements WHERE run_id = ?1 ORDER BY id")?;
        let rows = stmt.query_map([run_id], |row| row.get::<_, Vec<u8>>(0))?;
        rows.map(|b| Ok(Measurement::decode(b?.as_slice())?)).collect()
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
