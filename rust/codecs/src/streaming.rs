//! The `streaming` mode's shared part for serde codecs (proto/README.md, "Decode modes"): decode
//! reads the payload from a reader (the caller feeds it in chunks, as a socket would) and hands
//! each record to a sink as soon as it is complete, so no more than one record and the reader's
//! buffer are held at once; encode writes into the caller's writer (a bounded buffer drained as a
//! socket would be) instead of building the whole payload. serde has no record-by-record reader
//! for a `{"records": [...]}` document, so this visitor walks the wrapper and the array itself.
use crate::CodecError;
use codecbench_datasets::Records;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

pub use codecbench_datasets::Record;

/// Whether `record` is record `i` of `records` (for verification, outside timing).
pub fn is_record(records: &Records, i: usize, record: &Record) -> bool {
    record.is_record_of(records, i)
}

/// A record type the streaming decode can hand over.
pub use codecbench_datasets::DatasetRecord;

/// A serde deserializer over a reader, for one dataset's record type: each codec supplies its own.
pub trait StreamDe {
    fn run<T: DatasetRecord>(&self, input: &mut dyn std::io::Read, sink: &mut dyn FnMut(Record)) -> Result<usize, CodecError>;
}

/// Decodes `{"records": [...]}` from `input` with `de`, record by record, into `sink`; returns
/// how many records there were.
pub fn decode_streaming(dataset: &str, input: &mut dyn std::io::Read, sink: &mut dyn FnMut(Record), de: impl StreamDe) -> Result<usize, CodecError> {
    codecbench_proto::with_record_type!(dataset, T => de.run::<T>(input, sink),
        other => Err(CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())))
}

/// Deserializes the payload wrapper with `deserializer`, handing records to `sink` one by one.
pub fn payload_records<'de, T: DatasetRecord, D: Deserializer<'de>>(deserializer: D, sink: &mut dyn FnMut(Record)) -> Result<usize, D::Error> {
    deserializer.deserialize_map(PayloadVisitor::<T> { sink, _t: PhantomData })
}

struct PayloadVisitor<'s, T> {
    sink: &'s mut dyn FnMut(Record),
    _t: PhantomData<T>,
}

impl<'de, T: DatasetRecord> Visitor<'de> for PayloadVisitor<'_, T> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a payload {\"records\": [...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let mut count = None;
        while map.next_key::<Key>()?.is_some() {
            if count.is_some() {
                return Err(de::Error::duplicate_field("records"));
            }
            count = Some(map.next_value_seed(RecordsSeed::<T> { sink: &mut *self.sink, _t: PhantomData })?);
        }
        count.ok_or_else(|| de::Error::missing_field("records"))
    }
}

/// The wrapper's only key, `records`: a payload holds nothing else, so another key is an error.
struct Key;

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the key \"records\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                if v == "records" { Ok(Key) } else { Err(E::unknown_field(v, &["records"])) }
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

struct RecordsSeed<'s, T> {
    sink: &'s mut dyn FnMut(Record),
    _t: PhantomData<T>,
}

impl<'de, T: DatasetRecord> DeserializeSeed<'de> for RecordsSeed<'_, T> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: DatasetRecord> Visitor<'de> for RecordsSeed<'_, T> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while let Some(record) = seq.next_element::<T>()? {
            (self.sink)(record.into_record());
            n += 1;
        }
        Ok(n)
    }
}
