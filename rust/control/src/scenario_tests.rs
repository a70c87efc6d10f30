//! Planning tests: refusals by name, user datasets, limits, passes, A/A twins and streaming cells.
use super::*;
use codecbench_proto::v1::UserDataset;

pub(crate) fn worker(id: &str, lang: &str, codecs: &[(&str, &[&str])]) -> WorkerView {
    WorkerView {
        id: id.into(), name: lang.into(), language: lang.into(),
        codecs: codecs.iter().map(|(c, m)| CodecInfo { id: c.to_string(), decode_modes: m.iter().map(|s| s.to_string()).collect(), ..Default::default() }).collect(),
        compressions: vec![],
        datasets: codecbench_datasets::dataset_infos(),
    }
}

#[test]
fn a_worker_without_a_dataset_or_with_another_schema_is_refused_by_name() {
    let mut lacking = worker("java-1", "java", &[("json", &["typed"]), ("bson", &["typed"])]);
    lacking.datasets.retain(|d| d.id != "dummy");
    let e = plan("r", &scenario(), &[worker("rust-1", "rust", &[("json", &["typed"]), ("bson", &["typed"])]), lacking]).err().unwrap();
    assert!(e.starts_with("datasets: worker java-1 [java] does not carry dataset \"dummy\" (it carries: numeric, owners"), "{e}");
    let mut other = worker("web-1", "browser", &[("json", &["typed"]), ("bson", &["typed"])]);
    other.datasets[0].fingerprint = "0000000000000000".into();
    let e = plan("r", &scenario(), &[other]).err().unwrap();
    assert!(e.contains("worker web-1 [browser] carries dataset \"dummy\" (codecbench.v1.DummyRecord) with schema fingerprint 0000000000000000, control's is "), "{e}");
    let mut silent = worker("old-1", "rust", &[("json", &["typed"]), ("bson", &["typed"])]);
    silent.datasets.clear();
    assert!(plan("r", &scenario(), &[silent]).err().unwrap().contains("(it carries: none announced)"));
    // A worker the scenario does not select may lack it.
    let s = Scenario { producers: vec!["rust".into()], consumers: vec!["rust".into()], ..scenario() };
    let mut unused = worker("java-1", "java", &[("json", &["typed"]), ("bson", &["typed"])]);
    unused.datasets.clear();
    assert!(plan("r", &s, &[worker("rust-1", "rust", &[("json", &["typed"]), ("bson", &["typed"])]), unused]).is_ok());
}

/// A scenario of one user dataset, "orders", and workers carrying it (refusing what `refused` says).
fn orders(lazy: &[&str]) -> Scenario {
    Scenario {
        datasets: vec!["orders".into()], codecs: vec!["json".into(), "protobuf".into()], counts: vec![500],
        user_datasets: vec![UserDataset {
            id: "orders".into(), message: "acme.Order".into(), fingerprint: "f00d".into(), records_blob_id: "b".into(),
            record_count: 200, lazy_fields: lazy.iter().map(|s| s.to_string()).collect(), ..Default::default()
        }],
        ..Default::default()
    }
}

fn carrying_orders(id: &str, lang: &str, refused: &[(&str, &str)]) -> WorkerView {
    let mut w = worker(id, lang, &[("json", &["typed", "lazy"]), ("protobuf", &["typed", "lazy"])]);
    w.datasets.push(DatasetInfo {
        id: "orders".into(), message: "acme.Order".into(), fingerprint: "f00d".into(), field_names: "json".into(),
        refused: refused.iter().map(|(c, m)| Refusal { codec: c.to_string(), decode_mode: m.to_string(), reason: format!("{c}: map field acme.Order.attributes is not offered"), ..Default::default() }).collect(),
    });
    w
}

