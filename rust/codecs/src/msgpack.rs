//! `msgpack`: rmp-serde, records as maps keyed by the wire names (`to_vec_named`), so the payload
//! carries the same logical value as json and bson. `typed` deserializes straight into the native
//! model; `tree` reads rmpv's owned `Value` (the rmp project's generic document). No lazy mode:
//! MessagePack has no length-prefixed maps to skip, so finding a field is a walk of the record.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Tree};
use codecbench_datasets::Records;

pub struct Msgpack;

struct FromSlice;
impl DeFn<rmp_serde::decode::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, rmp_serde::decode::Error> {
        rmp_serde::from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

impl crate::TreeRecords for rmpv::Value {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError> {
        rmpv::ext::from_value::<Payload<T>>(self).map(|p| p.records).map_err(CodecError::from_display)
    }
}

impl Codec for Msgpack {
    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("msgpack")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => rmp_serde::to_vec_named(&PayloadRef { records: r })).map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        let mut input = bytes;
        let tree = rmpv::decode::read_value(&mut input).map_err(CodecError::from_display)?;
        if !input.is_empty() {
            return Err(CodecError(format!("{} bytes after the payload's value", input.len())));
        }
        Ok(Tree::new(tree))
    }
}
