//! Deterministic, seeded generator of the six datasets of DESIGN.md.
//!
//! Records are generated one after another from one ChaCha stream per (dataset, seed), so the same
//! (dataset, count, seed) always gives the same bytes, and a smaller count is a prefix of a larger
//! one. Values vary per record within the lengths and magnitudes each dataset's
//! module describes (`dummy.rs`, `numeric.rs`, …); `codecs/vectors/<dataset>.pb` holds three of them.
mod common;
mod dummy;
mod numeric;
mod owners;
mod docs;
mod beers;
mod matrix;

use codecbench_proto::v1 as pb;
use prost::Message;

pub use common::Gen;

/// Every dataset id, in the order DESIGN.md lists them.
pub const DATASETS: &[&str] = &["dummy", "numeric", "owners", "docs", "beers", "matrix"];

/// Cells per matrix row (one record of `matrix` is one row).
pub const MATRIX_COLUMNS: usize = matrix::COLUMNS;

/// The records of one dataset, in the contract's own types (which are also the Rust native model).
#[derive(Clone, Debug, PartialEq)]
pub enum Records {
    Dummy(Vec<pb::DummyRecord>),
    Numeric(Vec<pb::NumericRecord>),
    Owners(Vec<pb::OwnerRecord>),
    Docs(Vec<pb::DocRecord>),
    Beers(Vec<pb::BeerRecord>),
    Matrix(Vec<pb::MatrixRow>),
}

#[derive(Debug, PartialEq, Eq)]
pub struct UnknownDataset(pub String);

impl std::fmt::Display for UnknownDataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown dataset '{}' (known: {})", self.0, DATASETS.join(", "))
    }
}
impl std::error::Error for UnknownDataset {}

/// Generates `count` records of `dataset` from `seed`.
pub fn generate(dataset: &str, count: u32, seed: u64) -> Result<Records, UnknownDataset> {
    let mut g = Gen::new(dataset, seed);
    let n = count as usize;
    Ok(match dataset {
        "dummy" => Records::Dummy((0..n).map(|i| dummy::record(&mut g, i)).collect()),
        "numeric" => Records::Numeric((0..n).map(|i| numeric::record(&mut g, i)).collect()),
        "owners" => Records::Owners((0..n).map(|i| owners::record(&mut g, i)).collect()),
        "docs" => Records::Docs((0..n).map(|i| docs::record(&mut g, i)).collect()),
        "beers" => Records::Beers((0..n).map(|i| beers::record(&mut g, i)).collect()),
        "matrix" => Records::Matrix((0..n).map(|i| matrix::record(&mut g, i)).collect()),
        other => return Err(UnknownDataset(other.to_string())),
    })
}

/// Writes the canonical blob of `count` records of `dataset` from `seed` to `out`, one record at a
/// time, and returns its size: the bytes of `generate(..)?.to_canonical_bytes()` (a `*Dataset`
/// message is its records as field 1, back to back) in memory bounded by one record, so control
/// can store a dataset of millions of records without holding it.
pub fn write_canonical(dataset: &str, count: u32, seed: u64, out: &mut dyn std::io::Write) -> std::io::Result<u64> {
    fn each<M: Message>(n: usize, mut make: impl FnMut(usize) -> M, out: &mut dyn std::io::Write) -> std::io::Result<u64> {
        let mut buf = Vec::new();
        let mut total = 0u64;
        for i in 0..n {
            buf.clear();
            prost::encoding::message::encode(1, &make(i), &mut buf);
            out.write_all(&buf)?;
            total += buf.len() as u64;
        }
        Ok(total)
    }
    let mut g = Gen::new(dataset, seed);
    let n = count as usize;
    match dataset {
        "dummy" => each(n, |i| dummy::record(&mut g, i), out),
        "numeric" => each(n, |i| numeric::record(&mut g, i), out),
        "owners" => each(n, |i| owners::record(&mut g, i), out),
        "docs" => each(n, |i| docs::record(&mut g, i), out),
        "beers" => each(n, |i| beers::record(&mut g, i), out),
        "matrix" => each(n, |i| matrix::record(&mut g, i), out),
        other => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, UnknownDataset(other.to_string()))),
    }
}

