//! The xml codec's encode: `<payload>` with each record a `<records>` element, through
//! quick-xml's serializer, and a sequence-form record (a matrix row) written as the message it is.
use super::{RECORDS, ROOT};
use serde::ser::{Error as _, SerializeSeq, SerializeStruct, Serializer};
use serde::Serialize;

/// `<payload>` with the records as `<records>` elements.
pub(super) struct PayloadSer<'a, T> {
    pub(super) records: &'a [T],
    pub(super) item: Option<&'static str>,
}

impl<T: Serialize> Serialize for PayloadSer<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Records<'a, T>(&'a PayloadSer<'a, T>);
        impl<T: Serialize> Serialize for Records<'_, T> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.records.len()))?;
                for record in self.0.records {
                    seq.serialize_element(&RecordSer { record, item: self.0.item })?;
                }
                seq.end()
            }
        }
        let mut st = s.serialize_struct(ROOT, 1)?;
        st.serialize_field(RECORDS, &Records(self))?;
        st.end()
    }
}

/// One record, through [`RowSerializer`].
struct RecordSer<'a, T> {
    record: &'a T,
    item: Option<&'static str>,
}

impl<T: Serialize> Serialize for RecordSer<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.record.serialize(RowSerializer { inner: s, item: self.item })
    }
}

/// quick-xml's serializer for one `<records>` element, except that a record of sequence form is
/// written as an element holding one `<item>` per value, instead of one `<records>` per value.
struct RowSerializer<S> {
    inner: S,
    item: Option<&'static str>,
}

/// Writes each value of a sequence-form record as a field named by its message's one field.
struct ItemsAsFields<S> {
    st: S,
    item: &'static str,
}

impl<S: SerializeStruct> SerializeSeq for ItemsAsFields<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), S::Error> {
        self.st.serialize_field(self.item, value)
    }
    fn end(self) -> Result<S::Ok, S::Error> {
        self.st.end()
    }
}

macro_rules! forward_ser {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $($arg: $ty),*) -> Result<$ret, S::Error> {
            self.inner.$method($($arg),*)
        })*
    };
}

impl<S: Serializer> Serializer for RowSerializer<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = ItemsAsFields<S::SerializeStruct>;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = S::SerializeTupleVariant;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = S::SerializeStruct;
    type SerializeStructVariant = S::SerializeStructVariant;

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        let Some(item) = self.item else {
            return Err(S::Error::custom("a record of sequence form, but its message has not exactly one field to name the items"));
        };
        Ok(ItemsAsFields { st: self.inner.serialize_struct(RECORDS, 1)?, item })
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_some(value)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_newtype_struct(name, value)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, name: &'static str, index: u32, variant: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_newtype_variant(name, index, variant, value)
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }

    forward_ser! {
        serialize_bool(v: bool) -> S::Ok;
        serialize_i8(v: i8) -> S::Ok;
        serialize_i16(v: i16) -> S::Ok;
        serialize_i32(v: i32) -> S::Ok;
        serialize_i64(v: i64) -> S::Ok;
        serialize_i128(v: i128) -> S::Ok;
        serialize_u8(v: u8) -> S::Ok;
        serialize_u16(v: u16) -> S::Ok;
        serialize_u32(v: u32) -> S::Ok;
        serialize_u64(v: u64) -> S::Ok;
        serialize_u128(v: u128) -> S::Ok;
        serialize_f32(v: f32) -> S::Ok;
        serialize_f64(v: f64) -> S::Ok;
        serialize_char(v: char) -> S::Ok;
        serialize_str(v: &str) -> S::Ok;
        serialize_bytes(v: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> S::Ok;
        serialize_tuple(len: usize) -> S::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> S::SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> S::SerializeTupleVariant;
        serialize_map(len: Option<usize>) -> S::SerializeMap;
        serialize_struct(name: &'static str, len: usize) -> S::SerializeStruct;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> S::SerializeStructVariant;
    }
}
