//! The one contract (`proto/codecbench/v1`), generated. Never edit generated code: change the
//! .proto files.
pub mod v1 {
    tonic::include_proto!("codecbench.v1");
}

/// A dataset as its record message's `(codecbench.v1.dataset)` option declares it
/// (proto/codecbench/v1/dataset_options.proto).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatasetSpec {
    pub id: &'static str,
    pub description: &'static str,
    /// The record message's full name.
    pub message: &'static str,
    /// Wire names (dotted paths) a lazy decode reads; a cell index for a bare-list record.
    pub lazy_fields: &'static [&'static str],
    /// A record is its one repeated field, a plain array, on the wire of schema-less codecs.
    pub bare_list: bool,
    /// proto/README.md, "Datasets and their schema fingerprint".
    pub fingerprint: &'static str,
    /// The names self-describing payloads give fields: "json" (json_name) or "proto".
    pub field_names: &'static str,
    /// The fields the serde codecs cannot carry (e.g. "map field acme.Order.attributes"): they
    /// refuse the dataset, naming the first (proto/README.md, "Payloads").
    pub unoffered: &'static [&'static str],
    /// The fields some serde codecs refuse, by feature ("uint64 field X", "map field X", "oneof
    /// field X"): each codec's `refusal` picks the features it has no form for.
    pub limited: &'static [&'static str],
    /// A built-in, generated from a seed (rust/datasets); a user's records come from a file.
    pub generated: bool,
}

include!(concat!(env!("OUT_DIR"), "/datasets.rs"));
include!(concat!(env!("OUT_DIR"), "/user_modules.rs"));

/// Every dataset this build carries: the built-ins, then the user's.
pub fn all_dataset_specs() -> impl Iterator<Item = &'static DatasetSpec> {
    DATASET_SPECS.iter().chain(USER_DATASET_SPECS)
}

mod serde_rules;
pub use serde_rules::{serde_bytes, serde_enum, serde_float, serde_number, serde_refused, serde_shape, serde_timestamp, Enum, Plain, Rule};

/// Encoded `FileDescriptorSet` of the contract, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("codecbench_descriptor");
