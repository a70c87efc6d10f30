//! `json/simd-json`: simd-json, the Rust port of simdjson, through its serde API on the same
//! dataset types as `json` (a second implementation of json: proto/README.md "Implementations").
//! simd-json parses in place: it rewrites the strings of its input buffer, so a decode first
//! copies the payload into a buffer of its own (declared `copy`), as an application holding the
//! bytes it received would have to. Its SIMD kernel is chosen at run time from the CPU's features
//! (its default `runtime-detection`), so the one build serves every machine and no other codec
//! is compiled for another CPU target. No streaming mode: simd-json needs the whole document.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Tree};
use codecbench_datasets::Records;

pub struct SimdJson;

struct FromSlice;
impl DeFn<simd_json::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, simd_json::Error> {
        let mut owned = bytes.to_vec();
        simd_json::serde::from_slice::<Payload<T>>(&mut owned).map(|p| p.records)
    }
}

impl crate::TreeRecords for simd_json::OwnedValue {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError> {
        simd_json::serde::from_owned_value::<Payload<T>>(self).map(|p| p.records).map_err(CodecError::from_display)
    }
}

impl Codec for SimdJson {
    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("json/simd-json")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => simd_json::serde::to_vec(&PayloadRef { records: r })).map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        let mut owned = bytes.to_vec();
        simd_json::to_owned_value(&mut owned).map(Tree::new).map_err(CodecError::from_display)
    }
}
