//! No reply exceeds 4 MiB for any input the limits accept: the largest accepted inputs, and 40
//! random ones (seeded) near the limits, go through the checks and then into the replies control
//! builds from them (ListWorkers, ListCodecs, run events, GetRun's first page, ListRuns).
use super::*;
use crate::harness_service::{codec_offers, run_page};
use codecbench_proto::v1::{
    run_event, CodecInfo, DatasetInfo, Environment, GetRunResponse, ListCodecsResponse, ListRunsResponse,
    ListWorkersResponse, Measurement, Network, RunEvent, TaskSummary, TimedRegion, UserDataset,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MAX_MESSAGE: usize = 4 << 20;
/// GetRun's page budget as main.rs sets it.
const PAGE: usize = 3 << 20;

fn text(rng: &mut ChaCha8Rng, len: usize) -> String {
    (0..len).map(|_| rng.random_range(b'a'..=b'z') as char).collect()
}

/// Text of a length near `max`.
fn some(rng: &mut ChaCha8Rng, max: usize) -> String {
    let len = near(rng, max);
    text(rng, len)
}

/// A length in 1..=max, most often near max (the sizes that matter here).
fn near(rng: &mut ChaCha8Rng, max: usize) -> usize {
    if rng.random_bool(0.6) { max } else { rng.random_range(1..=max) }
}

fn scenario(rng: &mut ChaCha8Rng) -> Scenario {
    let lim = limits();
    // Long lists of short items or short lists of long ones: the encoded size decides.
    let names = |rng: &mut ChaCha8Rng| -> Vec<String> {
        let n = if rng.random_bool(0.04) { near(rng, lim.max_list_items) } else { near(rng, 64) };
        (0..n).map(|_| some(rng, lim.max_id_bytes)).collect()
    };
    let mut s = Scenario {
        name: some(rng, lim.max_name_bytes),
        description: some(rng, lim.max_description_bytes),
        datasets: names(rng),
        codecs: names(rng),
        decode_modes: names(rng),
        producers: names(rng),
        consumers: names(rng),
        compressions: names(rng),
        counts: (0..near(rng, 200)).map(|_| rng.random()).collect(),
        network: Some(Network { profile: text(rng, lim.max_id_bytes), ..Default::default() }),
        ..Default::default()
    };
    s.operations = (0..near(rng, 64)).map(|i| (i % 5 + 1) as i32).collect();
    if rng.random_bool(0.5) {
        s.user_datasets = (0..rng.random_range(1..4)).map(|_| UserDataset {
            id: text(rng, lim.max_id_bytes), message: text(rng, lim.max_id_bytes), proto: text(rng, lim.max_path_bytes),
            records: text(rng, lim.max_path_bytes), lazy_fields: vec![text(rng, lim.max_id_bytes); 8], ..Default::default()
        }).collect();
    }
    s
}

/// An attach request grown toward the attach limit: codecs with long notes until the next one
/// would not fit (random sizes otherwise).
fn attach(rng: &mut ChaCha8Rng, notes: usize) -> AttachRequest {
    let lim = limits();
    let mut env = Environment { language: text(rng, lim.max_id_bytes), ..Default::default() };
    while env.details.len() < lim.max_attach_list_items {
        let (k, v) = (text(rng, 16), some(rng, 400));
        env.details.insert(k.clone(), v);
        if env.encoded_len() > lim.max_environment_bytes {
            env.details.remove(&k);
            break;
        }
    }
    let mut req = AttachRequest { name: some(rng, lim.max_name_bytes), environment: Some(env), ..Default::default() };
    req.datasets = (0..rng.random_range(1..8)).map(|_| DatasetInfo {
        id: text(rng, 24), refused: (0..rng.random_range(0..3)).map(|_| Refusal {
            codec: text(rng, 8), reason: some(rng, lim.max_reason_bytes), ..Default::default()
        }).collect(), ..Default::default()
    }).collect();
    while req.codecs.len() < lim.max_attach_list_items {
        let codec = CodecInfo {
            id: some(rng, lim.max_id_bytes), decode_modes: vec!["typed".into(), "tree".into()],
            notes: some(rng, notes),
            timed_regions: vec![TimedRegion { operation: "typed".into(), contains: vec!["parse".into()], note: text(rng, 100) }],
            ..Default::default()
        };
        req.codecs.push(codec);
        if req.encoded_len() > lim.max_attach_bytes {
            req.codecs.pop();
            break;
        }
    }
    req
}

/// A report grown toward the report limit: measurements with as many rounds as fit, a failure
/// far over its limit (truncated), phases.
fn report(rng: &mut ChaCha8Rng) -> ReportResultRequest {
    let lim = limits();
    let mut req = ReportResultRequest {
        task_id: text(rng, 40), failure: text(rng, 3 * lim.max_failure_bytes), trial_cpus: text(rng, 64),
        phase_ms: (0..rng.random_range(0..2000)).map(|i| (format!("phase-{i}"), 1.5)).collect(), ..Default::default()
    };
    for _ in 0..near(rng, lim.max_measurements_per_report) {
        let rounds = near(rng, 4 * lim.max_rounds as usize);
        req.measurements.push(Measurement {
            failure: some(rng, 2 * lim.max_failure_bytes), language: text(rng, 16),
            round_ns_per_op: vec![1.25; rounds], ..Default::default()
        });
        let mut clipped = req.clone();
        if clip_report(&mut clipped).is_err() {
            req.measurements.pop();
            break;
        }
    }
    clip_report(&mut req).expect("grown within the limits");
    req
}

fn control() -> (crate::state::Control, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::open(&dir.path().join("db.sqlite")).unwrap();
    let blobs = crate::blobs::BlobStore::open(&dir.path().join("blobs"), u64::MAX).unwrap();
    (crate::state::Control::new(store, blobs), dir)
}

fn fits(what: &str, len: usize) {
    eprintln!("{what}: {len} bytes");
    assert!(len <= MAX_MESSAGE, "{what}: {len} bytes, over the 4 MiB message limit");
}

/// Everything a run's replies carry, from accepted inputs: the run, its first page, its events.
fn check_replies(rng: &mut ChaCha8Rng, control: &crate::state::Control) -> usize {
    let lim = limits();
    let s = scenario(rng);
    let Ok(()) = check_scenario(&s, &text(rng, lim.max_path_bytes)) else { return 0 };
    let mut refusals: Vec<Refusal> = (0..3 * lim.max_refusals).map(|_| Refusal {
        dataset: text(rng, lim.max_id_bytes), codec: text(rng, lim.max_id_bytes), decode_mode: text(rng, lim.max_id_bytes),
        worker_id: text(rng, lim.max_name_bytes + 4), reason: text(rng, lim.max_reason_bytes),
    }).collect();
    cap_refusals(&mut refusals);
    let run = Run { id: text(rng, 24), name: text(rng, lim.max_path_bytes), scenario: Some(s), refusals, message: text(rng, 200), ..Default::default() };
    fits("a run event", RunEvent { event: Some(run_event::Event::Run(run.clone())) }.encoded_len());
    let tasks: Vec<TaskSummary> = (0..4).map(|i| {
        let r = report(rng);
        let mut failure = r.failure.clone();
        clip(&mut failure, lim.max_failure_bytes);
        TaskSummary { id: format!("t{i}"), failure: format!("not run: the payload's encode (t0) failed: {failure}"), phase_ms: r.phase_ms, trial_cpus: r.trial_cpus, ..Default::default() }
    }).collect();
    let measurements: Vec<Measurement> = tasks.iter().flat_map(|t| {
        report(rng).measurements.into_iter().map(|m| Measurement { task_id: t.id.clone(), environment: None, ..m })
    }).collect();
    for m in &measurements {
        fits("a measurement event", RunEvent { event: Some(run_event::Event::Measurement(m.clone())) }.encoded_len());
    }
    let page = run_page(run.clone(), tasks.clone(), measurements.clone(), control.workers(), 0, PAGE);
    fits("GetRun's first page", page.encoded_len());
    let mut first = page.next_page_token.parse::<usize>().unwrap_or(0);
    while first > 0 {
        let next: GetRunResponse = run_page(run.clone(), tasks.clone(), measurements.clone(), vec![], first, PAGE);
        fits("a GetRun page", next.encoded_len());
        first = next.next_page_token.parse::<usize>().unwrap_or(0);
    }
    let runs = runs_within(vec![run; 50], PAGE);
    fits("ListRuns", ListRunsResponse { runs }.encoded_len());
    page.encoded_len()
}

#[test]
fn no_reply_exceeds_4_mib_for_accepted_inputs() {
    let lim = limits();
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    // The most workers control serves, each with an attach request near the limit: few large
    // codecs, or as many small ones as an attach may list (ListCodecs repeats the worker's id
    // and language for each).
    let mut attached = vec![];
    let mut controls = vec![];
    for notes in [200, 2000] {
        let (control, dir) = control();
        while control.workers().len() < lim.max_workers {
            let req = attach(&mut rng, notes);
            check_attach(&req).expect("grown within the limits");
            attached.push(control.attach(req).1);
        }
        let workers = control.workers();
        fits("ListWorkers", ListWorkersResponse { workers: workers.clone() }.encoded_len());
        fits("ListCodecs", ListCodecsResponse { offers: codec_offers(workers) }.encoded_len());
        controls.push((control, dir));
    }
    let control = &controls[1].0;
    let mut largest = 0;
    let mut accepted = 0;
    for _ in 0..40 {
        let size = check_replies(&mut rng, control);
        accepted += usize::from(size > 0);
        largest = largest.max(size);
    }
    assert!(accepted >= 10, "only {accepted} of 40 random scenarios were accepted: the generator is off");
    assert!(largest > 2 << 20, "the first pages stayed small ({largest} bytes): the inputs were not near the limits");
}

#[test]
fn each_limit_is_named_with_its_value_and_failures_are_truncated_with_a_marker() {
    let lim = limits();
    let s = |f: &dyn Fn(&mut Scenario)| {
        let mut s = Scenario::default();
        f(&mut s);
        check_scenario(&s, "x.yaml").unwrap_err()
    };
    assert_eq!(s(&|s| s.name = "n".repeat(3 << 20)), "name is 3145728 bytes; at most 256 are allowed (proto/codecbench/v1/limits.json)");
    assert!(s(&|s| s.description = "d".repeat(lim.max_description_bytes + 1)).starts_with("description is 4097 bytes; at most 4096"));
    assert!(s(&|s| s.counts = vec![1; 3000]).starts_with("counts has 3000 items; at most 1000"));
    assert!(s(&|s| s.codecs = vec!["c".repeat(129)]).starts_with("codecs item 1 is 129 bytes; at most 128"));
    let attach = |f: &dyn Fn(&mut AttachRequest)| {
        let mut r = AttachRequest::default();
        f(&mut r);
        check_attach(&r).unwrap_err()
    };
    let env = Environment { details: [("flags".to_string(), "x".repeat(3 << 20))].into(), ..Default::default() };
    let big_env = attach(&|r| r.environment = Some(env.clone()));
    assert!(big_env.starts_with("environment is 31457") && big_env.ends_with("bytes encoded; at most 8192 are allowed (proto/codecbench/v1/limits.json)"), "{big_env}");
    assert!(attach(&|r| r.name = "w".repeat(300)).starts_with("name is 300 bytes; at most 256"));
    let mut failure = "é".repeat(2_621_440 / 2);
    clip(&mut failure, lim.max_failure_bytes);
    assert!(failure.len() <= lim.max_failure_bytes && failure.ends_with(" … [truncated: 2621440 bytes in all]"), "{}", &failure[failure.len() - 60..]);
    let mut refusals = vec![Refusal::default(); 1000];
    cap_refusals(&mut refusals);
    assert_eq!(refusals.len(), lim.max_refusals);
    assert!(refusals.last().unwrap().reason.contains("745 more refusals"));
}
