//! What the peer-suite and fuzz tests share: calling a codec's decode entry points (the ones the
//! worker's trial calls: `decode`, `decode_tree` + `Tree::into_records`, `decode_lazy`,
//! `decode_streaming`) so that a panic or a slow case is a test failure that names the input,
//! never a dead test binary.
#![allow(dead_code)]
use codecbench_codecs::{Codec, CodecError, LAZY, STREAMING, TREE, TYPED};
use codecbench_datasets::lazy_fields;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// One decode of a few KiB takes microseconds; a second means a hang in the making (the bound is
/// loose because the 2-core machine is shared with other test suites).
pub const CASE_LIMIT: Duration = Duration::from_secs(2);

/// How one call of an entry point ended, when it ended cleanly.
pub type Outcome = Result<(), CodecError>;

/// Runs `f`, turning a panic or a call slower than [`CASE_LIMIT`] into `Err(what went wrong)`;
/// an error of the codec must carry a message.
pub fn clean<T>(f: impl FnOnce() -> Result<T, CodecError>) -> Result<Result<T, CodecError>, String> {
    let start = Instant::now();
    let got = catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
        format!("panicked: {}", msg.unwrap_or_else(|| "(no message)".into()))
    })?;
    let took = start.elapsed();
    if took > CASE_LIMIT {
        return Err(format!("took {took:?} (limit {CASE_LIMIT:?})"));
    }
    if let Err(e) = &got {
        if e.0.is_empty() {
            return Err("failed with an empty message".into());
        }
    }
    Ok(got)
}

/// The entry point of `mode`, as the worker's trial calls it for `dataset`'s payload: typed decode
/// into the dataset's records; tree decode and then its conversion to records (the trial's
/// verification, outside the timed region but in the same process); lazy reads of `fields`
/// (the dataset's lazy fields when `None`).
pub fn decode_mode(codec: &dyn Codec, mode: &str, dataset: &str, bytes: &[u8], fields: Option<&[&str]>) -> Result<Outcome, String> {
    // The trial admits a payload once before any mode decodes it (Codec::admit).
    match clean(|| codec.admit(bytes))? {
        Ok(()) => {}
        Err(e) => return Ok(Err(e)),
    }
    match mode {
        TYPED => clean(|| codec.decode(dataset, bytes).map(drop)),
        TREE => {
            let tree = clean(|| codec.decode_tree(bytes))?;
            match tree {
                Ok(tree) => clean(|| tree.into_records(dataset).map(drop)).map(|_| Ok(())),
                Err(e) => Ok(Err(e)),
            }
        }
        LAZY => {
            let fields = fields.unwrap_or_else(|| lazy_fields(dataset).expect("a known dataset"));
            clean(|| {
                let mut sink = 0usize;
                codec.decode_lazy(dataset, bytes, fields, &mut |_, v| sink = sink.wrapping_add(v.len()))
            })
        }
        STREAMING => clean(|| codec.decode_streaming(dataset, &mut std::io::BufReader::with_capacity(64, bytes), &mut drop).map(drop)),
        other => panic!("unknown decode mode {other}"),
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Prints past libtest's output capture (it captures `print!`/`eprint!`, not direct writes), so
/// the case counts show in every `cargo test` run.
pub fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
