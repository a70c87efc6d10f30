//! The scenario limits, declared once in the contract (proto/codecbench/v1/limits.json): control
//! reads them here, the harness's validate checks the same file. A child of scenario.rs.

/// Scenario limits, declared once in the contract and checked by the harness too.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    pub max_count: u32,
    pub max_trials: u32,
    pub max_rounds: u32,
    pub max_min_round_ms: u32,
    pub max_warmup_ms: u32,
    pub max_task_timeout_s: u32,
    pub max_aa_cells: u32,
    pub max_tasks: usize,
    /// Strings and lists control stores (bounds.rs): scenario name, worker name.
    pub max_name_bytes: usize,
    pub max_description_bytes: usize,
    /// Every string item of a list (datasets, codecs, ...) and every other short string.
    pub max_id_bytes: usize,
    /// StartRunRequest.source, a user dataset's proto and records paths.
    pub max_path_bytes: usize,
    /// Every repeated field of a scenario.
    pub max_list_items: usize,
    /// Every repeated field of an attach (ListCodecs repeats a worker's id per codec).
    pub max_attach_list_items: usize,
    /// A scenario as StartRun receives it, encoded.
    pub max_scenario_bytes: usize,
    /// Workers attached at once.
    pub max_workers: usize,
    /// An AttachRequest, encoded; its environment alone.
    pub max_attach_bytes: usize,
    pub max_environment_bytes: usize,
    /// A refusal's reason (DatasetInfo.refused), and how many refusals a run keeps.
    pub max_reason_bytes: usize,
    pub max_refusals: usize,
    /// A failure message: longer ones are truncated with a marker.
    pub max_failure_bytes: usize,
    pub max_measurements_per_report: usize,
    /// A ReportResultRequest, encoded, after its failures were truncated.
    pub max_report_bytes: usize,
}

pub fn limits() -> &'static Limits {
    static LIMITS: std::sync::OnceLock<Limits> = std::sync::OnceLock::new();
    LIMITS.get_or_init(|| {
        serde_json::from_str(include_str!("../../../../proto/codecbench/v1/limits.json")).expect("proto/codecbench/v1/limits.json is valid")
    })
}
