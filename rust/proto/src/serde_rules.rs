//! The payload rules of proto/README.md ("Payloads") for the serde codecs, as field attributes
//! name them in the generated dataset types (build.rs, build/user.rs): enums by name, doubles from
//! any number, and a user's schema's bytes, floats, Timestamps and maps.

/// For a field of a type without serde (a well-known type such as google.protobuf.Timestamp in a
/// user's schema): every serde codec refuses such a dataset before it is used (`unoffered`), so
/// these only make the derive compile, and say so if ever reached.
pub mod serde_refused {
    pub fn serialize<T, S: serde::Serializer>(_: &T, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("this field's type has no payload rule in the serde codecs (not offered)"))
    }
    pub fn deserialize<'de, T, D: serde::Deserializer<'de>>(_: D) -> Result<T, D::Error> {
        Err(serde::de::Error::custom("this field's type has no payload rule in the serde codecs (not offered)"))
    }
}

/// An enum field on the wire of a serde codec: the value's name (proto/README.md, "Payloads"), a
/// number for a value the enum does not name (as proto3 JSON writes it). prost keeps enum fields
/// as `i32`, so build.rs names these functions on every enum field, by its shape.
pub mod serde_enum {
    use serde::de::{Deserializer, Error, Visitor};
    use serde::Serializer;

    /// A generated enum's names (implemented for every enum a dataset reaches, build.rs).
    pub trait Named {
        fn name(number: i32) -> Option<&'static str>;
        fn number(name: &str) -> Option<i32>;
    }

    pub(crate) fn write<E: Named, S: Serializer>(v: i32, s: S) -> Result<S::Ok, S::Error> {
        match E::name(v) {
            Some(name) => s.serialize_str(name),
            None => s.serialize_i32(v),
        }
    }

    struct Value<E>(std::marker::PhantomData<E>);

    impl<E: Named> Visitor<'_> for Value<E> {
        type Value = i32;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an enum value's name")
        }
        fn visit_str<Er: Error>(self, v: &str) -> Result<i32, Er> {
            E::number(v).ok_or_else(|| Er::custom(format!("unknown enum value {v:?}")))
        }
        fn visit_i64<Er: Error>(self, v: i64) -> Result<i32, Er> {
            i32::try_from(v).map_err(|_| Er::custom(format!("enum number {v} is out of range")))
        }
        fn visit_u64<Er: Error>(self, v: u64) -> Result<i32, Er> {
            i32::try_from(v).map_err(|_| Er::custom(format!("enum number {v} is out of range")))
        }
    }

    pub(crate) fn read<'de, E: Named, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
        d.deserialize_any(Value::<E>(std::marker::PhantomData))
    }

    struct One<E>(i32, std::marker::PhantomData<E>);
    impl<E: Named> serde::Serialize for One<E> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            write::<E, S>(self.0, s)
        }
    }
    struct Read<E>(i32, std::marker::PhantomData<E>);
    impl<'de, E: Named> serde::Deserialize<'de> for Read<E> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            read::<E, D>(d).map(|v| Read(v, std::marker::PhantomData))
        }
    }

    pub mod single {
        use super::*;
        pub fn serialize<E: Named, S: Serializer>(v: &i32, s: S) -> Result<S::Ok, S::Error> {
            write::<E, S>(*v, s)
        }
        pub fn deserialize<'de, E: Named, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
            read::<E, D>(d)
        }
    }

    pub mod optional {
        use super::*;
        pub fn serialize<E: Named, S: Serializer>(v: &Option<i32>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => s.serialize_some(&One::<E>(*v, std::marker::PhantomData)),
                None => s.serialize_none(),
            }
        }
        pub fn deserialize<'de, E: Named, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
            Ok(<Option<Read<E>> as serde::Deserialize>::deserialize(d)?.map(|r| r.0))
        }
    }

    pub mod repeated {
        use super::*;
        pub fn serialize<E: Named, S: Serializer>(v: &[i32], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|&x| One::<E>(x, std::marker::PhantomData)))
        }
        pub fn deserialize<'de, E: Named, D: Deserializer<'de>>(d: D) -> Result<Vec<i32>, D::Error> {
            Ok(<Vec<Read<E>> as serde::Deserialize>::deserialize(d)?.into_iter().map(|r| r.0).collect())
        }
    }
}

/// Serde helpers named by the generated dataset types (build.rs).
pub mod serde_number {
    /// A double field's value from any number: a float, or an integer as JavaScript writers put
    /// a whole-number double (through `deserialize_any`, which every self-describing format has).
    pub fn f64_from_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        <super::serde_float::F64 as super::Rule<f64>>::read(d)
    }
}

/// One value's payload rule (a field's, a repeated field's item, a map's value), applied in every
/// shape a field takes by `serde_shape`: a user's schema puts bytes, floats, Timestamps and enums
/// in singular, optional, repeated, oneof and map fields alike.
pub trait Rule<T> {
    fn write<S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error>;
    fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error>;
}

