//! `bson`: the `bson` crate. `typed` goes through serde into the native model; `lazy` parses the
//! bytes as a `RawDocument` (no materialisation) and reads one field of every record. Encode is
//! the same for both modes (serde serializer).
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, LAZY, TYPED};
use bson::{RawBsonRef, RawDocument};
use codecbench_datasets::Records;

pub struct Bson;

struct FromSlice;
impl DeFn<bson::error::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, bson::error::Error> {
        bson::deserialize_from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

impl Codec for Bson {
    fn meta(&self) -> CodecMeta {
        CodecMeta {
            id: "bson",
            media_type: "application/bson",
            decode_modes: &[TYPED, LAZY],
            library: "bson",
            library_version: env!("CODECBENCH_VERSION_BSON"),
            notes: "lazy = bson::RawDocument; encode shared by both modes",
        }
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => bson::serialize_to_vec(&PayloadRef { records: r }))
            .map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_lazy(&self, bytes: &[u8], field: &str, visit: &mut dyn FnMut(&str)) -> Result<(), CodecError> {
        let err = CodecError::from_display;
        let doc = RawDocument::from_bytes(bytes).map_err(err)?;
        let records = doc.get_array("records").map_err(err)?;
        for (i, record) in records.into_iter().enumerate() {
            let value = match record.map_err(err)? {
                RawBsonRef::Document(d) => d.get_str(field).map_err(err)?,
                RawBsonRef::Array(cells) => {
                    let n = field.parse::<usize>().map_err(|_| CodecError(format!("record {i} is an array; {field:?} is not an index")))?;
                    cells.get_str(n).map_err(err)?
                }
                other => return Err(CodecError(format!("record {i} is a {:?}, not a document", other.element_type()))),
            };
            visit(value);
        }
        Ok(())
    }
}
