//! `msgpack`: rmp-serde, records as maps keyed by the wire names (`to_vec_named`), so the payload
//! carries the same logical value as json and bson. `lazy` parses into rmpv's `ValueRef` tree,
//! which borrows strings from the input, and reads one field of every record.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, LAZY, TYPED};
use codecbench_datasets::Records;
use rmpv::ValueRef;

pub struct Msgpack;

struct FromSlice;
impl DeFn<rmp_serde::decode::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, rmp_serde::decode::Error> {
        rmp_serde::from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

fn as_str<'a>(v: &'a ValueRef<'a>) -> Option<&'a str> {
    match v {
        ValueRef::String(s) => s.as_str(),
        _ => None,
    }
}

fn field<'a>(map: &'a [(ValueRef<'a>, ValueRef<'a>)], name: &str) -> Option<&'a ValueRef<'a>> {
    map.iter().find(|(k, _)| as_str(k) == Some(name)).map(|(_, v)| v)
}

impl Codec for Msgpack {
    fn meta(&self) -> CodecMeta {
        CodecMeta {
            id: "msgpack",
            media_type: "application/msgpack",
            decode_modes: &[TYPED, LAZY],
            library: "rmp-serde",
            library_version: env!("CODECBENCH_VERSION_RMP_SERDE"),
            notes: "records as maps (to_vec_named); lazy = rmpv::ValueRef tree",
        }
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => rmp_serde::to_vec_named(&PayloadRef { records: r })).map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_lazy(&self, bytes: &[u8], name: &str, visit: &mut dyn FnMut(&str)) -> Result<(), CodecError> {
        let mut input = bytes;
        let tree = rmpv::decode::read_value_ref(&mut input).map_err(CodecError::from_display)?;
        if !input.is_empty() {
            return Err(CodecError(format!("{} bytes after the payload's value", input.len())));
        }
        let ValueRef::Map(top) = &tree else { return Err(CodecError("the payload is not a map".into())) };
        let records = field(top, "records")
            .and_then(|r| if let ValueRef::Array(a) = r { Some(a) } else { None })
            .ok_or_else(|| CodecError("no \"records\" array at the top level".into()))?;
        let index = name.parse::<usize>().ok();
        for (i, record) in records.iter().enumerate() {
            let value = match (record, index) {
                (ValueRef::Array(cells), Some(n)) => cells.get(n),
                (ValueRef::Map(map), _) => field(map, name),
                _ => None,
            };
            visit(value.and_then(as_str).ok_or_else(|| CodecError(format!("record {i}: no string field {name:?}")))?);
        }
        Ok(())
    }
}
