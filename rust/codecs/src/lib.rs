//! Codec plugins of the Rust worker. A codec is one file behind the [`Codec`] trait, registered in
//! [`registry`]; the worker, control and harness learn about it from what the worker announces.
//!
//! Every codec encodes the same logical value, `{"records": [...]}` (proto/README.md), from the
//! Rust native model: the contract's dataset types, which derive serde with the wire names.
mod bson;
mod cbor;
mod flatbuffers;
mod json;
mod json_simd;
mod msgpack;
mod payload;
mod protobuf;
pub mod streaming;
pub mod ubjson;
pub mod vectors;
mod xml;

use codecbench_datasets::Records;
use std::any::Any;

// `self::`: a codec module named after its crate (bson, flatbuffers) would be ambiguous in a `use`.
pub use self::bson::Bson;
pub use cbor::Cbor;
pub use self::flatbuffers::Flatbuffers;
pub use json::Json;
pub use json_simd::SimdJson;
pub use msgpack::Msgpack;
pub use protobuf::Protobuf;
pub use ubjson::Ubjson;
pub use xml::Xml;

pub const TYPED: &str = "typed";
pub const TREE: &str = "tree";
pub const LAZY: &str = "lazy";
/// Offered by a codec that can also encode into a drained bounded buffer and decode record by
/// record from a reader (`encode_streaming` / `decode_streaming`).
pub const STREAMING: &str = "streaming";

/// A codec's own error message (the library's words), surfaced as the task's failure.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct CodecError(pub String);

impl CodecError {
    pub fn from_display(e: impl std::fmt::Display) -> Self {
        CodecError(e.to_string())
    }
}

/// What one timed region contains (proto `TimedRegion`; vocabulary in results.proto).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// `encode`, or a decode mode.
    pub operation: &'static str,
    pub contains: &'static [&'static str],
    pub note: &'static str,
}

mod catalogue {
    include!(concat!(env!("OUT_DIR"), "/catalogue.rs"));
}

/// codecs/catalogue.yaml's Rust implementations, in its order.
pub fn catalogue() -> &'static [CodecMeta] {
    catalogue::LISTED
}

/// The golden-vector file extension of a format (catalogue `fileExtension`: `bson`, `binpb`...).
pub fn file_extension(format: &str) -> Option<&'static str> {
    catalogue::EXTENSIONS.iter().find(|(f, _)| *f == format).map(|(_, e)| *e)
}

/// The format whose golden vectors have extension `ext`.
pub fn format_of_extension(ext: &str) -> Option<&'static str> {
    catalogue::EXTENSIONS.iter().find(|(_, e)| *e == ext).map(|(f, _)| *f)
}

/// The catalogue's Rust implementation of codec `id`.
pub fn listed(id: &str) -> Option<&'static CodecMeta> {
    catalogue::LISTED.iter().find(|l| l.id == id)
}

/// What a worker announces about a codec: its Rust implementation as codecs/catalogue.yaml lists
/// it (the build generates the table: build/catalogue.rs), with its library's version from
/// Cargo.lock and every `{version:NAME}` in its notes filled in the same way.
#[derive(Debug, PartialEq, Eq)]
pub struct CodecMeta {
    pub id: &'static str,
    pub media_type: &'static str,
    pub decode_modes: &'static [&'static str],
    pub library: &'static str,
    pub library_version: &'static str,
    /// Every implementation of the format writes byte-identical payloads.
    pub deterministic: bool,
    pub notes: &'static str,
    /// One entry for encode and one per decode mode.
    pub timed_regions: &'static [Region],
}

impl CodecMeta {
    /// Codec `id` as codecs/catalogue.yaml lists it for Rust. A codec the catalogue does not list
    /// is a programming error (the registry test checks every one).
    pub fn of(id: &str) -> &'static CodecMeta {
        listed(id).unwrap_or_else(|| panic!("codecs/catalogue.yaml lists no rust implementation of {id}"))
    }
}

/// A library's generic document (`tree` mode), whatever its type: a codec brings its own by
/// implementing [`TreeRecords`] for it in its own file, so no codec edits this one. Boxed, so
/// returning one makes one allocation of 24 to 40 bytes beside the library's own (measured:
/// rust/README.md, "A codec in codecs/").
pub struct Tree {
    value: Box<dyn Any + Send>,
    records: fn(Box<dyn Any + Send>, &str) -> Result<Records, CodecError>,
    type_name: &'static str,
}

/// How a library's document is read as a dataset's records, through serde (verification only:
/// never timed).
pub trait TreeRecords: Any + Send + Sized {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError>;
}

impl Tree {
    pub fn new<V: TreeRecords>(value: V) -> Tree {
        fn records<V: TreeRecords>(value: Box<dyn Any + Send>, dataset: &str) -> Result<Records, CodecError> {
            let value = *value.downcast::<V>().expect("a Tree holds the type it was made with");
            use codecbench_datasets::DatasetRecord;
            codecbench_proto::with_record_type!(dataset, T => Ok(T::into_records(value.records::<T>()?)),
                other => Err(CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())))
        }
        Tree { value: Box::new(value), records: records::<V>, type_name: std::any::type_name::<V>() }
    }

    /// The records a tree holds (verification only: never timed).
    pub fn into_records(self, dataset: &str) -> Result<Records, CodecError> {
        (self.records)(self.value, dataset)
    }

    /// The library's own document, when it is a `V` (tests read it).
    pub fn downcast<V: Any>(self) -> Result<V, Tree> {
        match self.value.downcast::<V>() {
            Ok(v) => Ok(*v),
            Err(value) => Err(Tree { value, ..self }),
        }
    }
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tree({})", self.type_name)
    }
}