impl Records {
    /// The protobuf encoding of the dataset's `*Dataset` message: the canonical blob control ships,
    /// and the protobuf codec's payload. Written from the borrowed records (what
    /// `*Dataset::encode` does inside, without first cloning them into a message).
    pub fn to_protobuf(&self) -> Vec<u8> {
        fn encode<M: Message>(records: &[M]) -> Vec<u8> {
            let mut buf = Vec::with_capacity(prost::encoding::message::encoded_len_repeated(1, records));
            prost::encoding::message::encode_repeated(1, records, &mut buf);
            buf
        }
        match self {
            Records::Dummy(r) => encode(r),
            Records::Numeric(r) => encode(r),
            Records::Owners(r) => encode(r),
            Records::Docs(r) => encode(r),
            Records::Beers(r) => encode(r),
            Records::Matrix(r) => encode(r),
        }
    }

    /// Parses the protobuf encoding of `dataset`'s `*Dataset` message.
    pub fn from_protobuf(dataset: &str, bytes: &[u8]) -> Result<Records, String> {
        let err = |e: prost::DecodeError| e.to_string();
        Ok(match dataset {
            "dummy" => Records::Dummy(pb::DummyDataset::decode(bytes).map_err(err)?.records),
            "numeric" => Records::Numeric(pb::NumericDataset::decode(bytes).map_err(err)?.records),
            "owners" => Records::Owners(pb::OwnersDataset::decode(bytes).map_err(err)?.records),
            "docs" => Records::Docs(pb::DocsDataset::decode(bytes).map_err(err)?.records),
            "beers" => Records::Beers(pb::BeersDataset::decode(bytes).map_err(err)?.records),
            "matrix" => Records::Matrix(pb::MatrixDataset::decode(bytes).map_err(err)?.records),
            other => return Err(UnknownDataset(other.to_string()).to_string()),
        })
    }

    /// The canonical blob of these records.
    pub fn to_canonical_bytes(&self) -> Vec<u8> {
        self.to_protobuf()
    }

    /// Parses a canonical blob of `dataset`.
    pub fn from_canonical_bytes(dataset: &str, bytes: &[u8]) -> Result<Records, String> {
        Records::from_protobuf(dataset, bytes).map_err(|e| format!("canonical {dataset} blob is not valid protobuf: {e}"))
    }

