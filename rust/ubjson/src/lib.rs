//! UBJSON (Universal Binary JSON, Draft 12) as a serde data format: a serializer, a
//! self-describing deserializer and a generic `Value`. Written for codecbench's ubjson codec
//! (rust/codecs/src/ubjson.rs) because no complete, maintained Rust crate exists (serde_ub_json
//! cannot decode schema-less values; serde_ubj misreads its own small integers), and the format is
//! small; a crate of its own so the format is tested apart from the plugin.
//!
//! Encoding choices (other libraries choose differently; decoders compare values, not bytes):
//! integers take the smallest marker that holds them (i, U, I, l, L), floats are always float64
//! (D) so no precision is lost, containers are written unsized ([ ] and { }). The decoder reads
//! every Draft 12 form: all numeric markers, C, H (as a string), N (no-op), and optimised
//! containers with `$` type and `#` count. Input is bounded: nesting depth, declared lengths and
//! counts against what is left of the input.
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize};
use std::fmt::Display;

/// What went wrong, as a sentence.
#[derive(Debug)]
pub struct Error(String);

impl Error {
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Error {}
impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}
impl de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

// ---- the generic document (`tree` mode) -----------------------------------------------------

/// A UBJSON value as the decoder reads it: integers of every width as i64, float32 widened to
/// f64, char and high-precision numbers as strings, an optimized array of uint8 as bytes (UBJSON's
/// binary), objects in wire order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a UBJSON value")
            }
            fn visit_unit<E>(self) -> Result<Value, E> { Ok(Value::Null) }
            fn visit_none<E>(self) -> Result<Value, E> { Ok(Value::Null) }
            fn visit_bool<E>(self, v: bool) -> Result<Value, E> { Ok(Value::Bool(v)) }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> { Ok(Value::Int(v)) }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
                i64::try_from(v).map(Value::Int).map_err(|_| E::custom(format!("{v} does not fit an int64")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Value, E> { Ok(Value::Float(v)) }
            fn visit_str<E>(self, v: &str) -> Result<Value, E> { Ok(Value::Str(v.to_owned())) }
            fn visit_string<E>(self, v: String) -> Result<Value, E> { Ok(Value::Str(v)) }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> { Ok(Value::Bytes(v.to_vec())) }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(Value::Array(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some(kv) = map.next_entry()? {
                    out.push(kv);
                }
                Ok(Value::Object(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(n) => s.serialize_i64(*n),
            Value::Float(x) => s.serialize_f64(*x),
            Value::Str(v) => s.serialize_str(v),
            Value::Bytes(v) => s.serialize_bytes(v),
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Object(o) => {
                let mut map = s.serialize_map(Some(o.len()))?;
                for (k, v) in o {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

// ---- encoding ---------------------------------------------------------------------------------

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

// ---- decoding ---------------------------------------------------------------------------------

pub fn from_slice<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut de = Deserializer { input: bytes, pos: 0, depth: 0, free_elements: MAX_FREE_ELEMENTS };
    let value = T::deserialize(&mut de)?;
    de.skip_noops();
    if de.pos != bytes.len() {
        return Err(Error(format!("{} bytes after the value at offset {}", bytes.len() - de.pos, de.pos)));
    }
    Ok(value)
}

/// Containers nested deeper than this are refused instead of exhausting the stack.
const MAX_DEPTH: usize = 128;

/// Elements of `$Z`/`$T`/`$F` containers (no payload: the type says it all) one input may declare.
/// Draft 12 lets 14 bytes declare 2^63 of them, which looped (and in tree mode allocated) until
/// memory ran out (found by tests/fuzz.rs); every other element takes input bytes, so this bounds
/// a decode's work and memory by the input's size. No dataset has such containers.
const MAX_FREE_ELEMENTS: usize = 1 << 16;

pub struct Deserializer<'de> {
    input: &'de [u8],
    pos: usize,
    depth: usize,
    /// What is left of [`MAX_FREE_ELEMENTS`].
    free_elements: usize,
}

impl<'de> Deserializer<'de> {
    fn eof(&self, what: &str) -> Error {
        Error(format!("unexpected end of input reading {what} at offset {}", self.pos))
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'de [u8], Error> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.input.len()).ok_or_else(|| self.eof(what))?;
        let s = &self.input[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self, what: &str) -> Result<u8, Error> {
        Ok(self.take(1, what)?[0])
    }
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }
    fn skip_noops(&mut self) {
        while self.peek() == Some(b'N') {
            self.pos += 1;
        }
    }
    fn marker(&mut self, what: &str) -> Result<u8, Error> {
        self.skip_noops();
        self.byte(what)
    }
    fn int_of(&mut self, marker: u8) -> Result<Option<i64>, Error> {
        Ok(Some(match marker {
            b'i' => self.byte("int8")? as i8 as i64,
            b'U' => self.byte("uint8")? as i64,
            b'I' => i16::from_be_bytes(self.take(2, "int16")?.try_into().unwrap()) as i64,
            b'l' => i32::from_be_bytes(self.take(4, "int32")?.try_into().unwrap()) as i64,
            b'L' => i64::from_be_bytes(self.take(8, "int64")?.try_into().unwrap()),
            _ => return Ok(None),
        }))
    }
    /// A length or count: an integer value, never negative.
    fn length(&mut self, what: &str) -> Result<usize, Error> {
        let at = self.pos;
        let m = self.marker(what)?;
        let n = self.int_of(m)?.ok_or_else(|| Error(format!("{what} at offset {at} has marker {:?}, not an integer", m as char)))?;
        let n = usize::try_from(n).map_err(|_| Error(format!("negative {what} {n} at offset {at}")))?;
        if n > self.input.len() - self.pos && what != "count" {
            return Err(Error(format!("{what} {n} at offset {at} runs past the end of the input")));
        }
        Ok(n)
    }
    fn str_body(&mut self, what: &str) -> Result<&'de str, Error> {
        let n = self.length(what)?;
        let at = self.pos;
        std::str::from_utf8(self.take(n, what)?).map_err(|e| Error(format!("{what} at offset {at} is not UTF-8: {e}")))
    }
    /// After `[` or `{`: an optional `$` type and `#` count.
    fn container_header(&mut self) -> Result<(Option<u8>, Option<usize>), Error> {
        let mut ty = None;
        if self.peek() == Some(b'$') {
            self.pos += 1;
            ty = Some(self.byte("container type")?);
            if self.peek() != Some(b'#') {
                return Err(Error(format!("container with a $ type needs a # count at offset {}", self.pos)));
            }
        }
        let mut count = None;
        if self.peek() == Some(b'#') {
            self.pos += 1;
            let n = self.length("count")?;
            // Every element takes at least a byte unless its type carries no payload (Z, T, F, N).
            if matches!(ty, Some(b'Z' | b'T' | b'F' | b'N')) {
                self.free_elements = self.free_elements.checked_sub(n).ok_or_else(|| {
                    Error(format!("count {n} at offset {} takes the input past {MAX_FREE_ELEMENTS} payload-less elements", self.pos))
                })?;
            } else if n > self.input.len() - self.pos {
                return Err(Error(format!("count {n} at offset {} is more than the input holds", self.pos)));
            }
            count = Some(n);
        }
        Ok((ty, count))
    }
    fn value<V: Visitor<'de>>(&mut self, marker: u8, visitor: V) -> Result<V::Value, Error> {
        if let Some(v) = self.int_of(marker)? {
            return visitor.visit_i64(v);
        }
        match marker {
            b'Z' => visitor.visit_unit(),
            b'T' => visitor.visit_bool(true),
            b'F' => visitor.visit_bool(false),
            b'd' => visitor.visit_f32(f32::from_be_bytes(self.take(4, "float32")?.try_into().unwrap())),
            b'D' => visitor.visit_f64(f64::from_be_bytes(self.take(8, "float64")?.try_into().unwrap())),
            b'C' => {
                let b = self.byte("char")?;
                if !b.is_ascii() {
                    return Err(Error(format!("char {b:#x} at offset {} is not ASCII", self.pos - 1)));
                }
                visitor.visit_char(b as char)
            }
            b'S' => visitor.visit_borrowed_str(self.str_body("string length")?),
            b'H' => visitor.visit_borrowed_str(self.str_body("high-precision number length")?),
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(Error(format!("containers nested deeper than {MAX_DEPTH}")));
                }
                let (ty, count) = self.container_header()?;
                if let (b'[', Some(b'U'), Some(n)) = (marker, ty, count) {
                    // An optimized array of uint8 is UBJSON's binary: a bytes field's form
                    // (proto/README.md), handed over as bytes so that it survives serde's content
                    // buffer (a oneof's flatten) as bytes; a sequence visitor is not offered it.
                    let bytes = self.take(n, "uint8 array")?;
                    self.depth -= 1;
                    return visitor.visit_borrowed_bytes(bytes);
                }
                let access = Access { de: &mut *self, ty, left: count };
                let v = if marker == b'[' { visitor.visit_seq(access)? } else { visitor.visit_map(access)? };
                self.depth -= 1;
                Ok(v)
            }
            other => Err(Error(format!("unknown UBJSON marker {:?} ({other:#04x}) at offset {}", other as char, self.pos - 1))),
        }
    }
}

/// Elements of an array or object, sized (`#`) or ended by `]` / `}`.
struct Access<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    ty: Option<u8>,
    left: Option<usize>,
}

impl<'de> Access<'_, 'de> {
    /// Whether another element follows; consumes the closing marker of an unsized container.
    fn more(&mut self, close: u8) -> Result<bool, Error> {
        match &mut self.left {
            Some(0) => Ok(false),
            Some(n) => {
                *n -= 1;
                Ok(true)
            }
            None => {
                self.de.skip_noops();
                match self.de.peek() {
                    Some(b) if b == close => {
                        self.de.pos += 1;
                        Ok(false)
                    }
                    Some(_) => Ok(true),
                    None => Err(self.de.eof("a container")),
                }
            }
        }
    }
    fn element<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.ty {
            Some(ty) => seed.deserialize(Typed { de: &mut *self.de, marker: ty }),
            None => seed.deserialize(&mut *self.de),
        }
    }
}

