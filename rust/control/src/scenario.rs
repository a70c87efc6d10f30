//! Validates a scenario against the attached workers and expands it into tasks:
//!   encode: datasets x counts x codecs x producers
//!   decode: datasets x counts x codecs x producers x consumers x decode modes
//! Each decode task depends on the encode task whose payload it reads. A cell that no worker can
//! run (a consumer without that codec or mode) is left out; a scenario that leaves nothing to run,
//! or names something unknown, is rejected with a message naming it.
use codecbench_datasets::{lazy_field, DATASETS};
use codecbench_proto::v1::{CodecInfo, Operation, Sampling, Scenario, Task, TaskStatus, TaskSummary};

pub const DECODE_MODES: &[&str] = &["typed", "lazy"];
pub const MAX_COUNT: u32 = 10_000_000;

pub struct WorkerView {
    pub id: String,
    pub name: String,
    pub language: String,
    pub codecs: Vec<CodecInfo>,
}

impl WorkerView {
    fn codec(&self, id: &str) -> Option<&CodecInfo> {
        self.codecs.iter().find(|c| c.id == id)
    }
}

pub struct Planned {
    pub summary: TaskSummary,
    pub task: Task,
    /// Index of the encode task whose payload this decode task reads.
    pub depends_on: Option<usize>,
}

/// The scenario with every default made explicit (what actually ran).
pub fn with_defaults(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    let d = s.sampling.get_or_insert_with(Sampling::default);
    if d.warmup_ms == 0 { d.warmup_ms = 200; }
    if d.rounds == 0 { d.rounds = 10; }
    if d.min_round_ms == 0 { d.min_round_ms = 10; }
    if d.task_timeout_s == 0 { d.task_timeout_s = 300; }
    if s.seed == 0 { s.seed = 1; }
    if s.operations.is_empty() {
        s.operations = vec![Operation::Encode as i32, Operation::Decode as i32, Operation::Transfer as i32];
    }
    s
}

fn select<'a>(role: &str, selectors: &[String], workers: &'a [WorkerView]) -> Result<Vec<&'a WorkerView>, String> {
    if selectors.is_empty() {
        return Ok(workers.iter().collect());
    }
    let mut out: Vec<&WorkerView> = vec![];
    for sel in selectors {
        let matched: Vec<_> = workers.iter().filter(|w| w.id == *sel || w.language == *sel || w.name == *sel).collect();
        if matched.is_empty() {
            return Err(format!("no attached worker matches {role} {sel:?} (attached: {})", describe(workers)));
        }
        for w in matched {
            if !out.iter().any(|o| o.id == w.id) {
                out.push(w);
            }
        }
    }
    Ok(out)
}

fn describe(workers: &[WorkerView]) -> String {
    if workers.is_empty() {
        return "none".into();
    }
    workers.iter().map(|w| format!("{} [{}]", w.id, w.language)).collect::<Vec<_>>().join(", ")
}

