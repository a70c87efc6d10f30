//! The one contract (`proto/codecbench/v1`), generated. Never edit generated code: change the
//! .proto files.
pub mod v1 {
    tonic::include_proto!("codecbench.v1");
}

/// A dataset as its record message's `(codecbench.v1.dataset)` option declares it
/// (proto/codecbench/v1/dataset_options.proto).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatasetSpec {
    pub id: &'static str,
    pub description: &'static str,
    /// The record message's full name.
    pub message: &'static str,
    /// Wire names (dotted paths) a lazy decode reads; a cell index for a bare-list record.
    pub lazy_fields: &'static [&'static str],
    /// A record is its one repeated field, a plain array, on the wire of schema-less codecs.
    pub bare_list: bool,
    /// proto/README.md, "Datasets and their schema fingerprint".
    pub fingerprint: &'static str,
    /// The names self-describing payloads give fields: "json" (json_name) or "proto".
    pub field_names: &'static str,
    /// The fields the serde codecs cannot carry (e.g. "map field acme.Order.attributes"): they
    /// refuse the dataset, naming the first (proto/README.md, "Payloads").
    pub unoffered: &'static [&'static str],
    /// A built-in, generated from a seed (rust/datasets); a user's records come from a file.
    pub generated: bool,
}

include!(concat!(env!("OUT_DIR"), "/datasets.rs"));
include!(concat!(env!("OUT_DIR"), "/user_modules.rs"));

/// Every dataset this build carries: the built-ins, then the user's.
pub fn all_dataset_specs() -> impl Iterator<Item = &'static DatasetSpec> {
    DATASET_SPECS.iter().chain(USER_DATASET_SPECS)
}

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

/// Encoded `FileDescriptorSet` of the contract, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("codecbench_descriptor");

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

    fn write<E: Named, S: Serializer>(v: i32, s: S) -> Result<S::Ok, S::Error> {
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

    fn read<'de, E: Named, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
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
    use serde::de::{Deserializer, Error, Visitor};

    /// A double field's value from any number: a float, or an integer as JavaScript writers put
    /// a whole-number double (through `deserialize_any`, which every self-describing format has).
    pub fn f64_from_number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
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
        d.deserialize_any(Number)
    }
}
