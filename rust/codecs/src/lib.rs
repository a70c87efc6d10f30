//! Codec plugins of the Rust worker. A codec is one file behind the [`Codec`] trait, registered in
//! [`registry`]; the worker, control and harness learn about it from what the worker announces.
//!
//! Every codec encodes the same logical value, `{"records": [...]}` (proto/README.md), from the
//! Rust native model: the contract's dataset types, which derive serde with the wire names.
mod bson_codec;
mod json;
mod msgpack;
mod payload;
mod protobuf;
mod ubjson;
pub mod vectors;

use codecbench_datasets::Records;

pub use bson_codec::Bson;
pub use json::Json;
pub use msgpack::Msgpack;
pub use protobuf::Protobuf;
pub use ubjson::Ubjson;

pub const TYPED: &str = "typed";
pub const LAZY: &str = "lazy";

/// A codec's own error message (the library's words), surfaced as the task's failure.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct CodecError(pub String);

impl CodecError {
    pub fn from_display(e: impl std::fmt::Display) -> Self {
        CodecError(e.to_string())
    }
}

/// What a worker announces about a codec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecMeta {
    pub id: &'static str,
    pub media_type: &'static str,
    pub decode_modes: &'static [&'static str],
    pub library: &'static str,
    pub library_version: &'static str,
    pub notes: &'static str,
}

pub trait Codec: Send + Sync {
    fn meta(&self) -> CodecMeta;

    /// Native model -> bytes in memory.
    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError>;

    /// Bytes in memory -> native model (`typed` mode).
    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError>;

    /// `lazy` mode: parses into the library's raw/lazy document and hands `visit` the string value
    /// of `field` of every record (for matrix rows, the cell at that index). A callback rather
    /// than a Vec so the timed path does not copy the values; verification collects them.
    fn decode_lazy(&self, bytes: &[u8], field: &str, visit: &mut dyn FnMut(&str)) -> Result<(), CodecError>;
}

/// Every codec of the Rust worker.
pub fn registry() -> Vec<Box<dyn Codec>> {
    vec![Box::new(Json), Box::new(Bson), Box::new(Protobuf), Box::new(Ubjson), Box::new(Msgpack)]
}

pub fn find(id: &str) -> Option<Box<dyn Codec>> {
    registry().into_iter().find(|c| c.meta().id == id)
}

/// Collects lazy-mode values (for verification, outside timed regions).
pub fn lazy_values(codec: &dyn Codec, bytes: &[u8], field: &str) -> Result<Vec<String>, CodecError> {
    let mut out = Vec::new();
    codec.decode_lazy(bytes, field, &mut |v| out.push(v.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests;
