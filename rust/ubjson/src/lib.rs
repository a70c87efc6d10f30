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
use serde::{de, ser};
use std::fmt::Display;

mod de_impl;
mod ser_impl;
mod value;

pub use de_impl::{from_slice, Deserializer};
pub use ser_impl::{to_vec, Serializer};
pub use value::Value;

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