#[test]
fn a_user_dataset_is_planned_from_its_declaration_and_refused_cells_are_left_out_with_their_reason() {
    let ws = [carrying_orders("rust-1", "rust", &[("json", "")]), carrying_orders("java-1", "java", &[])];
    let s = orders(&["id", "note"]);
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    // rust-1 encodes no json and decodes no json; java-1 does both, from itself only.
    let json: Vec<_> = tasks.iter().filter(|t| t.task.codec == "json").collect();
    assert!(!json.is_empty());
    assert!(json.iter().all(|t| t.task.producer_worker_id == "java-1" && t.summary.consumer_worker_id != "rust-1"));
    assert!(tasks.iter().any(|t| t.task.codec == "protobuf" && t.task.producer_worker_id == "rust-1"));
    let lazy = tasks.iter().find(|t| t.task.decode_mode == "lazy").unwrap();
    assert_eq!(lazy.task.lazy_fields, vec!["id", "note"]);
    let r = refusals(&s, &ws);
    assert_eq!(r.len(), 1, "{r:?}"); // rust-1's json, every mode: once
    assert!(r.iter().all(|r| r.worker_id == "rust-1" && r.dataset == "orders" && r.reason.contains("map field acme.Order.attributes")));
    // With no lazy fields, control refuses the lazy cells itself.
    let s = orders(&[]);
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    assert!(tasks.iter().all(|t| t.task.decode_mode != "lazy"));
    assert!(refusals(&s, &ws).iter().any(|r| r.decode_mode == "lazy" && r.reason == "protobuf: lazy: dataset orders names no lazy fields (lazyFields in the scenario)"));
    // Every cell refused: nothing to run, and why.
    let all = [carrying_orders("rust-1", "rust", &[("json", ""), ("protobuf", "")])];
    let e = plan("r", &orders(&["id"]), &all).err().unwrap();
    assert!(e.starts_with("nothing to run: every cell was refused (json: map field"), "{e}");
}

#[test]
fn a_user_dataset_needs_workers_built_from_its_schema() {
    let e = plan("r", &orders(&[]), &[worker("rust-1", "rust", &[("json", &["typed"]), ("protobuf", &["typed"])])]).err().unwrap();
    assert!(e.contains("worker rust-1 [rust] does not carry dataset \"orders\""), "{e}");
    let mut other = carrying_orders("java-1", "java", &[]);
    other.datasets.last_mut().unwrap().fingerprint = "beef".into();
    assert!(plan("r", &orders(&[]), &[other]).err().unwrap().contains("with schema fingerprint beef, control's is f00d"));
    let mut names = carrying_orders("java-1", "java", &[]);
    names.datasets.last_mut().unwrap().field_names = "proto".into();
    assert!(plan("r", &orders(&[]), &[names]).err().unwrap().contains("by their proto names, the scenario by their json names"));
    let e = plan("r", &Scenario { datasets: vec!["order".into()], ..orders(&[]) }, &[carrying_orders("rust-1", "rust", &[])]).err().unwrap();
    assert!(e.ends_with("media, orders)"), "{e}");
}

fn scenario() -> Scenario {
    Scenario { datasets: vec!["dummy".into()], codecs: vec!["json".into(), "bson".into()], counts: vec![10], ..Default::default() }
}

fn seeded(order_seed: u64, trials: u32) -> Scenario {
    Scenario { sampling: Some(Sampling { order_seed, trials, ..Default::default() }), ..scenario() }
}

#[test]
fn encode_cells_are_only_prepared_when_encode_is_not_asked_for() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed"])]), worker("java-1", "java", &[("json", &["typed"])])];
    let s = Scenario { operations: vec![Operation::Decode as i32], codecs: vec!["json".into()], ..seeded(7, 3) };
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    let encode_trials = tasks.iter().filter(|t| t.summary.operation() == Operation::Encode && !t.task.prepare).count();
    assert_eq!(encode_trials, 0, "no encode is timed when only decode was asked for");
    assert_eq!(tasks.iter().filter(|t| t.task.prepare).count(), 2, "each payload is still prepared");
    assert_eq!(tasks.len(), 2 + (4 + 4) * 3, "2 prepares + (4 decode cells + 4 A/A twins: both of each consumer's, of the default 3) x 3 trials");
    // Transfer is timed by encode trials (the upload): asking for it times encode too.
    let s = Scenario { operations: vec![Operation::Decode as i32, Operation::Transfer as i32], codecs: vec!["json".into()], ..seeded(7, 3) };
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    assert_eq!(tasks.iter().filter(|t| t.summary.operation() == Operation::Encode && !t.task.prepare).count(), 2 * 3);
}

