//! Encoding: a serde serializer writing UBJSON.
use crate::Error;
use serde::ser::{self, Serialize};


pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut ser = Serializer { out: Vec::with_capacity(256) };
    value.serialize(&mut ser)?;
    Ok(ser.out)
}

pub struct Serializer {
    out: Vec<u8>,
}

impl Serializer {
    fn int(&mut self, v: i64) {
        if let Ok(v) = i8::try_from(v) {
            self.out.push(b'i');
            self.out.push(v as u8);
        } else if let Ok(v) = u8::try_from(v) {
            self.out.push(b'U');
            self.out.push(v);
        } else if let Ok(v) = i16::try_from(v) {
            self.out.push(b'I');
            self.out.extend_from_slice(&v.to_be_bytes());
        } else if let Ok(v) = i32::try_from(v) {
            self.out.push(b'l');
            self.out.extend_from_slice(&v.to_be_bytes());
        } else {
            self.out.push(b'L');
            self.out.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// A string's length and bytes (without the `S` marker: object keys have none).
    fn raw_str(&mut self, s: &str) {
        self.int(s.len() as i64);
        self.out.extend_from_slice(s.as_bytes());
    }
}

impl<'a> ser::Serializer for &'a mut Serializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    /// A binary format: bytes are `[$U#` arrays, not base64 text (proto/README.md, "Payloads").
    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push(if v { b'T' } else { b'F' });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> { self.int(v.into()); Ok(()) }
    fn serialize_i16(self, v: i16) -> Result<(), Error> { self.int(v.into()); Ok(()) }
    fn serialize_i32(self, v: i32) -> Result<(), Error> { self.int(v.into()); Ok(()) }
    fn serialize_i64(self, v: i64) -> Result<(), Error> { self.int(v); Ok(()) }
    fn serialize_u8(self, v: u8) -> Result<(), Error> { self.int(v.into()); Ok(()) }
    fn serialize_u16(self, v: u16) -> Result<(), Error> { self.int(v.into()); Ok(()) }
    fn serialize_u32(self, v: u32) -> Result<(), Error> { self.int(v.into()); Ok(()) }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        // UBJSON has no unsigned 64-bit integer; larger values would need H (high precision).
        let v = i64::try_from(v).map_err(|_| Error(format!("{v} does not fit UBJSON's int64")))?;
        self.int(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> { self.serialize_f64(v.into()) }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.out.push(b'D');
        self.out.extend_from_slice(&v.to_be_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.out.push(b'S');
        self.raw_str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.out.extend_from_slice(b"[$U#");
        self.int(v.len() as i64);
        self.out.extend_from_slice(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> { self.serialize_unit() }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> { v.serialize(self) }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push(b'Z');
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> { self.serialize_unit() }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Error> { v.serialize(self) }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _: &'static str, _: u32, variant: &'static str, v: &T) -> Result<(), Error> {
        self.out.push(b'{');
        self.raw_str(variant);
        v.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Error> {
        self.out.push(b'[');
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, Error> { self.serialize_seq(Some(len)) }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Self, Error> { self.serialize_seq(Some(len)) }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, variant: &'static str, _: usize) -> Result<Self, Error> {
        self.out.push(b'{');
        self.raw_str(variant);
        self.out.push(b'[');
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        self.out.push(b'{');
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> { self.serialize_map(None) }
    fn serialize_struct_variant(self, _: &'static str, _: u32, variant: &'static str, _: usize) -> Result<Self, Error> {
        self.out.push(b'{');
        self.raw_str(variant);
        self.out.push(b'{');
        Ok(self)
    }
}

impl ser::SerializeSeq for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> { v.serialize(&mut **self) }
    fn end(self) -> Result<(), Error> { self.out.push(b']'); Ok(()) }
}
impl ser::SerializeTuple for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> { v.serialize(&mut **self) }
    fn end(self) -> Result<(), Error> { self.out.push(b']'); Ok(()) }
}
impl ser::SerializeTupleStruct for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> { v.serialize(&mut **self) }
    fn end(self) -> Result<(), Error> { self.out.push(b']'); Ok(()) }
}
impl ser::SerializeTupleVariant for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> { v.serialize(&mut **self) }
    fn end(self) -> Result<(), Error> { self.out.extend_from_slice(b"]}"); Ok(()) }
}
impl ser::SerializeMap for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        key.serialize(KeySerializer(&mut **self))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> { v.serialize(&mut **self) }
    fn end(self) -> Result<(), Error> { self.out.push(b'}'); Ok(()) }
}
impl ser::SerializeStruct for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Error> {
        self.raw_str(key);
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Error> { self.out.push(b'}'); Ok(()) }
}
impl ser::SerializeStructVariant for &mut Serializer {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Error> {
        self.raw_str(key);
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Error> { self.out.extend_from_slice(b"}}"); Ok(()) }
}

/// Object keys are strings without the `S` marker; anything else is refused.
struct KeySerializer<'a>(&'a mut Serializer);

impl ser::Serializer for KeySerializer<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;
    fn serialize_str(self, v: &str) -> Result<(), Error> { self.0.raw_str(v); Ok(()) }
    fn serialize_char(self, v: char) -> Result<(), Error> { self.serialize_str(v.encode_utf8(&mut [0; 4])) }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> Result<(), Error> { self.serialize_str(v) }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Error> { v.serialize(self) }
    fn serialize_bool(self, _: bool) -> Result<(), Error> { Err(key_error()) }
    fn serialize_i8(self, v: i8) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_i16(self, v: i16) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_i32(self, v: i32) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_i64(self, v: i64) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_u8(self, v: u8) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_u16(self, v: u16) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_u32(self, v: u32) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_u64(self, v: u64) -> Result<(), Error> { self.serialize_str(&v.to_string()) }
    fn serialize_f32(self, _: f32) -> Result<(), Error> { Err(key_error()) }
    fn serialize_f64(self, _: f64) -> Result<(), Error> { Err(key_error()) }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> { Err(key_error()) }
    fn serialize_none(self) -> Result<(), Error> { Err(key_error()) }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> { Err(key_error()) }
    fn serialize_unit(self) -> Result<(), Error> { Err(key_error()) }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> { Err(key_error()) }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<(), Error> { Err(key_error()) }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> { Err(key_error()) }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> { Err(key_error()) }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> { Err(key_error()) }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant, Error> { Err(key_error()) }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> { Err(key_error()) }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> { Err(key_error()) }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, Error> { Err(key_error()) }
}

fn key_error() -> Error {
    Error("UBJSON object keys must be strings".into())
}
