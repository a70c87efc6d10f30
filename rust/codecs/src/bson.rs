//! `bson`: the `bson` crate. `typed` deserializes straight from the bytes into the native model
//! (serde over the raw reader); `tree` builds a `bson::Document` from the borrowed bytes (no copy
//! into a `RawDocumentBuf` first); `lazy` reads the named fields of every record from the
//! `RawDocument` without materialising it. Encode is the serde raw serializer. The crate's
//! readers recurse once per nested document with no limit, so `typed` and `tree` first check the
//! nesting (`check_depth`): a deeply nested payload is a decode error, not a stack overflow.
use crate::payload::{decode_typed, with_records, DeFn, Payload, PayloadRef};
use crate::{Codec, CodecError, CodecMeta, Tree};
use bson::{RawBsonRef, RawDocument};
use codecbench_datasets::Records;

pub struct Bson;

struct FromSlice;
impl DeFn<bson::error::Error> for FromSlice {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, bson::error::Error> {
        bson::deserialize_from_slice::<Payload<T>>(bytes).map(|p| p.records)
    }
}

impl crate::TreeRecords for bson::Document {
    fn records<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, CodecError> {
        bson::deserialize_from_document::<Payload<T>>(self).map(|p| p.records).map_err(CodecError::from_display)
    }
}

impl Codec for Bson {
    /// BSON has no unsigned 64-bit integer (proto/README.md, "Payloads").
    fn refusal(&self, dataset: &codecbench_datasets::DatasetSpec) -> Option<String> {
        crate::serde_refusal(self.meta().id, dataset, &["uint64", "fixed64"])
    }

    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("bson")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        with_records!(records, r => bson::serialize_to_vec(&PayloadRef { records: r }))
            .map_err(CodecError::from_display)
    }

    fn admit(&self, bytes: &[u8]) -> Result<(), CodecError> {
        check_depth(bytes)
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice)
    }

    fn decode_tree(&self, bytes: &[u8]) -> Result<Tree, CodecError> {
        let raw = RawDocument::from_bytes(bytes).map_err(CodecError::from_display)?;
        bson::Document::try_from(raw).map(Tree::new).map_err(CodecError::from_display)
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

/// Documents and arrays nested deeper than this are refused (ubjson's limit too); the datasets
/// nest a few levels.
pub const MAX_DEPTH: usize = 128;

fn read_i32(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 4)?;
    usize::try_from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
}

/// Refuses a document nested deeper than MAX_DEPTH, walking element headers with an explicit
/// stack (no recursion). It only looks for depth: at the first malformed byte it stops and leaves
/// the error to the library, which reads in the same order and so fails there before nesting
/// any deeper than this walk saw.
pub fn check_depth(bytes: &[u8]) -> Result<(), CodecError> {
    // The end (exclusive, before the terminating 0) of every open document.
    let mut open: Vec<usize> = Vec::with_capacity(8);
    let Some(len) = read_i32(bytes, 0) else { return Ok(()) };
    if len < 5 || len > bytes.len() {
        return Ok(());
    }
    open.push(len - 1);
    let mut at = 4;
    while let Some(&end) = open.last() {
        if at >= end {
            open.pop();
            at = end + 1;
            continue;
        }
        let kind = bytes[at];
        // The element's key: a NUL-terminated name.
        let Some(nul) = bytes[at + 1..end].iter().position(|&b| b == 0) else { return Ok(()) };
        at += 2 + nul;
        let string_len = |at: usize| read_i32(bytes, at).map(|n| 4 + n);
        let skip = match kind {
            0x01 | 0x09 | 0x11 | 0x12 => Some(8),
            0x02 | 0x0D | 0x0E => string_len(at),
            0x03 | 0x04 => {
                let Some(n) = read_i32(bytes, at) else { return Ok(()) };
                if n < 5 || at + n > end {
                    return Ok(());
                }
                if open.len() >= MAX_DEPTH {
                    return Err(CodecError(format!("documents nested deeper than {MAX_DEPTH} levels")));
                }
                open.push(at + n - 1);
                at += 4;
                continue;
            }
            0x05 => read_i32(bytes, at).map(|n| 5 + n),
            0x06 | 0x0A | 0x7F | 0xFF => Some(0),
            0x07 => Some(12),
            0x08 => Some(1),
            0x0B => {
                // Two C strings: the pattern and its options.
                let Some(a) = bytes[at..end].iter().position(|&b| b == 0) else { return Ok(()) };
                let Some(b) = bytes[at + a + 1..end].iter().position(|&b| b == 0) else { return Ok(()) };
                Some(a + b + 2)
            }
            0x0C => string_len(at).map(|n| n + 12),
            // Code with scope: its length, the code, then a document (one more level).
            0x0F => {
                let (Some(total), Some(code)) = (read_i32(bytes, at), string_len(at + 4)) else { return Ok(()) };
                let doc = at + 4 + code;
                let Some(n) = read_i32(bytes, doc) else { return Ok(()) };
                if total < 4 + code + n || n < 5 || at + total > end || doc + n > at + total {
                    return Ok(());
                }
                if open.len() >= MAX_DEPTH {
                    return Err(CodecError(format!("documents nested deeper than {MAX_DEPTH} levels")));
                }
                // Whatever follows the scope document inside `total` is the library's to refuse.
                open.push(doc + n - 1);
                at = doc + 4;
                continue;
            }
            0x10 => Some(4),
            0x13 => Some(16),
            _ => None,
        };
        match skip {
            Some(n) if at + n <= end => at += n,
            _ => return Ok(()),
        }
    }
    Ok(())
}