#[test]
fn a_streaming_codec_gets_a_streaming_encode_cell_that_reuses_the_prepared_payload() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed", "streaming"])]), worker("browser-1", "browser", &[("json", &["typed"])])];
    let s = Scenario { codecs: vec!["json".into()], ..seeded(7, 2) };
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    let streaming: Vec<_> = tasks.iter().filter(|t| t.summary.operation() == Operation::Encode && t.task.decode_mode == STREAMING).collect();
    assert_eq!(streaming.len(), 2, "one streaming encode cell (rust's), two trials");
    for t in &streaming {
        assert_eq!(t.summary.cell_id, "encode/dummy/10/json/streaming/rust-1");
        assert!(!t.task.prepare && !t.task.store_payload && !t.task.measure_transfer);
        let d = t.depends_on.expect("after the in-memory cell's prepare task");
        assert!(tasks[d].task.prepare && tasks[d].summary.cell_id == "encode/dummy/10/json/rust-1");
    }
    assert_eq!(tasks.iter().filter(|t| t.task.prepare).count(), 2, "one prepare per in-memory encode cell");
    let decode_streaming = tasks.iter().filter(|t| t.summary.operation() == Operation::Decode && t.task.decode_mode == STREAMING && !t.aa_twin);
    assert_eq!(decode_streaming.count(), 2 * 2, "rust decodes both producers' payloads streaming");
    // Not asked for: no streaming cells.
    let s = Scenario { decode_modes: vec!["typed".into()], ..s };
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    assert!(tasks.iter().all(|t| t.task.decode_mode != STREAMING));
}

#[test]
fn expands_cells_into_trials_with_modes_and_lazy_fields() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed", "tree"]), ("bson", &["typed", "tree", "lazy"])]),
              worker("browser-1", "browser", &[("json", &["typed"]), ("bson", &["typed"])])];
    let (s, tasks) = plan("r", &seeded(7, 3), &ws).unwrap();
    let sampling = s.sampling.unwrap();
    assert_eq!((sampling.rounds, sampling.trials, sampling.max_trials, sampling.aa_cells), (10, 3, 3, 3));
    let cells = |op: Operation, twin: bool| {
        let mut c: Vec<&str> = tasks.iter().filter(|t| t.summary.operation() == op && t.aa_twin == twin).map(|t| t.summary.cell_id.as_str()).collect();
        c.sort();
        c.dedup();
        c.len()
    };
    assert_eq!(cells(Operation::Encode, false), 4); // 2 codecs x 2 producers
    assert_eq!(cells(Operation::Decode, false), 2 * (2 + 3 + 1 + 1)); // producers x (rust json 2 + bson 3, browser 1 + 1)
    assert_eq!(cells(Operation::Decode, true), 6, "three A/A twins per consumer (the default)");
    assert_eq!(tasks.len(), 4 + (4 + 14 + 6) * 3, "a prepare task per encode cell, and every cell gets its trials");
    for cell in tasks.iter().map(|t| &t.summary.cell_id) {
        let mut trials: Vec<u32> = tasks.iter().filter(|t| &t.summary.cell_id == cell && !t.task.prepare).map(|t| t.summary.trial).collect();
        trials.sort();
        assert_eq!(trials, vec![0, 1, 2], "{cell}");
    }
    // Each encode cell's prepare task stores the payload, times nothing and runs first.
    let prepares = tasks.iter().take_while(|t| t.task.prepare).count();
    assert_eq!(prepares, 4);
    assert!(tasks[prepares..].iter().all(|t| !t.task.prepare && !t.task.store_payload));
    for (i, t) in tasks.iter().enumerate() {
        assert_eq!(t.task.store_payload, t.task.prepare);
        assert_eq!(t.summary.prepare, t.task.prepare);
        assert!(!(t.task.prepare && t.task.measure_transfer), "a prepare task times nothing");
        if let Some(d) = t.depends_on {
            assert!(d < i && tasks[d].task.prepare);
            assert_eq!(tasks[d].summary.producer_worker_id, t.summary.producer_worker_id);
        }
    }
    let transfer: Vec<&str> = tasks.iter().filter(|t| t.task.measure_transfer && t.summary.trial == 0).map(|t| t.summary.cell_id.as_str()).collect();
    assert_eq!(transfer.len(), 4 + 2 * 2 * 2, "upload per encode cell, download per producer x consumer x codec");
    assert!(tasks.iter().filter(|t| t.summary.decode_mode == "lazy").all(|t| t.task.lazy_fields == ["guid", "favoriteFruit"]));
    assert!(tasks.iter().filter(|t| t.summary.decode_mode != "lazy").all(|t| t.task.lazy_fields.is_empty()));
}

