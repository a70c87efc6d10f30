//! `protobuf`: prost, on the dataset messages of `proto/`. The payload is the `*Dataset` message,
//! the same encoding as control's canonical blob. The Rust native model already is the prost
//! types, so no conversion happens anywhere.
use crate::{Codec, CodecError, CodecMeta};
use codecbench_datasets::Records;

pub struct Protobuf;

impl Codec for Protobuf {
    /// prost's generated types carry every proto3 feature.
    fn refusal(&self, _: &codecbench_datasets::DatasetSpec) -> Option<String> {
        None
    }

    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("protobuf")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        Ok(records.to_protobuf())
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        Records::from_protobuf(dataset, bytes).map_err(CodecError)
    }
}