/// A value serde carries as it is (strings, integers, bools, messages).
pub struct Plain;
impl<T: serde::Serialize + serde::de::DeserializeOwned> Rule<T> for Plain {
    fn write<S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
    fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

/// An enum value by its name (`serde_enum`).
pub struct Enum<E>(std::marker::PhantomData<E>);
impl<E: serde_enum::Named> Rule<i32> for Enum<E> {
    fn write<S: serde::Serializer>(v: &i32, s: S) -> Result<S::Ok, S::Error> {
        serde_enum::write::<E, S>(*v, s)
    }
    fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
        serde_enum::read::<E, D>(d)
    }
}

/// Numbers: a double or a float from any number a writer put (an integer from JavaScript).
pub mod serde_float {
    use serde::de::{Deserializer, Error, Visitor};
    use serde::Serializer;

    struct Number;
    impl Visitor<'_> for Number {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number")
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
    }

    /// `float`: written as an f32 (each format's float32, or its double where it has none);
    /// read from any width and rounded to the nearest float32, which a float32 written wider is.
    pub struct F32;
    impl super::Rule<f32> for F32 {
        fn write<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f32(*v)
        }
        fn read<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
            d.deserialize_any(Number).map(|v| v as f32)
        }
    }

    /// `double`.
    pub struct F64;
    impl super::Rule<f64> for F64 {
        fn write<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f64(*v)
        }
        fn read<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
            d.deserialize_any(Number)
        }
    }
}

/// `bytes`: base64 (standard, padded, as proto3 JSON) in a human-readable format (json, xml), the
/// format's own binary elsewhere (msgpack bin, cbor byte string, bson binary 0x00, ubjson `[$U#`).
/// Reads either form, and an array of small integers (a tree that kept bytes as numbers).
pub mod serde_bytes {
    use base64::Engine as _;
    use serde::de::{Deserializer, Error, SeqAccess, Visitor};
    use serde::Serializer;

    /// Standard alphabet; padding written, and optional on reading (proto3 JSON parsers accept both).
    const B64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new().with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );

    struct Octets;
    impl<'de> Visitor<'de> for Octets {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("bytes, or their base64 text")
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<Vec<u8>, E> {
            B64.decode(v).map_err(|e| E::custom(format!("bytes field: {e}")))
        }
        fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(out)
        }
    }

    pub struct Bytes;
    impl super::Rule<Vec<u8>> for Bytes {
        fn write<S: Serializer>(v: &Vec<u8>, s: S) -> Result<S::Ok, S::Error> {
            if s.is_human_readable() { s.serialize_str(&B64.encode(v)) } else { s.serialize_bytes(v) }
        }
        fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            if d.is_human_readable() { d.deserialize_str(Octets) } else { d.deserialize_byte_buf(Octets) }
        }
    }
}

/// `google.protobuf.Timestamp`: its proto3 JSON string (RFC 3339, UTC, `Z`, 0/3/6/9 fractional
/// digits), which prost-types writes and parses.
pub mod serde_timestamp {
    use serde::de::{Deserializer, Error, Visitor};
    use serde::Serializer;

    struct Text;
    impl Visitor<'_> for Text {
        type Value = prost_types::Timestamp;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an RFC 3339 timestamp")
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<prost_types::Timestamp, E> {
            v.parse().map_err(|e| E::custom(format!("timestamp {v:?}: {e}")))
        }
    }

    pub struct Stamp;
    impl super::Rule<prost_types::Timestamp> for Stamp {
        fn write<S: Serializer>(v: &prost_types::Timestamp, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(v)
        }
        fn read<'de, D: Deserializer<'de>>(d: D) -> Result<prost_types::Timestamp, D::Error> {
            d.deserialize_str(Text)
        }
    }
}

