//! `bson`: the `bson` crate. `typed` deserializes straight from the bytes into the native model
//! (serde over the raw reader); `tree` builds a `bson::Document` from the borrowed bytes (no copy
//! into a `RawDocumentBuf` first); `lazy` reads the named fields of every record from the
//! `RawDocument` without materialising it. Encode is the serde raw serializer.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Region, Tree, LAZY, TREE, TYPED};
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
    /// BSON has no unsigned 64-bit integer (proto/README.md, "Payloads").
    fn refusal(&self, dataset: &codecbench_datasets::DatasetSpec) -> Option<String> {
        crate::serde_refusal(self.meta().id, dataset, &["uint64", "fixed64"])
    }

    fn meta(&self) -> CodecMeta {
        CodecMeta {
            id: "bson",
            media_type: "application/bson",
            decode_modes: &[TYPED, TREE, LAZY],
            library: "bson",
            library_version: env!("CODECBENCH_VERSION_BSON"),
            notes: "tree = bson::Document; lazy = bson::RawDocument lookups",
            timed_regions: &[
                Region { operation: "encode", contains: &["serialize"], note: "" },
                Region { operation: TYPED, contains: &["parse"], note: "" },
                Region { operation: TREE, contains: &["parse"], note: "" },
                Region {
                    operation: LAZY,
                    contains: &["field-lookup"],
                    note: "RawDocument::get walks element headers up to the field; integers formatted in decimal (itoa) for the sink",
                },
            ],
        }
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => bson::serialize_to_vec(&PayloadRef { records: r }))
            .map_err(CodecError::from_display)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        let raw = RawDocument::from_bytes(bytes).map_err(CodecError::from_display)?;
        bson::Document::try_from(raw).map(Tree::Bson).map_err(CodecError::from_display)
    }

    fn decode_lazy(&self, _dataset: &str, bytes: &[u8], fields: &[&str], visit: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError> {
        let err = CodecError::from_display;
        let doc = RawDocument::from_bytes(bytes).map_err(err)?;
        let records = doc.get_array("records").map_err(err)?;
        let mut digits = itoa::Buffer::new();
        for (i, record) in records.into_iter().enumerate() {
            let record = record.map_err(|e| CodecError(format!("record {i}: {e}")))?;
            for (f, field) in fields.iter().enumerate() {
                let value = match record {
                    RawBsonRef::Document(d) => lookup(d, field),
                    RawBsonRef::Array(cells) => match field.parse::<usize>() {
                        Ok(n) => cells.get(n).map_err(err),
                        Err(_) => Err(CodecError(format!("{field:?} is not a cell index"))),
                    },
                    other => Err(CodecError(format!("a {:?}, not a document", other.element_type()))),
                }
                .map_err(|e| CodecError(format!("record {i} field {field:?}: {e}")))?;
                match value {
                    Some(RawBsonRef::String(s)) => visit(f, s),
                    Some(RawBsonRef::Int32(n)) => visit(f, digits.format(n)),
                    Some(RawBsonRef::Int64(n)) => visit(f, digits.format(n)),
                    Some(other) => return Err(CodecError(format!("record {i} field {field:?} is a {:?}, not a string or integer", other.element_type()))),
                    None => return Err(CodecError(format!("record {i} has no field {field:?}"))),
                }
            }
        }
        Ok(())
    }
}

/// A dotted path into nested documents, each step a raw lookup.
fn lookup<'a>(doc: &'a RawDocument, path: &str) -> Result<Option<RawBsonRef<'a>>, CodecError> {
    let err = CodecError::from_display;
    let mut doc = doc;
    let mut steps = path.split('.').peekable();
    while let Some(step) = steps.next() {
        let value = doc.get(step).map_err(err)?;
        if steps.peek().is_none() {
            return Ok(value);
        }
        match value {
            Some(RawBsonRef::Document(d)) => doc = d,
            Some(other) => return Err(CodecError(format!("{step:?} is a {:?}, not a document", other.element_type()))),
            None => return Ok(None),
        }
    }
    Ok(None)
}
