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
}

include!(concat!(env!("OUT_DIR"), "/datasets.rs"));

/// Encoded `FileDescriptorSet` of the contract, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("codecbench_descriptor");

/// Serde helpers named by the generated dataset types (build.rs).
pub mod serde_number {
    use serde::de::{Deserializer, Error, Visitor};

    /// A double field's value from any number: a float, or an integer as JavaScript writers put
    /// a whole-number double (through `deserialize_any`, which every self-describing format has).
    pub fn f64_from_number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        struct Number;
        impl Visitor<'_> for Number {
            type Value = f64;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
        }
        d.deserialize_any(Number)
    }
}
