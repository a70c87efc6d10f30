//! The real `codecbench-worker trial` child, driven through the parent's `run_in_child`: a good
//! trial of each kind reports its measurement, bad input fails with a precise message.
use codecbench_codecs::{Bson, Codec, Json, Protobuf};
use codecbench_datasets::{generate, lazy_fields, Records};
use codecbench_proto::v1::{Operation, ReportResultRequest, Sampling, Task};
use codecbench_worker::trial::run_in_child;
use std::path::Path;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_codecbench-worker");

fn task(operation: Operation, dataset: &str, codec: &str, mode: &str, records: &Records) -> Task {
    Task {
        id: "t1".into(),
        operation: operation as i32,
        dataset: dataset.into(),
        codec: codec.into(),
        decode_mode: mode.into(),
        record_count: records.len() as u32,
        sampling: Some(Sampling { warmup_ms: 20, max_warmup_ms: 2000, rounds: 3, min_round_ms: 2, task_timeout_s: 60, ..Default::default() }),
        lazy_fields: lazy_fields(dataset).unwrap().iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

fn run(task: &Task, canonical: &[u8], payload: &[u8]) -> (ReportResultRequest, Vec<u8>) {
    run_in_child(Path::new(BIN), &["trial"], task, canonical, payload, Some(Duration::from_secs(60))).unwrap()
}

fn assert_measured(report: &ReportResultRequest, operation: Operation, payload_bytes: usize) {
    assert_eq!(report.failure, "");
    assert_eq!(report.task_id, "t1");
    let [m] = &report.measurements[..] else { panic!("one measurement expected: {report:?}") };
    assert_eq!(m.operation(), operation);
    assert_eq!(m.payload_bytes, payload_bytes as u64);
    assert_eq!(m.round_ns_per_op.len(), 3);
    assert!(m.round_ns_per_op.iter().all(|&ns| ns > 0.0));
    assert!(m.verified && m.ops_per_round >= 1);
    assert!(m.alloc_bytes_per_op.unwrap() > 0.0, "the child counts allocations");
    assert!(m.extras["warmup_ms"] >= 20.0 && m.extras["warmup_rounds"] >= 10.0, "{:?}", m.extras);
    assert!(m.extras["rounds_ms"] >= 6.0 && (0.0..=m.extras["rounds_ms"]).contains(&m.extras["rounds_runqueue_ms"]), "{:?}", m.extras);
    assert_eq!(m.environment.as_ref().unwrap().language, "rust");
}

#[test]
fn decode_trials_in_every_mode_measure_in_the_child() {
    let records = generate("docs", 20, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let bson = Bson.encode(&records).unwrap();
    for mode in ["typed", "tree", "lazy"] {
        let (report, payload) = run(&task(Operation::Decode, "docs", "bson", mode, &records), &canonical, &bson);
        assert_measured(&report, Operation::Decode, bson.len());
        assert!(payload.is_empty(), "a decode trial returns no payload");
    }
    let json = Json.encode(&records).unwrap();
    let (report, _) = run(&task(Operation::Decode, "docs", "json", "tree", &records), &canonical, &json);
    assert_measured(&report, Operation::Decode, json.len());
}

#[test]
fn encode_trials_return_the_payload_only_when_it_is_stored_or_uploaded() {
    let records = generate("numeric", 10, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let mut t = task(Operation::Encode, "numeric", "protobuf", "", &records);
    let (report, payload) = run(&t, &canonical, b"");
    assert_measured(&report, Operation::Encode, canonical.len());
    assert!(payload.is_empty());
    t.store_payload = true;
    let (report, payload) = run(&t, &canonical, b"");
    assert_measured(&report, Operation::Encode, canonical.len());
    assert_eq!(payload, Protobuf.encode(&records).unwrap());
}

#[test]
fn a_prepare_task_returns_the_verified_payload_and_times_nothing() {
    let records = generate("dummy", 30, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let mut t = task(Operation::Encode, "dummy", "json", "", &records);
    t.prepare = true;
    t.store_payload = true;
    t.measure_transfer = true;
    // A warm-up of a minute would overrun the 10 s timeout if anything were timed.
    t.sampling.as_mut().unwrap().warmup_ms = 60_000;
    t.sampling.as_mut().unwrap().max_warmup_ms = 60_000;
    let (report, payload) = run_in_child(Path::new(BIN), &["trial"], &t, &canonical, b"", Some(Duration::from_secs(10))).unwrap();
    assert_eq!(report.failure, "");
    assert!(report.measurements.is_empty(), "{:?}", report.measurements);
    assert_eq!(payload, Json.encode(&records).unwrap());

    // Its failures are precise: a codec this worker lacks, records that do not match the task,
    // a prepare task that is not an encode task.
    t.codec = "yaml".into();
    let (report, payload) = run(&t, &canonical, b"");
    assert_eq!(report.failure, "this worker has no codec \"yaml\"");
    assert!(report.measurements.is_empty() && payload.is_empty());
    t.codec = "bson".into();
    t.record_count = 31;
    assert_eq!(run(&t, &canonical, b"").0.failure, "canonical blob has 30 records, task says 31");
    t.operation = Operation::Decode as i32;
    assert_eq!(run(&t, &canonical, b"").0.failure, "a prepare task must be an encode task, this one is OPERATION_DECODE");
}

#[test]
fn a_corrupt_or_wrong_payload_fails_the_trial_with_a_precise_message() {
    let records = generate("beers", 5, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let json = Json.encode(&records).unwrap();
    let t = task(Operation::Decode, "beers", "json", "typed", &records);
    let (report, _) = run(&t, &canonical, &json[..json.len() - 3]);
    assert!(report.failure.starts_with("decode failed: EOF while parsing"), "{}", report.failure);
    assert!(report.measurements.is_empty());
    // Valid JSON of other records: verification names the record.
    let other = Json.encode(&generate("beers", 5, 2).unwrap()).unwrap();
    let (report, _) = run(&t, &canonical, &other);
    assert!(report.failure.starts_with("verification failed: record 0: expected BeerRecord"), "{}", report.failure);
    // Tree mode checks the tree against the records too.
    let (report, _) = run(&task(Operation::Decode, "beers", "json", "tree", &records), &canonical, &other);
    assert!(report.failure.starts_with("verification failed: record 0:"), "{}", report.failure);
    // A mode the codec does not offer.
    let (report, _) = run(&task(Operation::Decode, "beers", "json", "lazy", &records), &canonical, &json);
    assert_eq!(report.failure, "codec json offers no decode mode \"lazy\" (it offers typed, tree, streaming)");
    // A canonical blob that does not match the task.
    let (report, _) = run(&task(Operation::Decode, "beers", "json", "typed", &generate("beers", 4, 1).unwrap()), &canonical, &json);
    assert_eq!(report.failure, "canonical blob has 5 records, task says 4");
}

#[test]
fn unreadable_trial_input_exits_non_zero_and_says_why() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(BIN).arg("trial").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"not frames").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("trial: unreadable trial input: part 1 of 3 announces"), "{err}");
}

/// The streaming mode holds a bounded buffer, not the payload: on a ~20 MB matrix payload its peak
/// heap (one operation, measured by the counting allocator) stays under 64 KiB both ways, while
/// the in-memory encode holds at least the whole payload.
#[test]
fn streaming_holds_a_bounded_buffer_not_the_payload() {
    const BOUND: f64 = 64.0 * 1024.0;
    let records = generate("matrix", 12_000, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let payload = Json.encode(&records).unwrap();
    assert!(payload.len() > 15_000_000, "{}", payload.len());
    let peak = |report: &ReportResultRequest| {
        assert_eq!(report.failure, "", "{report:?}");
        report.measurements[0].extras["peak_heap_bytes"]
    };
    let (report, _) = run(&task(Operation::Encode, "matrix", "json", "streaming", &records), &canonical, &[]);
    assert_eq!(report.measurements[0].payload_bytes, payload.len() as u64, "the streamed bytes are the payload's");
    let streamed = peak(&report);
    assert!(streamed < BOUND, "streaming encode held {streamed} bytes at once");
    let (report, _) = run(&task(Operation::Encode, "matrix", "json", "", &records), &canonical, &[]);
    assert!(peak(&report) >= payload.len() as f64, "in memory, the payload itself is held");
    let (report, _) = run(&task(Operation::Decode, "matrix", "json", "streaming", &records), &canonical, &payload);
    let streamed = peak(&report);
    assert!(streamed < BOUND, "streaming decode held {streamed} bytes at once");
    // A streamed payload that differs is caught before timing, naming the record.
    let mut other = generate("matrix", 12_000, 1).unwrap();
    if let Records::Matrix(rows) = &mut other {
        rows[7].cells[3] = "x".into();
    }
    let (report, _) = run(&task(Operation::Decode, "matrix", "json", "streaming", &records), &canonical, &Json.encode(&other).unwrap());
    assert_eq!(report.failure, "verification failed: streamed record 7 differs from the canonical one");
}

/// Lanes: a task with CPUs runs its trial process pinned to them, and the trial reports what it
/// was allowed on, read by itself; a task without runs where the OS puts it.
#[test]
fn a_trial_runs_on_its_lanes_cpus_and_says_so() {
    let records = generate("numeric", 10, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let mut t = task(Operation::Encode, "numeric", "protobuf", "", &records);
    let everywhere = codecbench_worker::affinity::own_cpus();
    assert!(!everywhere.is_empty(), "Linux lists this process's CPUs");
    assert_eq!(run(&t, &canonical, b"").0.trial_cpus, everywhere);
    t.cpus = vec![0];
    let (report, _) = run(&t, &canonical, b"");
    assert_measured(&report, Operation::Encode, canonical.len());
    assert_eq!(report.trial_cpus, "0");
    t.cpus = vec![100_000];
    let refused = run_in_child(Path::new(BIN), &["trial"], &t, &canonical, b"", Some(Duration::from_secs(10))).unwrap_err();
    assert!(refused.contains("CPU 100000"), "{refused}");
}

/// BSON nested `levels` documents deep ({"a": {"a": ...}}), well formed.
fn deep_bson(levels: usize) -> Vec<u8> {
    let mut out = vec![];
    for k in (1..=levels).rev() {
        out.extend_from_slice(&((5 + 8 * k) as i32).to_le_bytes());
        out.extend_from_slice(b"\x03a\x00");
    }
    out.extend_from_slice(&[5, 0, 0, 0, 0]);
    out.extend(std::iter::repeat_n(0u8, levels));
    out
}

/// A payload nested past what the library survives fails the trial as a decode error, in every
/// mode, before anything is timed (Codec::admit), never by a crash of the trial process.
#[test]
fn deeply_nested_bson_fails_the_trial_with_a_decode_error() {
    let records = generate("dummy", 3, 1).unwrap();
    let canonical = records.to_canonical_bytes();
    let deep = deep_bson(20_000);
    for mode in ["typed", "tree"] {
        let (report, _) = run(&task(Operation::Decode, "dummy", "bson", mode, &records), &canonical, &deep);
        assert!(report.failure.contains("decode failed") && report.failure.contains("nested deeper than 128"), "{mode}: {}", report.failure);
    }
}