#[test]
fn trial_order_is_seeded_and_interleaved() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed", "tree"]), ("bson", &["typed", "tree", "lazy"])])];
    let order = |seed| plan("r", &seeded(seed, 5), &ws).unwrap().1.iter().map(|t| (t.summary.cell_id.clone(), t.summary.trial)).collect::<Vec<_>>();
    assert_eq!(order(1), order(1), "the same seed replays the same order");
    assert_ne!(order(1), order(2), "another seed, another order");
    // Interleaved: a cell's trials are not back to back, and the cell that runs first varies.
    let o = order(1);
    let adjacent = o.windows(2).filter(|w| w[0].0 == w[1].0).count();
    assert!(adjacent < o.len() / 4, "{adjacent} of {} neighbours are the same cell", o.len());
    // Position 2 is the first trial after the two prepare tasks (json and bson encode).
    let firsts: std::collections::HashSet<String> = (1..20).map(|seed| order(seed)[2].0.clone()).collect();
    assert!(firsts.len() > 3, "the first trial must vary with the seed: {firsts:?}");
    let encode_firsts = (1..20).filter(|&seed| order(seed)[2].0.starts_with("encode/")).count();
    assert!(encode_firsts < 10, "encode trials are not always first: {encode_firsts} of 19");
    // In passes: every cell's trial k runs before any cell's trial k + 1, and each pass has an
    // order of its own (the cell after a given cell is not the same in every pass).
    let trials: Vec<u32> = o[2..].iter().map(|(_, t)| *t).collect();
    assert!(trials.windows(2).all(|w| w[0] <= w[1]), "trials out of passes: {trials:?}");
    let cells = o.iter().filter(|(_, t)| *t == 0).count() - 2;
    let passes: Vec<Vec<&String>> = o[2..].chunks(cells).map(|p| p.iter().map(|(c, _)| c).collect()).collect();
    assert_eq!(passes.len(), 5);
    assert!(passes.iter().all(|p| p.len() == cells && p.iter().collect::<std::collections::HashSet<_>>().len() == cells));
    assert!(passes.windows(2).any(|w| w[0] != w[1]), "every pass in the same order");
    // A seed is always recorded.
    let (s, _) = plan("r", &scenario(), &ws).unwrap();
    assert_ne!(s.sampling.unwrap().order_seed, 0);
}

