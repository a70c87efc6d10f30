//! The `{"records": [...]}` wrapper every codec carries, for serde-based codecs.
use codecbench_datasets::Records;
use codecbench_proto::v1 as pb;
use serde::{Deserialize, Serialize};

#[derive(Serialize)]
pub struct PayloadRef<'a, T> {
    pub records: &'a [T],
}

#[derive(Deserialize)]
pub struct Payload<T> {
    pub records: Vec<T>,
}

/// Runs `$body` with `$r` bound to the record slice of `$records`, whatever the dataset.
macro_rules! with_records {
    ($records:expr, $r:ident => $body:expr) => {
        match $records {
            Records::Dummy($r) => $body,
            Records::Numeric($r) => $body,
            Records::Owners($r) => $body,
            Records::Docs($r) => $body,
            Records::Beers($r) => $body,
            Records::Matrix($r) => $body,
        }
    };
}
pub(crate) use with_records;

/// Typed decode of a dataset with a serde deserializer function.
pub fn decode_typed<E: std::fmt::Display>(
    dataset: &str,
    bytes: &[u8],
    de: impl DeFn<E>,
) -> Result<Records, crate::CodecError> {
    let err = crate::CodecError::from_display;
    Ok(match dataset {
        "dummy" => Records::Dummy(de.call::<pb::DummyRecord>(bytes).map_err(err)?),
        "numeric" => Records::Numeric(de.call::<pb::NumericRecord>(bytes).map_err(err)?),
        "owners" => Records::Owners(de.call::<pb::OwnerRecord>(bytes).map_err(err)?),
        "docs" => Records::Docs(de.call::<pb::DocRecord>(bytes).map_err(err)?),
        "beers" => Records::Beers(de.call::<pb::BeerRecord>(bytes).map_err(err)?),
        "matrix" => Records::Matrix(de.call::<pb::MatrixRow>(bytes).map_err(err)?),
        other => return Err(crate::CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())),
    })
}

/// A serde "from bytes" function, generic over the record type.
pub trait DeFn<E> {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, E>;
}
