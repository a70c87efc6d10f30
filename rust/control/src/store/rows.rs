//! Rows and messages: the names and timestamps the readable columns hold, and the Run and
//! TaskSummary read back from a row. A child of store.rs.
use codecbench_proto::v1::{Operation, Run, RunStatus, Scenario, TaskStatus, TaskSummary};
use prost::Message;

pub fn status_name(s: RunStatus) -> &'static str {
    s.as_str_name().trim_start_matches("RUN_STATUS_")
}

pub fn task_status_name(s: TaskStatus) -> &'static str {
    s.as_str_name().trim_start_matches("TASK_STATUS_")
}

pub fn operation_name(op: Operation) -> String {
    op.as_str_name().trim_start_matches("OPERATION_").to_lowercase()
}

pub(super) fn ts(t: &Option<prost_types::Timestamp>) -> Option<String> {
    t.as_ref().map(|t| {
        let st = std::time::UNIX_EPOCH + std::time::Duration::new(t.seconds.max(0) as u64, t.nanos.max(0) as u32);
        humantime::format_rfc3339_micros(st).to_string()
    })
}

fn parse_ts(s: Option<String>) -> Option<prost_types::Timestamp> {
    let st = humantime::parse_rfc3339(&s?).ok()?;
    Some(prost_types::Timestamp::from(st))
}

pub(super) fn run(row: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
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
        tasks_same_bytes: row.get("tasks_same_bytes")?,
    })
}

pub(super) fn task(row: &rusqlite::Row<'_>) -> rusqlite::Result<TaskSummary> {
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
        payload_codec: row.get("payload_codec")?,
        same_bytes_as: row.get("same_bytes_as")?,
    })
}
