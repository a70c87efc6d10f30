//! Duet measurement (Sampling.duets; docs/DESIGN.md "Duets"). On a shared machine the speed of a
//! core drifts over seconds, so two cells measured minutes apart see different machines, and the
//! ratio of their medians carries that drift. A duet runs trial k of two cells at the same moment,
//! each on its own worker and in its own lane, so both see the same interference, and their ratio
//! is judged trial by trial (Bulej et al., "Duet benchmarking", ICPE 2020).
//!
//! Planned here: for every comparison a verdict makes in one language (each codec against the
//! baseline, json when named, else the first codec; and the baseline against itself, the A/A duet),
//! per dataset, count, operation and decode mode, copies of the two cells, the baseline's on the
//! language's first worker and the other's on its second. Decode duets read the first worker's
//! payloads. The copies are cells of their own (ids ending in `~duet:<partner codec>`), so the
//! run's ordinary cells are still measured alone, as before. Dispatch (state.rs) starts both tasks
//! of trial k together, or neither.
use crate::scenario::{Cell, WorkerView};
use codecbench_proto::v1::Operation;

/// Marks a duet copy's cell id; what follows names the partner's codec.
pub const DUET_SUFFIX: &str = "~duet:";

/// The baseline codec of the verdict's comparisons (leaderboard.py's `verdict`).
pub fn baseline(codecs: &[String]) -> Option<&str> {
    codecs.iter().find(|c| *c == "json").or(codecs.first()).map(String::as_str)
}

