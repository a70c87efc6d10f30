//! `protobuf`: prost, on the dataset messages of `proto/`. The payload is the `*Dataset` message,
//! the same encoding as control's canonical blob. The Rust native model already is the prost
//! types, so no conversion happens anywhere.
use crate::{Codec, CodecError, CodecMeta, Region, TYPED};
use codecbench_datasets::Records;

pub struct Protobuf;

impl Codec for Protobuf {
    /// prost's generated types carry every proto3 feature.
    fn refusal(&self, _: &codecbench_datasets::DatasetSpec) -> Option<String> {
        None
    }

    fn meta(&self) -> CodecMeta {
        CodecMeta::of(
            "protobuf",
            "payload = the dataset's *Dataset message",
            &[
                // prost memoises no sizes: every encode computes the lengths it writes.
                Region { operation: "encode", contains: &["serialize"], note: "the prost types are the Rust application objects: no model conversion" },
                Region { operation: TYPED, contains: &["parse"], note: "the prost types are the Rust application objects: no model conversion" },
            ],
        )
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        Ok(records.to_protobuf())
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        Records::from_protobuf(dataset, bytes).map_err(CodecError)
    }
}