#[test]
fn transfer_legs_get_the_compressions_their_worker_offers() {
    let mut rust = worker("rust-1", "rust", &[("json", &["typed"])]);
    rust.compressions = vec!["gzip".into(), "zstd".into()];
    let page = worker("browser-1", "browser", &[("json", &["typed"])]);
    let ws = [rust, page];
    let with = |c: &[&str]| Scenario { codecs: vec!["json".into()], compressions: c.iter().map(|x| x.to_string()).collect(), ..seeded(3, 1) };
    let legs = |s: &Scenario| -> Vec<(String, bool, Vec<String>)> {
        let (_, tasks) = plan("r", s, &ws).unwrap();
        let mut v: Vec<_> = tasks.iter().filter(|t| !t.task.prepare && !t.aa_twin)
            .map(|t| (t.summary.cell_id.clone(), t.task.measure_transfer, t.task.compressions.clone())).collect();
        v.sort();
        v
    };
    // Empty: identity only, as before compressions existed (no list on the task).
    assert!(legs(&with(&[])).iter().all(|(_, m, c)| *m && c.is_empty()));
    // Each worker's legs: the listed ones it offers, in the scenario's order.
    for (cell, measure, c) in legs(&with(&["zstd", "identity", "gzip"])) {
        assert!(measure, "{cell}");
        let expect: &[&str] = if cell.ends_with("rust-1") { &["zstd", "identity", "gzip"] } else { &["identity"] };
        assert_eq!(c, expect, "{cell}");
    }
    // A worker offering none of them times no leg; the others still do.
    for (cell, measure, c) in legs(&with(&["gzip", "gzip"])) {
        assert_eq!(measure, cell.ends_with("rust-1"), "{cell}");
        assert_eq!(c, if measure { vec!["gzip".to_string()] } else { vec![] }, "{cell}");
    }
    let err = |s: Scenario| plan("r", &s, &ws).err().unwrap();
    assert_eq!(err(with(&["brotli"])), "compressions: unknown compression \"brotli\" (known: identity, gzip, zstd)");
    assert_eq!(err(Scenario { operations: vec![Operation::Encode as i32, Operation::Decode as i32], ..with(&["gzip"]) }),
        "compressions: only the transfer legs are compressed, so operations must include transfer");
    assert!(err(Scenario { producers: vec!["browser".into()], consumers: vec!["browser".into()], ..with(&["gzip"]) })
        .starts_with("compressions: no selected worker offers \"gzip\""));
}

#[test]
fn rejects_what_it_cannot_run_by_name() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed"])])];
    let err = |f: &dyn Fn(&mut Scenario)| { let mut s = scenario(); s.codecs = vec!["json".into()]; f(&mut s); plan("r", &s, &ws).err().unwrap() };
    assert_eq!(err(&|s| s.datasets = vec!["dumy".into()]), format!("datasets: unknown dataset \"dumy\" (known: {})", DATASETS.join(", ")));
    assert_eq!(err(&|s| s.producers = vec!["java".into()]), "no attached worker matches producer \"java\" (attached: rust-1 [rust])");
    assert_eq!(err(&|s| s.codecs = vec!["cbor".into()]), "codecs: no attached worker offers codec \"cbor\" (offered: json)");
    assert!(err(&|s| s.counts = vec![0]).starts_with("counts: 0"));
    assert!(err(&|s| s.decode_modes = vec!["eager".into()]).starts_with("decodeModes: unknown decode mode"));
    assert!(err(&|s| s.decode_modes = vec!["lazy".into()]).contains("no selected consumer offers mode \"lazy\""));
    assert!(err(&|s| s.operations = vec![Operation::Transfer as i32]).contains("needs decode"));
    let sampling = |f: &dyn Fn(&mut Sampling)| err(&|s| { let mut x = Sampling::default(); f(&mut x); s.sampling = Some(x) });
    assert_eq!(sampling(&|x| { x.trials = 5; x.max_trials = 3 }), "sampling: maxTrials (3) must be at least trials (5)");
    assert!(sampling(&|x| x.trials = 1000).starts_with("sampling: trials and maxTrials must be at most"));
    assert!(sampling(&|x| { x.warmup_ms = 500; x.max_warmup_ms = 100 }).starts_with("sampling: maxWarmupMs (100) must be at least warmupMs (500)"));
    assert!(sampling(&|x| x.target_ci_pct = -1.0).starts_with("sampling: targetCiPct"));
    assert!(plan("r", &scenario(), &[]).err().unwrap().contains("no worker is attached"));
    assert_eq!(sampling(&|x| x.task_timeout_s = u32::MAX), format!("sampling: taskTimeoutS ({}) must be at most 3600 (a hung worker would hold every later task that long)", u32::MAX));
}

