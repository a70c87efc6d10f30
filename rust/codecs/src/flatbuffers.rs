//! `flatbuffers`: the `flatbuffers` crate (25.12.19, the runtime of flatc 25.12.19's generated Rust,
//! `make flatc`) on the schema `flatc --proto` makes of proto/codecbench/v1/datasets.proto,
//! generated at build time (rust/codecs/build.rs, never committed). Java and the browser generate
//! with flatc 2.0.8 (their runtimes' own); both flatcs make the same schema of datasets.proto, and
//! the golden vectors hold every language to the same bytes. The payload is the dataset's `*Dataset` table as the
//! root, finished without a file identifier (proto/README.md).
//!
//! The native model is the prost types; flatc's types are views over a buffer. build.rs also
//! generates the mapping between the two from the contract's descriptors (nothing per dataset in
//! this file): per message a `write_X` calling flatc's builders (`create_string`, `create_vector`,
//! `X::create(&mut fbb, &XArgs { .. })`), a `read_X` calling flatc's accessors, and a `lazy_X`
//! resolving a dotted path of proto JSON names to a getter over the accessors, i.e. the code a
//! Rust application writes by hand against flatc's output.
//!
//! - encode: a fresh `FlatBufferBuilder` per call (its default capacity), every string and vector
//!   written even when empty, a message field written when set; `finished_data().to_vec()` (the
//!   builder owns the buffer, so the payload is a copy out of it).
//! - typed: `flatbuffers::root_with_opts` verifies the whole buffer (offsets, lengths, alignment,
//!   UTF-8, nesting) before anything is read, then the prost records are built from the accessors;
//!   an absent string or vector reads as "" / empty, an absent table as the unset message.
//! - lazy: the same verification, then for every record each field is read through the accessors
//!   of the buffer in place, nothing materialised; integers in decimal.
//!
//! Hostile input never reaches an accessor unverified: a length or offset past the buffer is the
//! verifier's error before anything is allocated. Its default apparent-size limit (2 GiB) would
//! still let a few KiB whose offsets all share one table expand into gigabytes of records, so the
//! limit is scaled to the payload (`apparent_size_limit`): builders write each object once.
//! FlatBuffers has no end marker (a buffer is what its root reaches), so bytes after the last
//! object are not an error, as in every FlatBuffers library.
use crate::{Codec, CodecError, CodecMeta, Region, LAZY, TYPED};
use codecbench_datasets::Records;
use flatbuffers::{FlatBufferBuilder, Follow, ForwardsUOffset, InvalidFlatbuffer, Vector, VerifierOptions};

/// flatc's Rust for datasets.fbs.
#[allow(unused_imports, clippy::all)]
pub(crate) mod fbs {
    include!(concat!(env!("OUT_DIR"), "/datasets_generated.rs"));
}

/// The model <-> table mapping build.rs writes from the descriptors.
#[allow(non_snake_case, non_upper_case_globals, clippy::all)]
mod mapping {
    include!(concat!(env!("OUT_DIR"), "/flatbuffers_mapping.rs"));
}

/// flatc's types of the contract's namespace (tests read payloads through them).
#[cfg(test)]
pub(crate) use mapping::fb;

pub struct Flatbuffers;

impl Codec for Flatbuffers {
    fn meta(&self) -> CodecMeta {
        CodecMeta::of(
            "flatbuffers",
            "schema = flatc 25.12.19 --proto of datasets.proto (the same schema flatc 2.0.8 makes); payload = the *Dataset table as root, no file identifier; \
                    model <-> tables through flatc's builders and accessors (mapping generated at build time from the descriptors)",
            &[
                Region {
                    operation: "encode",
                    contains: &["model-conversion", "serialize", "copy"],
                    note: "a fresh FlatBufferBuilder per encode, the prost records written through flatc's builders, \
                           finished_data() copied into an owned Vec",
                },
                Region {
                    operation: TYPED,
                    contains: &["validation", "parse", "model-conversion"],
                    note: "flatbuffers::root verifies the whole buffer, then the prost records are built from flatc's accessors",
                },
                Region {
                    operation: LAZY,
                    contains: &["validation", "field-lookup"],
                    note: "flatbuffers::root verifies the whole buffer (the crate's only safe entry), then each field is read \
                           through flatc's accessors in place; paths resolved once per call; integers formatted with itoa",
                },
            ],
        )
    }

    fn refusal(&self, dataset: &codecbench_datasets::DatasetSpec) -> Option<String> {
        (!dataset.generated).then(|| USER_REFUSAL.to_string())
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        let mut fbb = FlatBufferBuilder::new();
        mapping::finish(&mut fbb, records);
        Ok(fbb.finished_data().to_vec())
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        mapping::read(dataset, bytes, &verifier_options(bytes))
    }