pub fn plan(run_id: &str, scenario: &Scenario, workers: &[WorkerView]) -> Result<(Scenario, Vec<Planned>), String> {
    let s = with_defaults(scenario);
    let sampling = s.sampling.unwrap_or_default();
    if s.datasets.is_empty() {
        return Err("datasets: name at least one dataset".into());
    }
    for d in &s.datasets {
        if !DATASETS.contains(&d.as_str()) {
            return Err(format!("datasets: unknown dataset {d:?} (known: {})", DATASETS.join(", ")));
        }
    }
    if s.counts.is_empty() {
        return Err("counts: give at least one record count".into());
    }
    if let Some(c) = s.counts.iter().find(|&&c| c == 0 || c > MAX_COUNT) {
        return Err(format!("counts: {c} is not a record count between 1 and {MAX_COUNT}"));
    }
    for m in &s.decode_modes {
        if !DECODE_MODES.contains(&m.as_str()) {
            return Err(format!("decodeModes: unknown decode mode {m:?} (known: {})", DECODE_MODES.join(", ")));
        }
    }
    let ops: Vec<Operation> = s.operations.iter().map(|&o| Operation::try_from(o).unwrap_or_default()).collect();
    if ops.contains(&Operation::Unspecified) {
        return Err("operations: OPERATION_UNSPECIFIED is not an operation (use encode, decode, transfer)".into());
    }
    // Encode tasks always run, whatever `operations` says: decode needs their payloads.
    let (decode, transfer) = (ops.contains(&Operation::Decode), ops.contains(&Operation::Transfer));
    if transfer && !decode {
        return Err("operations: transfer is timed by the consumer of a payload, so it needs decode too".into());
    }
    if sampling.rounds > 1000 || sampling.min_round_ms > 60_000 || sampling.warmup_ms > 600_000 {
        return Err("sampling: rounds must be at most 1000, minRoundMs at most 60000, warmupMs at most 600000".into());
    }
    if workers.is_empty() {
        return Err("no worker is attached to control: start one (codecbench up) before running a scenario".into());
    }
    let producers = select("producer", &s.producers, workers)?;
    let consumers = select("consumer", &s.consumers, workers)?;
    if s.codecs.is_empty() {
        return Err("codecs: name at least one codec".into());
    }
    for c in &s.codecs {
        if !workers.iter().any(|w| w.codec(c).is_some()) {
            let mut offered: Vec<_> = workers.iter().flat_map(|w| w.codecs.iter().map(|c| c.id.as_str())).collect();
            offered.sort();
            offered.dedup();
            return Err(format!("codecs: no attached worker offers codec {c:?} (offered: {})", offered.join(", ")));
        }
    }
    if !s.decode_modes.is_empty() && decode {
        for m in &s.decode_modes {
            let any = s.codecs.iter().any(|c| consumers.iter().any(|w| w.codec(c).is_some_and(|i| i.decode_modes.contains(m))));
            if !any {
                return Err(format!("decodeModes: no selected consumer offers mode {m:?} for codecs {:?}", s.codecs));
            }
        }
    }

    let mut tasks: Vec<Planned> = vec![];
    let mut push = |op: Operation, dataset: &str, codec: &str, mode: &str, count: u32, producer: &str, consumer: &str, depends_on: Option<usize>, measure_transfer: bool| -> usize {
        let id = format!("{run_id}-t{:04}", tasks.len());
        tasks.push(Planned {
            summary: TaskSummary {
                id: id.clone(), operation: op as i32, dataset: dataset.into(), codec: codec.into(), decode_mode: mode.into(),
                record_count: count, producer_worker_id: producer.into(), consumer_worker_id: consumer.into(),
                status: TaskStatus::Pending as i32, failure: String::new(),
            },
            task: Task {
                id, run_id: run_id.into(), operation: op as i32, dataset: dataset.into(), codec: codec.into(),
                decode_mode: mode.into(), record_count: count,
                lazy_field: if mode == "lazy" { lazy_field(dataset).unwrap_or_default().into() } else { String::new() },
                sampling: Some(sampling), measure_transfer, producer_worker_id: producer.into(), ..Default::default()
            },
            depends_on,
        });
        tasks.len() - 1
    };
    for dataset in &s.datasets {
        for &count in &s.counts {
            for codec in &s.codecs {
                for p in producers.iter().filter(|w| w.codec(codec).is_some()) {
                    let enc = push(Operation::Encode, dataset, codec, "", count, &p.id, "", None, false);
                    if !decode {
                        continue;
                    }
                    for c in &consumers {
                        let Some(info) = c.codec(codec) else { continue };
                        let modes: Vec<&String> = if s.decode_modes.is_empty() {
                            info.decode_modes.iter().collect()
                        } else {
                            s.decode_modes.iter().filter(|m| info.decode_modes.contains(m)).collect()
                        };
                        for (i, mode) in modes.iter().enumerate() {
                            push(Operation::Decode, dataset, codec, mode, count, &p.id, &c.id, Some(enc), transfer && i == 0);
                        }
                    }
                }
            }
        }
    }
    if tasks.is_empty() {
        return Err(format!("nothing to run: no selected producer offers codecs {:?}", s.codecs));
    }
    Ok((s, tasks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(id: &str, lang: &str, codecs: &[(&str, &[&str])]) -> WorkerView {
        WorkerView {
            id: id.into(), name: lang.into(), language: lang.into(),
            codecs: codecs.iter().map(|(c, m)| CodecInfo { id: c.to_string(), decode_modes: m.iter().map(|s| s.to_string()).collect(), ..Default::default() }).collect(),
        }
    }

    fn scenario() -> Scenario {
        Scenario { datasets: vec!["dummy".into()], codecs: vec!["json".into(), "bson".into()], counts: vec![10], ..Default::default() }
    }

    #[test]
    fn expands_producers_consumers_and_modes() {
        let ws = [worker("rust-1", "rust", &[("json", &["typed", "lazy"]), ("bson", &["typed", "lazy"])]),
                  worker("browser-1", "browser", &[("json", &["typed"]), ("bson", &["typed"])])];
        let (s, tasks) = plan("r", &scenario(), &ws).unwrap();
        assert_eq!(s.sampling.unwrap().rounds, 10);
        let enc = tasks.iter().filter(|t| t.summary.operation() == Operation::Encode).count();
        let dec = tasks.iter().filter(|t| t.summary.operation() == Operation::Decode).count();
        assert_eq!(enc, 4); // 2 codecs x 2 producers
        assert_eq!(dec, 2 * 2 * 3); // codecs x producers x (rust typed+lazy, browser typed)
        let transfer = tasks.iter().filter(|t| t.task.measure_transfer).count();
        assert_eq!(transfer, 2 * 2 * 2, "transfer once per producer x consumer x codec");
        assert!(tasks.iter().filter(|t| t.summary.decode_mode == "lazy").all(|t| t.task.lazy_field == "guid"));
    }

    #[test]
    fn rejects_what_it_cannot_run_by_name() {
        let ws = [worker("rust-1", "rust", &[("json", &["typed"])])];
        let err = |f: &dyn Fn(&mut Scenario)| { let mut s = scenario(); s.codecs = vec!["json".into()]; f(&mut s); plan("r", &s, &ws).err().unwrap() };
        assert_eq!(err(&|s| s.datasets = vec!["dumy".into()]), "datasets: unknown dataset \"dumy\" (known: dummy, numeric, owners, docs, beers, matrix)");
        assert_eq!(err(&|s| s.producers = vec!["java".into()]), "no attached worker matches producer \"java\" (attached: rust-1 [rust])");
        assert_eq!(err(&|s| s.codecs = vec!["cbor".into()]), "codecs: no attached worker offers codec \"cbor\" (offered: json)");
        assert!(err(&|s| s.counts = vec![0]).starts_with("counts: 0"));
        assert!(err(&|s| s.decode_modes = vec!["eager".into()]).starts_with("decodeModes: unknown decode mode"));
        assert!(err(&|s| s.decode_modes = vec!["lazy".into()]).contains("no selected consumer offers mode \"lazy\""));
        assert!(err(&|s| s.operations = vec![Operation::Transfer as i32]).contains("needs decode"));
        assert!(plan("r", &scenario(), &[]).err().unwrap().contains("no worker is attached"));
    }
}