    pub fn dataset(&self) -> &'static str {
        match self {
            Records::Dummy(_) => "dummy",
            Records::Numeric(_) => "numeric",
            Records::Owners(_) => "owners",
            Records::Docs(_) => "docs",
            Records::Beers(_) => "beers",
            Records::Matrix(_) => "matrix",
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Records::Dummy(r) => r.len(),
            Records::Numeric(r) => r.len(),
            Records::Owners(r) => r.len(),
            Records::Docs(r) => r.len(),
            Records::Beers(r) => r.len(),
            Records::Matrix(r) => r.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values lazy decode reads from every record for `field` (one of `lazy_fields`), as
    /// canonical strings (integers in decimal). None for a field that is not a lazy field.
    pub fn lazy_values(&self, field: &str) -> Option<Vec<String>> {
        fn col<T>(r: &[T], f: impl Fn(&T) -> String) -> Option<Vec<String>> {
            Some(r.iter().map(f).collect())
        }
        match (self, field) {
            (Records::Dummy(r), "guid") => col(r, |x| x.guid.clone()),
            (Records::Dummy(r), "favoriteFruit") => col(r, |x| x.favorite_fruit.clone()),
            (Records::Numeric(r), "_id") => col(r, |x| x.id.clone()),
            (Records::Numeric(r), "numbr") => col(r, |x| x.numbr.to_string()),
            (Records::Owners(r), "name") => col(r, |x| x.name.clone()),
            (Records::Owners(r), "taxNumber") => col(r, |x| x.tax_number.to_string()),
            (Records::Docs(r), "name") => col(r, |x| x.name.clone()),
            (Records::Docs(r), "delivery.company") => col(r, |x| x.delivery.as_ref().map(|d| d.company.clone()).unwrap_or_default()),
            (Records::Beers(r), "name") => col(r, |x| x.name.clone()),
            (Records::Beers(r), "details") => col(r, |x| x.details.clone()),
            (Records::Matrix(r), i) => {
                let i: usize = i.parse().ok()?;
                r.iter().map(|x| x.cells.get(i).cloned()).collect()
            }
            _ => None,
        }
    }
}

/// The fields lazy decode reads from every record of `dataset`, the same in every language: one
/// near the start of the record and one at its end (a dotted path into nested documents; for
/// matrix rows, a cell index). Where a field sits changes what a lazy read costs, so both ends
/// are read.
pub fn lazy_fields(dataset: &str) -> Option<&'static [&'static str]> {
    Some(match dataset {
        "dummy" => &["guid", "favoriteFruit"],
        "numeric" => &["_id", "numbr"],
        "owners" => &["name", "taxNumber"],
        "docs" => &["name", "delivery.company"],
        "beers" => &["name", "details"],
        "matrix" => &["0", "99"],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_canonical_blob_is_the_generated_one() {
        for d in DATASETS {
            let mut streamed = Vec::new();
            let size = write_canonical(d, 40, 9, &mut streamed).unwrap();
            assert_eq!(streamed, generate(d, 40, 9).unwrap().to_canonical_bytes(), "{d}");
            assert_eq!(size, streamed.len() as u64);
        }
        let unknown = write_canonical("nope", 1, 1, &mut Vec::new()).unwrap_err();
        assert!(unknown.to_string().contains("unknown dataset 'nope'"), "{unknown}");
    }

    #[test]
    fn same_seed_same_bytes_and_prefix_property() {
        for d in DATASETS {
            let a = generate(d, 50, 7).unwrap().to_canonical_bytes();
            let b = generate(d, 50, 7).unwrap().to_canonical_bytes();
            assert_eq!(a, b, "{d}: same seed must give the same bytes");
            let c = generate(d, 50, 8).unwrap().to_canonical_bytes();
            assert_ne!(a, c, "{d}: another seed must give other data");
            let small = generate(d, 10, 7).unwrap();
            let big = generate(d, 50, 7).unwrap();
            for f in lazy_fields(d).unwrap() {
                assert_eq!(small.lazy_values(f).unwrap()[..], big.lazy_values(f).unwrap()[..10], "{d}: prefix property");
            }
        }
    }

    #[test]
    fn records_vary_and_round_trip_protobuf() {
        for d in DATASETS {
            let r = generate(d, 20, 1).unwrap();
            assert_eq!(r.len(), 20);
            let back = Records::from_canonical_bytes(d, &r.to_canonical_bytes()).unwrap();
            assert_eq!(back, r);
            let mut lazy = r.lazy_values(lazy_fields(d).unwrap()[0]).unwrap();
            lazy.sort();
            lazy.dedup();
            assert!(lazy.len() > 15, "{d}: records must differ, got {} distinct", lazy.len());
        }
    }

    #[test]
    fn shapes_follow_datasets_md() {
        let Records::Dummy(d) = generate("dummy", 30, 1).unwrap() else { unreachable!() };
        for r in &d {
            assert_eq!(r.tags.len(), 7);
            assert_eq!(r.friends.len(), 3);
            assert_eq!(r.id.len(), 24);
            assert!(r.about.ends_with("\r\n"));
            let unread = r.greeting.strip_prefix(&format!("Hello, {}! You have ", r.name))
                .and_then(|rest| rest.strip_suffix(" unread messages."));
            assert!(unread.is_some_and(|n| n.parse::<u32>().is_ok()), "greeting: {}", r.greeting);
        }
        let Records::Numeric(n) = generate("numeric", 30, 1).unwrap() else { unreachable!() };
        assert!(n.iter().all(|r| r.coordinates.len() == 10));
        assert!(n.iter().flat_map(|r| &r.coordinates).all(|c| c.timestamp > i64::from(u32::MAX)));
        let Records::Owners(o) = generate("owners", 30, 1).unwrap() else { unreachable!() };
        assert!(o.iter().all(|r| r.cars.len() == 4));
        let Records::Beers(b) = generate("beers", 30, 1).unwrap() else { unreachable!() };
        assert!(b.iter().all(|r| (100..=600).contains(&r.details.len())));
        let Records::Matrix(m) = generate("matrix", 5, 1).unwrap() else { unreachable!() };
        assert!(m.iter().all(|r| r.cells.len() == MATRIX_COLUMNS));
        assert!(m[0].cells.iter().all(|c| c.split('.').nth(1).map(str::len) == Some(10)));
    }

    #[test]
    fn unknown_dataset_is_named() {
        assert_eq!(generate("dumy", 1, 1).unwrap_err().to_string(),
            "unknown dataset 'dumy' (known: dummy, numeric, owners, docs, beers, matrix)");
    }
}
