//! `json`: serde_json. Decode includes UTF-8 validation of the text (DESIGN.md, rule 1).
//! `lazy` parses into serde_json's tree (`Value`) and reads one field of every record.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, LAZY, TYPED};
use codecbench_datasets::Records;
use serde_json::Value;

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
            decode_modes: &[TYPED, LAZY],
            library: "serde_json",
            library_version: env!("CODECBENCH_VERSION_SERDE_JSON"),
            notes: "lazy = serde_json::Value tree",
        }
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => serde_json::to_vec(&PayloadRef { records: r }))
            .map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_lazy(&self, bytes: &[u8], field: &str, visit: &mut dyn FnMut(&str)) -> Result<(), CodecError> {
        let tree: Value = serde_json::from_slice(bytes).map_err(CodecError::from_display)?;
        let records = tree
            .get("records")
            .and_then(Value::as_array)
            .ok_or_else(|| CodecError("no \"records\" array at the top level".into()))?;
        let index = field.parse::<usize>().ok();
        for (i, record) in records.iter().enumerate() {
            let value = match (record, index) {
                (Value::Array(cells), Some(n)) => cells.get(n),
                (Value::Object(map), _) => map.get(field),
                _ => None,
            };
            let s = value
                .and_then(Value::as_str)
                .ok_or_else(|| CodecError(format!("record {i}: no string field {field:?}")))?;
            visit(s);
        }
        Ok(())
    }
}
