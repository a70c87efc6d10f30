//! `ubjson` (Universal Binary JSON, Draft 12): the plugin over the project's own serde format
//! (rust/ubjson, the crate `codecbench-ubjson`: no complete, maintained Rust crate exists), so
//! `typed` goes straight between bytes and the native model like the other serde codecs, and
//! `tree` is that crate's `Value`.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Tree};
use codecbench_datasets::Records;
use codecbench_ubjson::{from_slice, to_vec, Error, Value};

pub struct Ubjson;

struct FromSlice;
impl DeFn<Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, Error> {
        from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

impl crate::TreeRecords for Value {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError> {
        // Written again and read typed: the tree keeps no types beyond UBJSON's own (a bytes field
        // is an array of integers, which a human-readable go-between would not take for bytes).
        codecbench_ubjson::to_vec(&self).and_then(|b| codecbench_ubjson::from_slice::<Payload<T>>(&b)).map(|p| p.records).map_err(CodecError::from_display)
    }
}

impl Codec for Ubjson {
    /// UBJSON's largest integer is int64 (proto/README.md, "Payloads").
    fn refusal(&self, dataset: &codecbench_datasets::DatasetSpec) -> Option<String> {
        crate::serde_refusal(self.meta().id, dataset, &["uint64", "fixed64"])
    }

    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("ubjson")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => to_vec(&PayloadRef { records: r })).map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        from_slice::<Value>(bytes).map(Tree::new).map_err(CodecError::from_display)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_a_uint8_array_even_inside_a_flattened_oneof() {
        use codecbench_proto::serde_bytes::Bytes;
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        enum Pick {
            #[serde(rename = "blob", serialize_with = "codecbench_proto::serde_shape::single::serialize::<Bytes, _, _>",
                    deserialize_with = "codecbench_proto::serde_shape::single::deserialize::<Bytes, _, _>")]
            Blob(Vec<u8>),
        }
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Row {
            id: String,
            #[serde(flatten)]
            pick: Option<Pick>,
        }
        let row = Row { id: "a".into(), pick: Some(Pick::Blob(vec![0, 1, 255])) };
        let bytes = to_vec(&row).unwrap();
        assert_eq!(bytes, b"{i\x02idSi\x01ai\x04blob[$U#i\x03\x00\x01\xff}");
        assert_eq!(from_slice::<Row>(&bytes).unwrap(), row);
        // The tree keeps it as bytes, and writes it back as they came.
        let tree = from_slice::<Value>(b"[$U#i\x02\x07\x08").unwrap();
        assert_eq!(tree, Value::Bytes(vec![7, 8]));
        assert_eq!(to_vec(&tree).unwrap(), b"[$U#i\x02\x07\x08");
    }
}
