//! `cbor`: ciborium (serde), records as maps keyed by the wire names, so the payload carries the
//! same logical value as json and msgpack. ciborium writes definite lengths, integers in their
//! smallest form and each float in the smallest width that holds it exactly (float16/32/64);
//! reading accepts every width and indefinite lengths, as Jackson and cbor-x write them. `typed`
//! deserializes straight into the native model; `tree` reads ciborium's `Value`. No lazy mode:
//! CBOR maps carry counts, not byte sizes, so finding a field is a walk of the record.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Tree};
use codecbench_datasets::Records;

pub struct Cbor;

/// Deserializes one value from the front of `bytes` and rejects any bytes after it (ciborium reads
/// from a reader and stops at the value's end; trailing data would otherwise pass unnoticed).
fn from_slice<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    let mut input = bytes;
    let value = ciborium::from_reader(&mut input).map_err(|e| CodecError(message(e)))?;
    if !input.is_empty() {
        return Err(CodecError(format!("{} bytes after the payload's value", input.len())));
    }
    Ok(value)
}

/// ciborium's errors print their reader's error with Debug; the slice reader's is a unit struct.
fn message<T: std::fmt::Debug>(e: ciborium::de::Error<T>) -> String {
    match e {
        ciborium::de::Error::Io(_) => "the payload ends inside a value".into(),
        ciborium::de::Error::Syntax(at) => format!("malformed CBOR at byte {at}"),
        ciborium::de::Error::Semantic(Some(at), m) => format!("{m} (at byte {at})"),
        ciborium::de::Error::Semantic(None, m) => m,
        ciborium::de::Error::RecursionLimitExceeded => "nesting deeper than ciborium's recursion limit".into(),
    }
}

struct FromSlice;
impl DeFn<CodecError> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, CodecError> {
        from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

impl crate::TreeRecords for ciborium::Value {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError> {
        self.deserialized::<Payload<T>>().map(|p| p.records).map_err(CodecError::from_display)
    }
}

impl Codec for Cbor {
    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("cbor")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        with_records!(records, r => ciborium::into_writer(&PayloadRef { records: r }, &mut out)).map_err(CodecError::from_display)?;
        Ok(out)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        from_slice::<ciborium::Value>(bytes).map(Tree::new)
    }
}
