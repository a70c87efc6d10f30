//! Replicas (Sampling.replicas, docs/DESIGN.md "Hosts"): the selected workers of one language are
//! the same worker on several hosts. Cells are planned once per language, named by its first
//! selected worker (the primary), and each cell's trials are spread over the language's replicas,
//! so a run with R replicas per language takes about 1/R of the time when each replica's host has
//! lanes of its own (control's `--lanes-per-host`). Which replica ran a trial is a block of the
//! design, like the pass; the harness estimates each replica's effect and takes it out.
use crate::scenario::WorkerView;
use std::collections::HashMap;

/// The replicas of every selected language and where each cell's trials go.
#[derive(Default)]
pub struct Replicas {
    /// language → its selected workers, the primary first.
    of_language: HashMap<String, Vec<String>>,
    /// worker id → language.
    language: HashMap<String, String>,
}

impl Replicas {
    /// Keeps the first selected worker of each language as producer and consumer (in the order
    /// they were selected) and makes every selected worker of that language one of its replicas.
    /// Replicas must offer what their primary offers, or trials of one cell would measure
    /// different things.
    pub fn choose<'a>(producers: &[&'a WorkerView], consumers: &[&'a WorkerView]) -> Result<(Vec<&'a WorkerView>, Vec<&'a WorkerView>, Replicas), String> {
        let mut r = Replicas::default();
        let mut primary: HashMap<String, &WorkerView> = HashMap::new();
        for w in producers.iter().chain(consumers.iter()) {
            let ids = r.of_language.entry(w.language.clone()).or_default();
            if ids.contains(&w.id) {
                continue;
            }
            ids.push(w.id.clone());
            r.language.insert(w.id.clone(), w.language.clone());
            let first = *primary.entry(w.language.clone()).or_insert(w);
            if let Some(why) = differs(first, w) {
                return Err(format!("sampling.replicas: worker {} [{}] is not a replica of {}: {why} (replicas must be the same build)", w.id, w.language, first.id));
            }
        }
        let keep = |ws: &[&'a WorkerView]| -> Vec<&'a WorkerView> {
            let mut out: Vec<&WorkerView> = vec![];
            for w in ws {
                let p = primary[&w.language];
                if !out.iter().any(|o| o.id == p.id) {
                    out.push(p);
                }
            }
            out
        };
        Ok((keep(producers), keep(consumers), r))
    }

    /// The worker that runs trial `trial` of the `cell`-th cell that `named` (its producer for
    /// encode, its consumer for decode) runs for one operation: replica (trial + cell) mod R, so
    /// each pass spreads those cells evenly and each cell meets every replica as often as its
    /// trials allow.
    pub fn runner(&self, named: &str, cell: usize, trial: u32) -> String {
        match self.language.get(named).and_then(|l| self.of_language.get(l)) {
            Some(ids) if !ids.is_empty() => ids[(cell + trial as usize) % ids.len()].clone(),
            _ => named.to_string(),
        }
    }

    /// The replica among `used` (the workers a cell's trials ran on so far) with the fewest
    /// trials: where an adaptive trial of that cell goes.
    pub fn least_used(used: &[&str]) -> Option<String> {
        let mut counts: Vec<(&str, usize)> = vec![];
        for &w in used.iter().filter(|w| !w.is_empty()) {
            match counts.iter_mut().find(|(x, _)| *x == w) {
                Some((_, n)) => *n += 1,
                None => counts.push((w, 1)),
            }
        }
        counts.iter().min_by_key(|(_, n)| *n).map(|(w, _)| w.to_string())
    }
}

/// Each cell's place among the cells its worker (producer for encode, consumer for decode) runs
/// for the same operation, given (that worker, operation) per cell in plan order: `runner`
/// alternates replicas along it, so each pass splits every worker's encode (and decode) cells
/// evenly (a run-wide index would put, e.g., every Java encode cell of a pass on one replica when
/// the cells between them come in even numbers, and replica and pass would be one).
pub fn ordinals<'a>(cells: impl Iterator<Item = (&'a String, i32)>) -> Vec<usize> {
    let mut seen: HashMap<(&String, i32), usize> = HashMap::new();
    cells.map(|key| {
        let n = seen.entry(key).or_default();
        *n += 1;
        *n - 1
    }).collect()
}

/// Why `w` would not measure what `primary` measures: another codec list, modes, library
/// version, datasets or compressions.
fn differs(primary: &WorkerView, w: &WorkerView) -> Option<String> {
    let codecs = |v: &WorkerView| -> Vec<String> {
        let mut c: Vec<String> = v.codecs.iter().map(|c| format!("{} {} {} [{}]", c.id, c.library, c.library_version, c.decode_modes.join(","))).collect();
        c.sort();
        c
    };
    if codecs(primary) != codecs(w) {
        return Some(format!("it offers {}, the primary {}", codecs(w).join("; "), codecs(primary).join("; ")));
    }
    let datasets = |v: &WorkerView| -> Vec<String> {
        let mut d: Vec<String> = v.datasets.iter().map(|d| format!("{} {}", d.id, d.fingerprint)).collect();
        d.sort();
        d
    };
    if datasets(primary) != datasets(w) {
        return Some("it carries other datasets or schemas".into());
    }
    if primary.compressions != w.compressions {
        return Some(format!("it offers compressions [{}], the primary [{}]", w.compressions.join(", "), primary.compressions.join(", ")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::worker;

    #[test]
    fn the_first_worker_of_a_language_names_its_cells_and_trials_rotate_over_its_replicas() {
        let codecs: &[(&str, &[&str])] = &[("json", &["typed"])];
        let (r1, r2, j1) = (worker("rust-1", "rust", codecs), worker("rust-2", "rust", codecs), worker("java-1", "java", codecs));
        let all = [&r1, &j1, &r2];
        let (p, c, r) = Replicas::choose(&all, &all).unwrap();
        assert_eq!(p.iter().map(|w| w.id.as_str()).collect::<Vec<_>>(), ["rust-1", "java-1"]);
        assert_eq!(c.iter().map(|w| w.id.as_str()).collect::<Vec<_>>(), ["rust-1", "java-1"]);
        // Cell 0: trials 0, 1, 2 on rust-1, rust-2, rust-1; cell 1 starts on rust-2.
        let runs: Vec<String> = (0..3).map(|t| r.runner("rust-1", 0, t)).collect();
        assert_eq!(runs, ["rust-1", "rust-2", "rust-1"]);
        assert_eq!(r.runner("rust-1", 1, 0), "rust-2");
        assert_eq!(r.runner("java-1", 1, 0), "java-1", "one replica: the worker itself");
        assert_eq!(Replicas::least_used(&["rust-1", "rust-2", "rust-1"]).as_deref(), Some("rust-2"));
    }

    #[test]
    fn a_replica_that_offers_something_else_is_refused_by_name() {
        let (r1, r2) = (worker("rust-1", "rust", &[("json", &["typed"])]), worker("rust-2", "rust", &[("json", &["typed", "tree"])]));
        let e = Replicas::choose(&[&r1, &r2], &[&r1, &r2]).err().unwrap();
        assert!(e.starts_with("sampling.replicas: worker rust-2 [rust] is not a replica of rust-1: it offers json"), "{e}");
    }
}