    fn decode_lazy(&self, dataset: &str, bytes: &[u8], fields: &[&str], visit: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError> {
        mapping::lazy(dataset, bytes, &verifier_options(bytes), fields, visit)
    }
}

/// Rust's flatbuffers code is flatc's, generated from datasets.proto when the crate is built; a
/// user's schema reaches this build as descriptors only (no .proto text for `flatc --proto`).
const USER_REFUSAL: &str = "flatbuffers: the Rust worker's flatbuffers code is generated by flatc from datasets.proto at build time; a user's schema is not offered";

// A user's record types are `FbRecords` only so the generated dispatch compiles: the codec refuses
// their datasets (`refusal`: never planned, and a trial checks it before timing), so none of these
// is reached.
macro_rules! refused_user_records {
    ($(($id:literal, $variant:ident, $record:ty, $list:ty)),* $(,)?) => {
        $(impl mapping::FbRecords for $record {
            fn finish(_: &mut FlatBufferBuilder<'_>, _: &[Self]) {}
            fn read(_: &[u8], _: &VerifierOptions) -> Result<Vec<Self>, CodecError> {
                Err(CodecError(USER_REFUSAL.into()))
            }
            fn lazy(_: &[u8], _: &VerifierOptions, _: &[&str], _: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError> {
                Err(CodecError(USER_REFUSAL.into()))
            }
        })*
    };
}
codecbench_proto::for_each_user_dataset!(refused_user_records);

/// How many times its own size a payload may expand to when the verifier follows every offset.
/// A builder writes each string and table once and shares only vtables (counted again for every
/// table using one), which keeps a real buffer near 1x (this project's datasets: 1.0-1.5x); a
/// writer sharing strings as well stays under 4x.
const APPARENT_SIZE_FACTOR: usize = 8;

fn apparent_size_limit(len: usize) -> usize {
    len.saturating_mul(APPARENT_SIZE_FACTOR).saturating_add(1024)
}

/// The library's defaults (depth 64, a million tables), with the apparent size scaled to `bytes`.
fn verifier_options(bytes: &[u8]) -> VerifierOptions {
    VerifierOptions { max_apparent_size: apparent_size_limit(bytes.len()), ..VerifierOptions::default() }
}

/// The verifier's error as one line: what is wrong, then where (its trace, innermost first).
fn invalid(e: InvalidFlatbuffer) -> CodecError {
    if let InvalidFlatbuffer::ApparentSizeTooLarge = e {
        return CodecError(format!(
            "invalid FlatBuffers payload: its offsets reach more than {APPARENT_SIZE_FACTOR} times its own size (objects shared to expand it)"
        ));
    }
    let text = e.to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let what = lines.next().unwrap_or_default().to_string();
    let trace: Vec<&str> = lines.collect();
    if trace.is_empty() {
        CodecError(format!("invalid FlatBuffers payload: {what}"))
    } else {
        CodecError(format!("invalid FlatBuffers payload: {what} ({})", trace.join("; ")))
    }
}

/// A lazy getter: reads its field of one record (a matrix row's item `index`) into `out`; false
/// when the record has no such item.
pub(crate) type Get<R> = fn(R, usize, &mut Out<'_>) -> bool;

/// A record type's path resolver (generated `lazy_X`): the getter of a path and the item index
/// it reads (0 but for a matrix row), or None.
type Resolve<R> = fn(&str) -> Option<(Get<R>, usize)>;

/// The lazy sink: the visitor, the index of the field being read, and scratch for number text.
pub(crate) struct Out<'v> {
    visit: &'v mut dyn FnMut(usize, &str),
    field: usize,
    digits: itoa::Buffer,
    text: String,
}

impl Out<'_> {
    fn str(&mut self, s: &str) {
        (self.visit)(self.field, s)
    }
    fn int<I: itoa::Integer>(&mut self, n: I) {
        (self.visit)(self.field, self.digits.format(n))
    }
    fn bool(&mut self, b: bool) {
        self.str(if b { "true" } else { "false" })
    }
    /// Shortest round-trip text (Rust's `Display` for floats).
    fn float(&mut self, x: impl std::fmt::Display) {
        use std::fmt::Write;
        self.text.clear();
        let _ = write!(self.text, "{x}");
        (self.visit)(self.field, &self.text)
    }
}

/// Reads `fields` of every record of `records` (resolved once through `resolve`; `kinds` names
/// every path of the record type, for the errors) and hands them to `visit`. An absent vector is
/// no records.
fn lazy_records<'a, R: Follow<'a, Inner = R> + Copy + 'a>(
    records: Option<Vector<'a, ForwardsUOffset<R>>>,
    resolve: Resolve<R>,
    kinds: &[(&str, &str)],
    fields: &[&str],
    visit: &mut dyn FnMut(usize, &str),
) -> Result<(), CodecError> {
    let Some(records) = records.filter(|r| !r.is_empty()) else { return Ok(()) };
    let getters = fields
        .iter()
        .map(|field| resolve(field).ok_or_else(|| CodecError(format!("record 0 {}", why_not(field, kinds)))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Out { visit, field: 0, digits: itoa::Buffer::new(), text: String::new() };
    for (i, record) in records.iter().enumerate() {
        for (f, &(get, item)) in getters.iter().enumerate() {
            out.field = f;
            if !get(record, item, &mut out) {
                return Err(CodecError(format!("record {i} has no field {:?}", fields[f])));
            }
        }
    }
    Ok(())
}

/// Why `path` is not a string or scalar of the record type whose paths are `kinds` (worded as the
/// bson codec's lazy errors, after "record N ").
fn why_not(path: &str, kinds: &[(&str, &str)]) -> String {
    let kind = |p: &str| kinds.iter().find(|(k, _)| *k == p).map(|(_, kind)| *kind);
    if kind("") == Some("cell index") {
        return format!("field {path:?}: {path:?} is not a cell index");
    }
    if let Some(k) = kind(path) {
        return format!("field {path:?} is a {k}, not a string or integer");
    }
    for (at, _) in path.rmatch_indices('.') {
        let head = &path[..at];
        match kind(head) {
            Some("table") => break,
            Some(k) => {
                let step = head.rsplit('.').next().unwrap_or(head);
                return format!("field {path:?}: {step:?} is a {k}, not a table");
            }
            None => {}
        }
    }
    format!("has no field {path:?}")
}