#[test]
fn duplicates_count_once_and_the_task_cap_names_the_number() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed"])])];
    let mut s = scenario();
    s.codecs = vec!["json".into()];
    s.datasets = vec!["dummy".into(); 5000];
    s.counts = vec![10, 10, 10];
    let (kept, planned) = plan("r", &s, &ws).unwrap();
    assert_eq!((kept.datasets.len(), kept.counts.len()), (1, 1), "5,000 copies of dummy are one dataset");
    assert!(planned.len() <= 1 + 3 * 9, "one prepare task, 3 cells (encode, decode, A/A twin) x 9 default trials: {} tasks", planned.len());
    // 6 datasets x 1000 counts: 6,000 encode cells, as many decode cells and three A/A twins.
    s.datasets = DATASETS[..6].iter().map(|d| d.to_string()).collect();
    s.counts = (1..=1000).collect();
    let err = plan("r", &s, &ws).err().unwrap();
    assert!(err.starts_with("the scenario expands to up to 114027 tasks (12003 cells x 9 trials + 6000 prepare tasks); at most 20000 are allowed"), "{err}");
}

#[test]
fn every_implementation_of_a_format_decodes_every_payload_of_it_and_names_the_one_that_wrote_it() {
    // Rust offers one JSON; Go two (json and json/v2); bson is another format and stays apart.
    let ws = [
        worker("rust-1", "rust", &[("json", &["typed"]), ("bson", &["typed"])]),
        worker("go-1", "go", &[("json", &["typed", "tree"]), ("json/v2", &["typed"]), ("bson", &["typed"])]),
    ];
    let s = Scenario { codecs: vec!["json".into(), "json/v2".into(), "bson".into()], operations: vec![Operation::Encode as i32, Operation::Decode as i32, Operation::Transfer as i32], ..seeded(7, 1) };
    let (_, tasks) = plan("r", &s, &ws).unwrap();
    let decodes: Vec<_> = tasks.iter().filter(|t| t.summary.operation() == Operation::Decode && !t.aa_twin).collect();
    let cells: std::collections::BTreeSet<(String, String, String, String, String)> = decodes.iter()
        .map(|t| (t.summary.producer_worker_id.clone(), t.summary.payload_codec.clone(), t.summary.consumer_worker_id.clone(), t.summary.codec.clone(), t.summary.decode_mode.clone()))
        .collect();
    let json_payloads = [("rust-1", ""), ("go-1", "")];
    for (p, _) in json_payloads {
        // json's payload: Rust's json, Go's json in both modes, and Go's json/v2 (naming json as its writer).
        for (c, codec, mode, payload) in [("rust-1", "json", "typed", ""), ("go-1", "json", "typed", ""), ("go-1", "json", "tree", ""), ("go-1", "json/v2", "typed", "json")] {
            assert!(cells.contains(&(p.into(), payload.into(), c.into(), codec.into(), mode.into())), "{p} json → {c} {codec} {mode}: {cells:?}");
        }
    }
    // json/v2's payload (Go's only): every JSON decoder, json's naming json/v2 as its writer.
    for (c, codec, mode, payload) in [("rust-1", "json", "typed", "json/v2"), ("go-1", "json", "typed", "json/v2"), ("go-1", "json", "tree", "json/v2"), ("go-1", "json/v2", "typed", "")] {
        assert!(cells.contains(&("go-1".into(), payload.into(), c.into(), codec.into(), mode.into())), "go json/v2 → {c} {codec} {mode}: {cells:?}");
    }
    // bson is decoded by bson only.
    assert!(decodes.iter().filter(|t| t.summary.codec == "bson").all(|t| t.summary.payload_codec.is_empty()));
    assert_eq!(cells.len(), 2 * 4 + 4 + 2 * 2, "{cells:?}");
    // Each cell has an id of its own, naming the payload's writer where it is another implementation.
    let ids: std::collections::HashSet<&str> = decodes.iter().map(|t| t.summary.cell_id.as_str()).collect();
    assert_eq!(ids.len(), decodes.len());
    assert!(ids.contains("decode/dummy/10/json/typed/go-1[json/v2]>rust-1"), "{ids:?}");
    // A decode reads the payload its writer's prepare task stored.
    for t in &decodes {
        let writer = if t.summary.payload_codec.is_empty() { &t.summary.codec } else { &t.summary.payload_codec };
        let d = &tasks[t.depends_on.unwrap()].summary;
        assert_eq!((d.codec.as_str(), d.producer_worker_id.as_str()), (writer.as_str(), t.summary.producer_worker_id.as_str()));
    }
    // One transfer leg per payload and consumer, timed in the cell of the implementation that wrote it where the consumer has it.
    let legs: Vec<_> = decodes.iter().filter(|t| t.task.measure_transfer).map(|t| (t.summary.producer_worker_id.as_str(), t.summary.payload_codec.as_str(), t.summary.consumer_worker_id.as_str(), t.summary.codec.as_str())).collect();
    assert_eq!(legs.len(), 3 * 2 + 2 * 2, "{legs:?}");
    assert!(legs.contains(&("go-1", "", "go-1", "json/v2")) && legs.contains(&("go-1", "json/v2", "rust-1", "json")), "{legs:?}");
    assert_eq!(format_of("json/v2"), "json");
    assert_eq!(format_of("bson"), "bson");
}

