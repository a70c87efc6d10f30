//! `json`: serde_json. `typed` deserializes straight into the native model; `tree` parses into
//! serde_json's `Value`. Both validate the text's UTF-8 (part of reading JSON). No lazy mode: a
//! JSON text must be parsed up to a field to find it, so "lazy" would be a tree parse.
//! `streaming`: `serde_json::to_writer` into the caller's drained buffer, and a
//! `Deserializer::from_reader` walked record by record (streaming.rs).
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::streaming::{payload_records, DatasetRecord, Record, StreamDe};
use crate::{Codec, CodecError, CodecMeta, Tree};
use codecbench_datasets::Records;

pub struct Json;

struct FromSlice;
impl DeFn<serde_json::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, serde_json::Error> {
        serde_json::from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

struct FromReader;
impl StreamDe for FromReader {
    fn run<T: DatasetRecord>(&self, input: &mut dyn std::io::Read, sink: &mut dyn FnMut(Record)) -> Result<usize, CodecError> {
        let mut de = serde_json::Deserializer::from_reader(input);
        let n = payload_records::<T, _>(&mut de, sink).map_err(CodecError::from_display)?;
        de.end().map_err(CodecError::from_display)?;
        Ok(n)
    }
}

impl crate::TreeRecords for serde_json::Value {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError> {
        serde_json::from_value::<Payload<T>>(self).map(|p| p.records).map_err(CodecError::from_display)
    }
}

impl Codec for Json {
    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("json")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => serde_json::to_vec(&PayloadRef { records: r }))
            .map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        serde_json::from_slice::<serde_json::Value>(bytes).map(Tree::new).map_err(CodecError::from_display)
    }

    fn encode_streaming(&self, records: &Records, out: &mut dyn std::io::Write) -> Result<(), CodecError> {
        with_records!(records, r => serde_json::to_writer(&mut *out, &PayloadRef { records: r })).map_err(CodecError::from_display)
    }

    fn decode_streaming(&self, dataset: &str, input: &mut dyn std::io::Read, sink: &mut dyn FnMut(Record)) -> Result<usize, CodecError> {
        crate::streaming::decode_streaming(dataset, input, sink, FromReader)
    }
}
