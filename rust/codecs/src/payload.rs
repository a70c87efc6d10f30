//! The `{"records": [...]}` wrapper every codec carries, for serde-based codecs.
use codecbench_datasets::Records;
use serde::{Deserialize, Serialize};

#[derive(Serialize)]
pub struct PayloadRef<'a, T> {
    pub records: &'a [T],
}

#[derive(Deserialize)]
pub struct Payload<T> {
    pub records: Vec<T>,
}

/// Runs `$body` with `$r` bound to the record slice of `$records`, whatever the dataset
/// (generated from the descriptors by rust/proto/build.rs).
pub(crate) use codecbench_proto::with_records;

/// Typed decode of a dataset with a serde deserializer function.
pub fn decode_typed<E: std::fmt::Display>(
    dataset: &str,
    bytes: &[u8],
    de: impl DeFn<E>,
) -> Result<Records, crate::CodecError> {
    use codecbench_datasets::DatasetRecord;
    let err = crate::CodecError::from_display;
    codecbench_proto::with_record_type!(dataset, T => Ok(T::into_records(de.call::<T>(bytes).map_err(err)?)),
        other => Err(crate::CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())))
}

/// A serde "from bytes" function, generic over the record type.
pub trait DeFn<E> {
    fn call<T: serde::de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, E>;
}
