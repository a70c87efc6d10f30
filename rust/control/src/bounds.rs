//! Bounded input: every string and list control stores or relays has a limit (limits.json, read
//! by scenario::limits and by the harness's validate), checked where it enters — StartRun, Attach,
//! ReportResult — with an error naming the field and the limit. Failure messages are truncated
//! with a marker instead (a worker's failure must still end its task). Together the limits keep
//! every reply within 4 MiB (the tests below build the largest accepted inputs and measure).
use crate::scenario::limits;
use codecbench_proto::v1::{AttachRequest, Refusal, ReportResultRequest, Run, Scenario};
use prost::Message;

/// Where the limits are declared, for the messages.
const SOURCE: &str = "proto/codecbench/v1/limits.json";

fn too_long(what: &str, len: usize, max: usize) -> String {
    format!("{what} is {len} bytes; at most {max} are allowed ({SOURCE})")
}

fn too_many(what: &str, len: usize, max: usize) -> String {
    format!("{what} has {len} items; at most {max} are allowed ({SOURCE})")
}

fn string(what: &str, s: &str, max: usize) -> Result<(), String> {
    if s.len() > max { Err(too_long(what, s.len(), max)) } else { Ok(()) }
}

fn list<T>(what: &str, items: &[T], max: usize) -> Result<(), String> {
    if items.len() > max { Err(too_many(what, items.len(), max)) } else { Ok(()) }
}

/// A list of short strings: its length and each item's.
fn names(what: &str, items: &[String], max: usize) -> Result<(), String> {
    list(what, items, max)?;
    for (i, item) in items.iter().enumerate() {
        string(&format!("{what} item {}", i + 1), item, limits().max_id_bytes)?;
    }
    Ok(())
}

/// A scenario as StartRun receives it (`source` names its file), before anything is planned.
pub fn check_scenario(s: &Scenario, source: &str) -> Result<(), String> {
    let lim = limits();
    string("source", source, lim.max_path_bytes)?;
    string("name", &s.name, lim.max_name_bytes)?;
    string("description", &s.description, lim.max_description_bytes)?;
    for (what, items) in [("datasets", &s.datasets), ("codecs", &s.codecs), ("decodeModes", &s.decode_modes),
        ("producers", &s.producers), ("consumers", &s.consumers), ("compressions", &s.compressions)] {
        names(what, items, lim.max_list_items)?;
    }
    list("counts", &s.counts, lim.max_list_items)?;
    list("operations", &s.operations, lim.max_list_items)?;
    if let Some(n) = &s.network {
        string("network.profile", &n.profile, lim.max_id_bytes)?;
    }
    list("userDatasets", &s.user_datasets, lim.max_list_items)?;
    for (i, u) in s.user_datasets.iter().enumerate() {
        let at = |f: &str| format!("userDatasets item {} {f}", i + 1);
        for (f, v) in [("id", &u.id), ("message", &u.message), ("fingerprint", &u.fingerprint), ("recordsBlobId", &u.records_blob_id), ("fieldNames", &u.field_names)] {
            string(&at(f), v, lim.max_id_bytes)?;
        }
        string(&at("proto"), &u.proto, lim.max_path_bytes)?;
        string(&at("records"), &u.records, lim.max_path_bytes)?;
        names(&at("lazyFields"), &u.lazy_fields, lim.max_list_items)?;
    }
    let len = s.encoded_len();
    if len > lim.max_scenario_bytes {
        return Err(format!("the scenario is {len} bytes encoded; at most {} are allowed ({SOURCE})", lim.max_scenario_bytes));
    }
    Ok(())
}