/// A field's shapes, each applying a value's `Rule`: build/user.rs names them as
/// `serialize_with`/`deserialize_with` (e.g. `single::serialize::<Bytes, _, _>`).
pub mod serde_shape {
    use super::Rule;
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Serialize, Serializer};
    use std::marker::PhantomData;

    struct With<'a, R, T>(&'a T, PhantomData<R>);
    impl<R: Rule<T>, T> Serialize for With<'_, R, T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            R::write(self.0, s)
        }
    }
    struct Read<R, T>(T, PhantomData<R>);
    impl<'de, R: Rule<T>, T> Deserialize<'de> for Read<R, T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            R::read(d).map(|v| Read(v, PhantomData))
        }
    }

    pub mod single {
        use super::*;
        pub fn serialize<R: Rule<T>, T, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
            R::write(v, s)
        }
        pub fn deserialize<'de, R: Rule<T>, T, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
            R::read(d)
        }
    }

    /// A proto3 `optional` field, or a message field (prost's `Option`): `None` is null, or no
    /// key at all when the field attribute skips it.
    pub mod optional {
        use super::*;
        pub fn serialize<R: Rule<T>, T, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(v) => s.serialize_some(&With::<R, T>(v, PhantomData)),
                None => s.serialize_none(),
            }
        }
        pub fn deserialize<'de, R: Rule<T>, T, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
            Ok(Option::<Read<R, T>>::deserialize(d)?.map(|r| r.0))
        }
    }

    pub mod repeated {
        use super::*;
        pub fn serialize<R: Rule<T>, T, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|x| With::<R, T>(x, PhantomData)))
        }
        pub fn deserialize<'de, R: Rule<T>, T, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
            Ok(Vec::<Read<R, T>>::deserialize(d)?.into_iter().map(|r| r.0).collect())
        }
    }

    /// A map field: keys as strings (integers in decimal, bools `true`/`false`, as proto3 JSON),
    /// values by their rule. prost's `HashMap` writes entries in its own order; readers compare
    /// maps as maps (proto/README.md).
    pub mod map {
        use super::*;
        use std::collections::HashMap;
        use std::fmt::Display;
        use std::hash::Hash;
        use std::str::FromStr;

        pub fn serialize<R: Rule<V>, K: Display, V, S: Serializer>(m: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error> {
            struct Key<'a, K>(&'a K);
            impl<K: Display> Serialize for Key<'_, K> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    s.collect_str(self.0)
                }
            }
            let mut out = s.serialize_map(Some(m.len()))?;
            for (k, v) in m {
                out.serialize_entry(&Key(k), &With::<R, V>(v, PhantomData))?;
            }
            out.end()
        }

        pub fn deserialize<'de, R: Rule<V>, K: FromStr + Eq + Hash, V, D: Deserializer<'de>>(d: D) -> Result<HashMap<K, V>, D::Error> {
            struct Entries<R, K, V>(PhantomData<(R, K, V)>);
            impl<'de, R: Rule<V>, K: FromStr + Eq + Hash, V> Visitor<'de> for Entries<R, K, V> {
                type Value = HashMap<K, V>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                    let mut out = HashMap::with_capacity(a.size_hint().unwrap_or(0).min(1 << 12));
                    while let Some(key) = a.next_key::<String>()? {
                        let k = key.parse().map_err(|_| serde::de::Error::custom(format!("map key {key:?} is not of the key type")))?;
                        let v = a.next_value::<Read<R, V>>()?.0;
                        if out.insert(k, v).is_some() {
                            return Err(serde::de::Error::custom(format!("map key {key:?} appears twice")));
                        }
                    }
                    Ok(out)
                }
            }
            d.deserialize_map(Entries::<R, K, V>(PhantomData))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::serde_bytes::Bytes;
    use super::serde_float::F32;
    use super::serde_timestamp::Stamp;
    use super::{serde_shape, Plain};
    use std::collections::HashMap;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Row {
        #[serde(serialize_with = "serde_shape::single::serialize::<Bytes, _, _>", deserialize_with = "serde_shape::single::deserialize::<Bytes, _, _>")]
        raw: Vec<u8>,
        #[serde(serialize_with = "serde_shape::repeated::serialize::<F32, _, _>", deserialize_with = "serde_shape::repeated::deserialize::<F32, _, _>")]
        fl: Vec<f32>,
        #[serde(serialize_with = "serde_shape::optional::serialize::<Stamp, _, _>", deserialize_with = "serde_shape::optional::deserialize::<Stamp, _, _>")]
        at: Option<prost_types::Timestamp>,
        #[serde(serialize_with = "serde_shape::map::serialize::<Plain, _, _, _>", deserialize_with = "serde_shape::map::deserialize::<Plain, _, _, _>")]
        by_id: HashMap<i64, String>,
    }

    #[test]
    fn bytes_floats_timestamps_and_map_keys_take_their_proto3_json_forms() {
        let row = Row {
            raw: vec![0, 1, 2, 255],
            fl: vec![0.1, 3.0],
            at: Some(prost_types::Timestamp { seconds: 1_795_773_600, nanos: 120_000_000 }),
            by_id: HashMap::from([(-7, "x".to_string())]),
        };
        let text = serde_json::to_string(&row).unwrap();
        assert_eq!(text, r#"{"raw":"AAEC/w==","fl":[0.1,3.0],"at":"2026-11-27T10:00:00.120Z","by_id":{"-7":"x"}}"#);
        assert_eq!(serde_json::from_str::<Row>(&text).unwrap(), row);
        // What other writers may put: unpadded base64, a float as an integer or as the float32's
        // double, no fractional digits.
        let other = r#"{"raw":"AAEC/w","fl":[0.10000000149011612,3],"at":"2026-11-27T10:00:00.12Z","by_id":{"-7":"x"}}"#;
        assert_eq!(serde_json::from_str::<Row>(other).unwrap(), row);
        for (good, bad, why) in [("AAEC/w==", "*", "bytes field"), ("2026-11-27T10:00:00.120Z", "yesterday", "timestamp"), ("\"-7\"", "\"a\"", "map key")] {
            let e = serde_json::from_str::<Row>(&text.replace(good, bad)).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
    }
}
