//! `json`: serde_json. `typed` deserializes straight into the native model; `tree` parses into
//! serde_json's `Value`. Both validate the text's UTF-8 (part of reading JSON). No lazy mode: a
//! JSON text must be parsed up to a field to find it, so "lazy" would be a tree parse.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Region, Tree, TREE, TYPED};
use codecbench_datasets::Records;

pub struct Json;

struct FromSlice;
impl DeFn<serde_json::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, serde_json::Error> {
        serde_json::from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

impl Codec for Json {
    fn meta(&self) -> CodecMeta {
        CodecMeta {
            id: "json",
            media_type: "application/json",
            decode_modes: &[TYPED, TREE],
            library: "serde_json",
            library_version: env!("CODECBENCH_VERSION_SERDE_JSON"),
            notes: "typed = serde derive on the dataset types; tree = serde_json::Value",
            timed_regions: &[
                Region { operation: "encode", contains: &["serialize", "utf8"], note: "" },
                Region { operation: TYPED, contains: &["parse", "utf8"], note: "" },
                Region { operation: TREE, contains: &["parse", "utf8"], note: "" },
            ],
        }
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => serde_json::to_vec(&PayloadRef { records: r }))
            .map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        serde_json::from_slice(bytes).map(Tree::Json).map_err(CodecError::from_display)
    }
}
