//! The database's tables, and the columns added since the first schema (a database written by an
//! older control gains them when it is opened). A child of store.rs.
use anyhow::{Context, Result};
use rusqlite::Connection;

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
    // TaskSummary.payload_codec and Measurement.payload_codec ('' when the decoding codec wrote it).
    ("tasks", "payload_codec", "TEXT NOT NULL DEFAULT ''"),
    ("measurements", "cell_id", "TEXT NOT NULL DEFAULT ''"),
    ("measurements", "trial", "INTEGER NOT NULL DEFAULT 0"),
    ("measurements", "steady", "INTEGER NOT NULL DEFAULT 0"),
    ("measurements", "payload_blob_id", "TEXT NOT NULL DEFAULT ''"),
    ("measurements", "gzip_bytes", "INTEGER"),
    ("measurements", "zstd_bytes", "INTEGER"),
    ("measurements", "payload_codec", "TEXT NOT NULL DEFAULT ''"),
    // TaskSummary.same_bytes_as and Run.tasks_same_bytes (Sampling.repeat_same_bytes off).
    ("tasks", "same_bytes_as", "TEXT NOT NULL DEFAULT ''"),
    ("runs", "tasks_same_bytes", "INTEGER NOT NULL DEFAULT 0"),
];

/// Creates the tables a new database lacks and adds the columns an older one lacks.
pub(super) fn create(db: &Connection) -> Result<()> {
    db.execute_batch(SCHEMA).context("creating the schema")?;
    for (table, column, decl) in ADDED_COLUMNS {
        let has: bool = db.query_row(
            &format!("SELECT COUNT(*) FROM pragma_table_info('{table}') WHERE name = ?1"), [column], |r| r.get::<_, i64>(0),
        )? > 0;
        if !has {
            db.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {decl}")).with_context(|| format!("adding {table}.{column}"))?;
        }
    }
    Ok(())
}
