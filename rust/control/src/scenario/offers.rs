//! What the attached workers offer a plan, and what they refuse: each worker's view (codecs,
//! compressions, datasets), the selection of producers and consumers, the datasets every selected
//! worker must carry, and the refusals a run records. A child of scenario.rs.
use super::*;

/// An attached worker as planning sees it: what it offers and carries.
pub struct WorkerView {
    pub id: String,
    pub name: String,
    pub language: String,
    pub codecs: Vec<CodecInfo>,
    /// Compressions it can time a transfer leg with besides identity (AttachRequest.compressions).
    pub compressions: Vec<String>,
    /// The datasets it carries, with their schema fingerprints (AttachRequest.datasets).
    pub datasets: Vec<DatasetInfo>,
}

impl WorkerView {
    pub(super) fn codec(&self, id: &str) -> Option<&CodecInfo> {
        self.codecs.iter().find(|c| c.id == id)
    }

    pub(super) fn offers_compression(&self, c: &str) -> bool {
        c == IDENTITY || self.compressions.iter().any(|x| x == c)
    }

    /// The scenario's compressions this worker can time its transfer legs with, in their order.
    pub(super) fn compressions_of(&self, asked: &[String]) -> Vec<String> {
        asked.iter().filter(|c| self.offers_compression(c)).cloned().collect()
    }
}

pub(super) fn select<'a>(role: &str, selectors: &[String], workers: &'a [WorkerView]) -> Result<Vec<&'a WorkerView>, String> {
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

pub(super) fn describe(workers: &[WorkerView]) -> String {
    if workers.is_empty() {
        return "none".into();
    }
    workers.iter().map(|w| format!("{} [{}]", w.id, w.language)).collect::<Vec<_>>().join(", ")
}

/// Every selected worker must carry every dataset of the run, built from the schema control
/// generates the canonical data from (the same fingerprint): a worker that lacks one, or reads it
/// with another schema, would fail every task of it at run time, or misread the records.
pub(super) fn check_datasets<'a>(s: &Scenario, selected: impl Iterator<Item = &'a WorkerView>) -> Result<(), String> {
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for w in selected.filter(|w| seen.insert(w.id.as_str())) {
        for d in &s.datasets {
            // (message, fingerprint, field names) as control knows them.
            let ours = match (codecbench_datasets::spec(d), user_datasets::find(s, d)) {
                (Some(b), _) => (b.message, b.fingerprint, "json"),
                (None, Some(u)) => (u.message.as_str(), u.fingerprint.as_str(), user_datasets::field_names(u)),
                (None, None) => continue,
            };
            match w.datasets.iter().find(|x| x.id == *d) {
                None => {
                    let carried: Vec<_> = w.datasets.iter().map(|x| x.id.as_str()).collect();
                    let carried = if carried.is_empty() { "none announced".to_string() } else { carried.join(", ") };
                    let hint = if user_datasets::find(s, d).is_some() { " (a worker carries a user dataset when started with its schema: `codecbench run --local` builds and starts them)" } else { "" };
                    problems.push(format!("worker {} [{}] does not carry dataset {d:?} (it carries: {carried}){hint}", w.id, w.language));
                }
                Some(x) if x.fingerprint != ours.1 => problems.push(format!(
                    "worker {} [{}] carries dataset {d:?} ({}) with schema fingerprint {}, control's is {} ({}): they were built from different .proto files",
                    w.id, w.language, x.message, x.fingerprint, ours.1, ours.0,
                )),
                Some(x) if (if x.field_names.is_empty() { "json" } else { x.field_names.as_str() }) != ours.2 => problems.push(format!(
                    "worker {} [{}] names dataset {d:?}'s fields by their {} names, the scenario by their {} names",
                    w.id, w.language, if x.field_names.is_empty() { "json" } else { &x.field_names }, ours.2,
                )),
                Some(_) => {}
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(format!("datasets: {}", problems.join("; "))) }
}

/// The lazy fields of `dataset`: a built-in's from its options, a user's from the scenario.
pub(super) fn lazy_fields_of(s: &Scenario, dataset: &str) -> Vec<String> {
    match user_datasets::find(s, dataset) {
        Some(u) => u.lazy_fields.clone(),
        None => lazy_fields(dataset).unwrap_or_default().iter().map(|f| f.to_string()).collect(),
    }
}

/// Why `w` does not run `codec` on `dataset` in `mode` ("" for an in-memory encode), when it
/// refuses (DatasetInfo.refused); a lazy decode of a dataset with no lazy fields is refused by
/// control itself.
pub(super) fn refusal(s: &Scenario, w: &WorkerView, dataset: &str, codec: &str, mode: &str) -> Option<Refusal> {
    if mode == "lazy" && lazy_fields_of(s, dataset).is_empty() {
        return Some(Refusal {
            dataset: dataset.into(), codec: codec.into(), decode_mode: mode.into(), worker_id: String::new(),
            reason: format!("{codec}: lazy: dataset {dataset} names no lazy fields (lazyFields in the scenario)"),
        });
    }
    let info = w.datasets.iter().find(|d| d.id == dataset)?;
    let r = info.refused.iter().find(|r| r.codec == codec && (r.decode_mode.is_empty() || r.decode_mode == mode))?;
    Some(Refusal { dataset: dataset.into(), worker_id: w.id.clone(), ..r.clone() })
}

/// Every cell the plan of `s` (with its defaults) leaves out because a worker refused it, once per
/// (dataset, codec, mode, worker): what the run records (Run.refusals) for the report.
pub fn refusals(s: &Scenario, workers: &[WorkerView]) -> Vec<Refusal> {
    let (Ok(producers), Ok(consumers)) = (select("producer", &s.producers, workers), select("consumer", &s.consumers, workers)) else {
        return vec![];
    };
    let mut out: Vec<Refusal> = vec![];
    let mut push = |r: Option<Refusal>| {
        if let Some(r) = r.filter(|r| !out.contains(r)) {
            out.push(r);
        }
    };
    for dataset in &s.datasets {
        for codec in &s.codecs {
            for p in producers.iter().filter(|w| w.codec(codec).is_some()) {
                push(refusal(s, p, dataset, codec, ""));
            }
            for c in &consumers {
                let Some(info) = c.codec(codec) else { continue };
                for m in info.decode_modes.iter().filter(|m| s.decode_modes.is_empty() || s.decode_modes.contains(m)) {
                    push(refusal(s, c, dataset, codec, m));
                }
            }
        }
    }
    out
}

/// The scenario's codecs with each `<format>/*` replaced by every implementation of the format that
/// a selected worker offers (the reference implementation first, then the others by id), so the
/// run's scenario records the implementations it ran; a codec named twice counts once.
pub(super) fn every_implementation<'a>(codecs: &[String], workers: impl Iterator<Item = &'a WorkerView> + Clone) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for c in codecs {
        let Some(format) = c.strip_suffix("/*") else {
            out.push(c.clone());
            continue;
        };
        let mut ids: Vec<&str> = workers.clone().flat_map(|w| w.codecs.iter().map(|i| i.id.as_str())).filter(|id| super::format_of(id) == format).collect();
        ids.sort_by_key(|id| (*id != format, *id));
        ids.dedup();
        if ids.is_empty() {
            return Err(format!("codecs: {c} names every implementation of format {format:?}, and no selected worker offers one"));
        }
        out.extend(ids.into_iter().map(String::from));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|x| seen.insert(x.clone()));
    Ok(out)
}