impl<'de> SeqAccess<'de> for Access<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if !self.more(b']')? {
            return Ok(None);
        }
        self.element(seed).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

impl<'de> MapAccess<'de> for Access<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        if !self.more(b'}')? {
            return Ok(None);
        }
        let key = self.de.str_body("key length")?;
        seed.deserialize(key.into_deserializer()).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        self.element(seed)
    }
    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

/// An element of a `$`-typed container: its marker was given once in the header.
struct Typed<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    marker: u8,
}

impl<'de> de::Deserializer<'de> for Typed<'_, 'de> {
    type Error = Error;
    fn is_human_readable(&self) -> bool {
        false
    }
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.de.value(self.marker, visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.marker == b'Z' { visitor.visit_none() } else { visitor.visit_some(self) }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;
    fn is_human_readable(&self) -> bool {
        false
    }
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let m = self.marker("a value")?;
        self.value(m, visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip_noops();
        if self.peek() == Some(b'Z') {
            self.pos += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        // Unit variants only (written as strings); the datasets have no other kind.
        let m = self.marker("an enum")?;
        if m != b'S' {
            return Err(Error(format!("an enum must be a string, found marker {:?}", m as char)));
        }
        visitor.visit_enum(self.str_body("string length")?.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn smallest_integer_markers_and_float64() {
        assert_eq!(to_vec(&5i32).unwrap(), b"i\x05");
        assert_eq!(to_vec(&200i32).unwrap(), b"U\xc8");
        assert_eq!(to_vec(&-300i32).unwrap(), b"I\xfe\xd4");
        assert_eq!(to_vec(&70000i64).unwrap(), b"l\x00\x01\x11\x70");
        assert_eq!(to_vec(&(1i64 << 40)).unwrap(), b"L\x00\x00\x01\x00\x00\x00\x00\x00");
        assert_eq!(to_vec(&1.5f64).unwrap(), b"D\x3f\xf8\x00\x00\x00\x00\x00\x00");
        assert_eq!(to_vec("hé").unwrap(), b"Si\x03h\xc3\xa9");
        let m = BTreeMap::from([("a", vec![true, false])]);
        assert_eq!(to_vec(&m).unwrap(), b"{i\x01a[TF]}");
    }

    #[test]
    fn reads_optimised_containers_noops_and_every_number_marker() {
        // {"a": [1, 2, 3] as $i#3, "b": 2.5 as float32, "c": "x" as char}, with a no-op.
        let bytes = b"{#i\x03i\x01a[$i#i\x03\x01\x02\x03i\x01bd\x40\x20\x00\x00Ni\x01cCx";
        #[derive(serde::Deserialize, PartialEq, Debug)]
        struct T { a: Vec<i64>, b: f64, c: String }
        assert_eq!(from_slice::<T>(bytes).unwrap(), T { a: vec![1, 2, 3], b: 2.5, c: "x".into() });
        let v: Vec<i32> = from_slice(b"[U\xffI\x01\x00l\x00\x01\x00\x00]").unwrap();
        assert_eq!(v, [255, 256, 65536]);
    }

    #[test]
    fn the_tree_keeps_bytes_and_writes_them_back() {
        let tree = from_slice::<Value>(b"[$U#i\x02\x07\x08").unwrap();
        assert_eq!(tree, Value::Bytes(vec![7, 8]));
        assert_eq!(to_vec(&tree).unwrap(), b"[$U#i\x02\x07\x08");
    }

    #[test]
    fn corrupt_input_is_an_error_not_a_panic() {
        for bad in [&b""[..], b"S", b"Si\x05ab", b"[i\x01", b"{i\x01a", b"q", b"[#l\x7f\xff\xff\xffi\x01", b"Si\xff", b"Si\x02\xff\xfe", b"[$i"] {
            assert!(from_slice::<serde::de::IgnoredAny>(bad).is_err(), "{bad:?}");
        }
        // Found by tests/fuzz.rs: 2^31 - 1 payload-less elements (and many smaller counts adding
        // up) are refused instead of looping until memory runs out.
        for bad in [&b"[$T#l\x7f\xff\xff\xff"[..], b"[$Z#L\x7f\xff\xff\xff\xff\xff\xff\xff", b"[[$F#l\x00\x00\x80\x00[$F#l\x00\x00\x80\x00[$F#i\x01]"] {
            let e = from_slice::<Value>(bad).unwrap_err();
            assert!(e.0.contains("payload-less elements"), "{bad:?}: {e}");
            assert!(from_slice::<serde::de::IgnoredAny>(bad).is_err(), "{bad:?}");
        }
        assert_eq!(from_slice::<Vec<bool>>(b"[$T#l\x00\x00\x80\x00").unwrap().len(), 1 << 15);
        let deep = [b'['; 1000];
        assert!(from_slice::<serde::de::IgnoredAny>(&deep).unwrap_err().0.contains("nested deeper"));
        assert!(from_slice::<i32>(b"i\x01i\x02").unwrap_err().0.contains("after the value"));
    }
}