/// The duet copies of `cells` (ordinary cells, already planned), two per comparison.
pub(crate) fn plan(cells: &[Cell], codecs: &[String], workers: &[&WorkerView]) -> Result<Vec<Cell>, String> {
    let Some(base) = baseline(codecs) else { return Ok(vec![]) };
    // The first two workers of each language, in the order they were selected.
    let mut pairs: Vec<(&str, &str)> = vec![];
    let mut languages: Vec<&str> = vec![];
    for w in workers {
        if languages.contains(&w.language.as_str()) {
            continue;
        }
        languages.push(&w.language);
        let of: Vec<&str> = workers.iter().filter(|x| x.language == w.language).map(|x| x.id.as_str()).collect();
        if of.len() >= 2 {
            pairs.push((of[0], of[1]));
        }
    }
    if pairs.is_empty() {
        return Err("sampling.duets: no language has two workers selected (a duet runs on two workers of one language: \
                    attach a second one, e.g. `codecbench browser` for another page, or another codecbench-worker or \
                    Java worker with --control)".into());
    }
    let find = |op: Operation, dataset: &str, count: u32, codec: &str, mode: &str, producer: &str, consumer: &str| {
        cells.iter().find(|c| {
            !c.aa_twin && c.payload_codec.is_empty() && c.op == op && c.dataset == dataset && c.count == count && c.codec == codec && c.mode == mode
                && c.producer == producer && c.consumer == consumer
        })
    };
    let mut out = vec![];
    let copy = |c: &Cell, partner: &str, duet: &str| Cell {
        id: format!("{}{DUET_SUFFIX}{partner}", c.id),
        measure_transfer: false,
        compressions: vec![],
        duet: duet.to_string(),
        ..c.clone()
    };
    for &(w1, w2) in &pairs {
        // Each slot a verdict compares within: the baseline's cell on w1 is its left side.
        for left in cells.iter().filter(|c| !c.aa_twin && c.payload_codec.is_empty() && c.codec == base) {
            let (producer, consumer) = match left.op {
                Operation::Encode if left.producer == w1 => (w2, ""),
                Operation::Decode if left.producer == w1 && left.consumer == w1 => (w1, w2),
                _ => continue,
            };
            for codec in codecs {
                let Some(right) = find(left.op, &left.dataset, left.count, codec, &left.mode, producer, consumer) else { continue };
                let duet = format!("{}|{}", left.id, right.id);
                out.push(copy(left, codec, &duet));
                out.push(copy(right, base, &duet));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{plan as plan_run, tests::worker};
    use codecbench_proto::v1::{Sampling, Scenario};

    fn scenario(duets: bool) -> Scenario {
        Scenario {
            datasets: vec!["dummy".into()], codecs: vec!["protobuf".into(), "json".into()], counts: vec![10],
            decode_modes: vec!["typed".into()], operations: vec![Operation::Encode as i32, Operation::Decode as i32],
            sampling: Some(Sampling { trials: 3, duets, ..Default::default() }), ..Default::default()
        }
    }

    #[test]
    fn every_comparison_with_the_baseline_and_the_aa_duet_get_two_copies_on_two_workers() {
        let codecs: &[(&str, &[&str])] = &[("json", &["typed"]), ("protobuf", &["typed"])];
        let ws = [worker("rust-1", "rust", codecs), worker("rust-2", "rust", codecs), worker("java-1", "java", codecs)];
        let (_, tasks) = plan_run("r", &scenario(true), &ws).unwrap();
        let mut duets: Vec<(&str, &str)> = tasks.iter().filter(|t| !t.summary.duet.is_empty() && t.summary.trial == 0)
            .map(|t| (t.summary.duet.as_str(), t.summary.cell_id.as_str())).collect();
        duets.sort();
        let want = [
            ("decode/dummy/10/json/typed/rust-1>rust-1|decode/dummy/10/json/typed/rust-1>rust-2", "decode/dummy/10/json/typed/rust-1>rust-1~duet:json"),
            ("decode/dummy/10/json/typed/rust-1>rust-1|decode/dummy/10/json/typed/rust-1>rust-2", "decode/dummy/10/json/typed/rust-1>rust-2~duet:json"),
            ("decode/dummy/10/json/typed/rust-1>rust-1|decode/dummy/10/protobuf/typed/rust-1>rust-2", "decode/dummy/10/json/typed/rust-1>rust-1~duet:protobuf"),
            ("decode/dummy/10/json/typed/rust-1>rust-1|decode/dummy/10/protobuf/typed/rust-1>rust-2", "decode/dummy/10/protobuf/typed/rust-1>rust-2~duet:json"),
            ("encode/dummy/10/json/rust-1|encode/dummy/10/json/rust-2", "encode/dummy/10/json/rust-1~duet:json"),
            ("encode/dummy/10/json/rust-1|encode/dummy/10/json/rust-2", "encode/dummy/10/json/rust-2~duet:json"),
            ("encode/dummy/10/json/rust-1|encode/dummy/10/protobuf/rust-2", "encode/dummy/10/json/rust-1~duet:protobuf"),
            ("encode/dummy/10/json/rust-1|encode/dummy/10/protobuf/rust-2", "encode/dummy/10/protobuf/rust-2~duet:json"),
        ];
        assert_eq!(duets, want);
        // Every duet task has its partner in the same trial; copies time no transfer and get no
        // prepare task of their own (decode copies read the ordinary cell's payload).
        for t in tasks.iter().filter(|t| !t.summary.duet.is_empty()) {
            let partners = tasks.iter().filter(|u| u.summary.duet == t.summary.duet && u.summary.trial == t.summary.trial).count();
            assert_eq!(partners, 2, "{}", t.summary.cell_id);
            assert!(!t.summary.prepare && !t.task.measure_transfer);
            assert_eq!(t.depends_on.is_some(), t.summary.operation() == Operation::Decode);
        }
        assert_eq!(tasks.iter().filter(|t| !t.summary.duet.is_empty()).count(), 8 * 3);
        // Without duets, no copies.
        let (_, plain) = plan_run("r", &scenario(false), &ws).unwrap();
        assert!(plain.iter().all(|t| t.summary.duet.is_empty()));
        assert_eq!(plain.len() + 8 * 3, tasks.len());
    }

    #[test]
    fn duets_without_two_workers_of_a_language_are_refused() {
        let codecs: &[(&str, &[&str])] = &[("json", &["typed"]), ("protobuf", &["typed"])];
        let ws = [worker("rust-1", "rust", codecs), worker("java-1", "java", codecs)];
        let e = plan_run("r", &scenario(true), &ws).err().unwrap();
        assert!(e.starts_with("sampling.duets: no language has two workers selected"), "{e}");
    }
}