/// An AttachRequest: the name, the environment, every list, and the whole.
pub fn check_attach(req: &AttachRequest) -> Result<(), String> {
    let lim = limits();
    string("name", &req.name, lim.max_name_bytes)?;
    if let Some(env) = &req.environment {
        string("environment.language", &env.language, lim.max_id_bytes)?;
        list("environment.details", &env.details.iter().collect::<Vec<_>>(), lim.max_attach_list_items)?;
        let len = env.encoded_len();
        if len > lim.max_environment_bytes {
            return Err(format!("environment is {len} bytes encoded; at most {} are allowed ({SOURCE})", lim.max_environment_bytes));
        }
    }
    list("codecs", &req.codecs, lim.max_attach_list_items)?;
    for c in &req.codecs {
        string("a codec's id", &c.id, lim.max_id_bytes)?;
        names(&format!("codec {} decodeModes", c.id), &c.decode_modes, lim.max_attach_list_items)?;
        list(&format!("codec {} timedRegions", c.id), &c.timed_regions, lim.max_attach_list_items)?;
        for r in &c.timed_regions {
            names(&format!("codec {} timed region {} contains", c.id, r.operation), &r.contains, lim.max_attach_list_items)?;
        }
    }
    names("compressions", &req.compressions, lim.max_attach_list_items)?;
    list("datasets", &req.datasets, lim.max_attach_list_items)?;
    for d in &req.datasets {
        string("a dataset's id", &d.id, lim.max_id_bytes)?;
        list(&format!("dataset {} refused", d.id), &d.refused, lim.max_attach_list_items)?;
        for r in &d.refused {
            string(&format!("dataset {} codec {} refusal reason", d.id, r.codec), &r.reason, lim.max_reason_bytes)?;
        }
    }
    let len = req.encoded_len();
    if len > lim.max_attach_bytes {
        return Err(format!("the attach request is {len} bytes encoded; at most {} are allowed ({SOURCE})", lim.max_attach_bytes));
    }
    Ok(())
}

/// Cuts `s` to at most `max` bytes (on a character boundary), ending with a marker that says so.
pub fn clip(s: &mut String, max: usize) {
    if s.len() <= max {
        return;
    }
    let marker = format!(" … [truncated: {} bytes in all]", s.len());
    let mut keep = max.saturating_sub(marker.len());
    while !s.is_char_boundary(keep) {
        keep -= 1;
    }
    s.truncate(keep);
    s.push_str(&marker);
}

/// A worker's report, its failure messages truncated; refused past the measurement count, an
/// environment's size or the whole report's size.
pub fn clip_report(req: &mut ReportResultRequest) -> Result<(), String> {
    let lim = limits();
    clip(&mut req.failure, lim.max_failure_bytes);
    list("measurements", &req.measurements, lim.max_measurements_per_report)?;
    for m in &mut req.measurements {
        clip(&mut m.failure, lim.max_failure_bytes);
        if let Some(len) = m.environment.as_ref().map(Message::encoded_len).filter(|&n| n > lim.max_environment_bytes) {
            return Err(format!("a measurement's environment is {len} bytes encoded; at most {} are allowed ({SOURCE})", lim.max_environment_bytes));
        }
    }
    let len = req.encoded_len();
    if len > lim.max_report_bytes {
        return Err(format!("the report is {len} bytes encoded; at most {} are allowed ({SOURCE})", lim.max_report_bytes));
    }
    Ok(())
}

/// A run keeps at most max_refusals refusals, the last one saying how many were left out.
pub fn cap_refusals(refusals: &mut Vec<Refusal>) {
    let lim = limits();
    for r in refusals.iter_mut() {
        clip(&mut r.reason, lim.max_reason_bytes);
    }
    if refusals.len() > lim.max_refusals {
        let left = refusals.len() - (lim.max_refusals - 1);
        refusals.truncate(lim.max_refusals - 1);
        refusals.push(Refusal { reason: format!("… and {left} more refusals, left out: a run keeps at most {}", lim.max_refusals), ..Default::default() });
    }
}

/// The newest runs that fit in `budget` encoded bytes (one at least): ListRuns has no pages.
pub fn runs_within(runs: Vec<Run>, budget: usize) -> Vec<Run> {
    let mut size = 0;
    let mut out = vec![];
    for run in runs {
        size += run.encoded_len() + 6;
        if !out.is_empty() && size > budget {
            break;
        }
        out.push(run);
    }
    out
}

#[cfg(test)]
#[path = "bounds_tests.rs"]
mod tests;