/// A serde codec's refusal: the first field no payload rule covers, else the first whose feature
/// (`"uint64"`, `"map"`, ... as `DatasetSpec::limited` names them) this codec has no form for.
pub(crate) fn serde_refusal(codec: &str, dataset: &codecbench_datasets::DatasetSpec, features: &[&str]) -> Option<String> {
    let limited = dataset.limited.iter().filter(|f| features.iter().any(|k| f.strip_prefix(k).is_some_and(|rest| rest.starts_with(' '))));
    dataset.unoffered.iter().chain(limited).next().map(|f| format!("{codec}: {f} is not offered"))
}

pub trait Codec: Send + Sync {
    fn meta(&self) -> &'static CodecMeta;

    /// Why this codec does not carry `dataset`, or None: by default a serde codec refuses a
    /// user's schema with a feature the payload rules do not cover yet, naming its first field
    /// (proto/README.md, "Payloads"); control then plans none of its cells.
    fn refusal(&self, dataset: &codecbench_datasets::DatasetSpec) -> Option<String> {
        serde_refusal(self.meta().id, dataset, &[])
    }

    /// Native model -> bytes in memory.
    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError>;

    /// Bytes in memory -> native model (`typed` mode).
    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError>;

    /// Checks untrusted bytes for what the library itself would not survive (nesting its
    /// recursive reader would overflow the stack on), before any decode of them. The trial calls
    /// it once per payload, outside the timed region: every timed decode then reads bytes already
    /// admitted (docs/DESIGN.md, "Decode modes mean one thing": nesting). Codecs whose libraries
    /// guard themselves keep the default.
    fn admit(&self, _bytes: &[u8]) -> Result<(), CodecError> {
        Ok(())
    }

    /// `tree` mode: bytes -> the library's generic document.
    fn decode_tree(&self, _bytes: &[u8]) -> Result<Tree, CodecError> {
        Err(CodecError(format!("{} offers no tree mode", self.meta().id)))
    }

    /// `lazy` mode: reads each of `fields` (dotted paths; for matrix rows, a cell index) from every
    /// record of the raw document of `dataset` without materialising it, and hands `visit` (field
    /// index, value as a string, integers in decimal). A callback rather than a Vec so the timed
    /// path does not copy the values; verification collects them. (A self-describing format
    /// ignores `dataset`; a schema-bound one such as flatbuffers needs it to find the fields.)
    fn decode_lazy(&self, _dataset: &str, _bytes: &[u8], _fields: &[&str], _visit: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError> {
        Err(CodecError(format!("{} offers no lazy mode", self.meta().id)))
    }

    /// `streaming` encode: writes the payload into `out` as it goes; the caller's writer is a
    /// bounded buffer drained as a socket would be, so the whole payload is never held.
    fn encode_streaming(&self, _records: &Records, _out: &mut dyn std::io::Write) -> Result<(), CodecError> {
        Err(CodecError(format!("{} offers no streaming mode", self.meta().id)))
    }

    /// `streaming` decode: reads the payload of `dataset` from `input` (fed in chunks) and hands
    /// each record to `sink` as soon as it is complete; returns the number of records.
    fn decode_streaming(&self, _dataset: &str, _input: &mut dyn std::io::Read, _sink: &mut dyn FnMut(streaming::Record)) -> Result<usize, CodecError> {
        Err(CodecError(format!("{} offers no streaming mode", self.meta().id)))
    }
}

/// The format a codec id names (proto/README.md "Implementations"): the id itself for the reference
/// library of a format (`json`), the part before '/' for another library of it (`json/simd-json`).
/// Payloads of one format are one wire; vectors are per format.
pub fn format_of(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

/// Every codec of the Rust worker.
pub fn registry() -> Vec<Box<dyn Codec>> {
    vec![Box::new(Json), Box::new(Bson), Box::new(Protobuf), Box::new(Ubjson), Box::new(Msgpack), Box::new(Cbor), Box::new(Xml), Box::new(Flatbuffers), Box::new(SimdJson)]
}

/// What this worker announces about the datasets it carries (AttachRequest.datasets): each with
/// the codecs that refuse it, and why.
pub fn dataset_infos() -> Vec<codecbench_proto::v1::DatasetInfo> {
    let codecs = registry();
    let mut infos = codecbench_datasets::dataset_infos();
    for info in &mut infos {
        let Some(spec) = codecbench_datasets::spec(&info.id) else { continue };
        info.refused = codecs.iter().filter_map(|c| c.refusal(spec).map(|reason| codecbench_proto::v1::Refusal {
            dataset: info.id.clone(), codec: c.meta().id.to_string(), reason, ..Default::default()
        })).collect();
    }
    infos
}

pub fn find(id: &str) -> Option<Box<dyn Codec>> {
    registry().into_iter().find(|c| c.meta().id == id)
}

/// Collects lazy-mode values, one Vec per field (for verification, outside timed regions).
pub fn lazy_values(codec: &dyn Codec, dataset: &str, bytes: &[u8], fields: &[&str]) -> Result<Vec<Vec<String>>, CodecError> {
    let mut out = vec![Vec::new(); fields.len()];
    codec.decode_lazy(dataset, bytes, fields, &mut |i, v| out[i].push(v.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests;