#[test]
fn a_format_with_a_star_names_every_implementation_a_selected_worker_offers() {
    let ws = [
        worker("rust-1", "rust", &[("json", &["typed"]), ("json/simd-json", &["typed"]), ("bson", &["typed"])]),
        worker("go-1", "go", &[("json/v2", &["typed"]), ("json", &["typed"]), ("bson", &["typed"])]),
    ];
    let s = Scenario { codecs: vec!["json/*".into(), "bson".into(), "json".into()], ..seeded(7, 1) };
    let (planned, tasks) = plan("r", &s, &ws).unwrap();
    // The reference implementation first, then the others by id; json named again counts once.
    assert_eq!(planned.codecs, ["json", "json/simd-json", "json/v2", "bson"]);
    assert!(tasks.iter().any(|t| t.summary.codec == "json/v2") && tasks.iter().any(|t| t.summary.codec == "json/simd-json"));
    // Only the selected workers' implementations: Go's json/v2 is not Rust's.
    let rust_only = Scenario { producers: vec!["rust".into()], consumers: vec!["rust".into()], ..s.clone() };
    assert_eq!(plan("r", &rust_only, &ws).unwrap().0.codecs, ["json", "json/simd-json", "bson"]);
    let Err(e) = plan("r", &Scenario { codecs: vec!["cbor/*".into()], ..seeded(7, 1) }, &ws) else { panic!("cbor/* planned") };
    assert_eq!(e, "codecs: cbor/* names every implementation of format \"cbor\", and no selected worker offers one");
}

#[test]
fn twins_repeat_different_work_each_the_cell_of_the_consumers_own_payload() {
    let ws = [worker("rust-1", "rust", &[("json", &["typed"]), ("bson", &["typed"])]),
              worker("java-1", "java", &[("json", &["typed"]), ("bson", &["typed"])])];
    let twins = |aa_cells: u32, seed: u64| {
        let s = Scenario { sampling: Some(Sampling { order_seed: seed, trials: 1, aa_cells, ..Default::default() }), ..scenario() };
        let (_, tasks) = plan("r", &s, &ws).unwrap();
        let mut ids: Vec<String> = tasks.iter().filter(|t| t.aa_twin).map(|t| t.summary.cell_id.clone()).collect();
        ids.sort();
        ids
    };
    for seed in 1..20 {
        // Two kinds of work per consumer (json, bson): two twins take both, each of the own payload.
        assert_eq!(twins(2, seed), [
            "decode/dummy/10/bson/typed/java-1>java-1~aa", "decode/dummy/10/bson/typed/rust-1>rust-1~aa",
            "decode/dummy/10/json/typed/java-1>java-1~aa", "decode/dummy/10/json/typed/rust-1>rust-1~aa"]);
        // A third takes another producer's cell of either; four take every cell.
        let three = twins(3, seed);
        assert_eq!(three.len(), 6);
        assert_eq!(three.iter().filter(|t| t.contains("rust-1>java-1") || t.contains("java-1>rust-1")).count(), 2);
        assert_eq!(twins(9, seed).len(), 8, "at most every decode cell once");
    }
}
