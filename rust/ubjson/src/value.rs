//! The generic document (`tree` mode).
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize};


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
