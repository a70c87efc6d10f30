//! `protobuf`: prost, on the dataset messages of `proto/`. The payload is the `*Dataset` message.
//! The Rust native model already is the prost types, so no conversion happens anywhere. Encode
//! writes the repeated field straight from the borrowed records (what `*Dataset::encode` does
//! inside, without cloning the records into a message first).
use crate::{Codec, CodecError, CodecMeta, TYPED};
use codecbench_datasets::Records;
use codecbench_proto::v1 as pb;
use prost::Message;

pub struct Protobuf;

fn encode_records<M: Message>(records: &[M]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(prost::encoding::message::encoded_len_repeated(1, records));
    prost::encoding::message::encode_repeated(1, records, &mut buf);
    buf
}

impl Codec for Protobuf {
    fn meta(&self) -> CodecMeta {
        CodecMeta {
            id: "protobuf",
            media_type: "application/x-protobuf",
            decode_modes: &[TYPED],
            library: "prost",
            library_version: env!("CODECBENCH_VERSION_PROST"),
            notes: "payload = the dataset's *Dataset message",
        }
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        Ok(crate::payload::with_records!(records, r => encode_records(r)))
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        let err = CodecError::from_display;
        Ok(match dataset {
            "dummy" => Records::Dummy(pb::DummyDataset::decode(bytes).map_err(err)?.records),
            "numeric" => Records::Numeric(pb::NumericDataset::decode(bytes).map_err(err)?.records),
            "owners" => Records::Owners(pb::OwnersDataset::decode(bytes).map_err(err)?.records),
            "docs" => Records::Docs(pb::DocsDataset::decode(bytes).map_err(err)?.records),
            "beers" => Records::Beers(pb::BeersDataset::decode(bytes).map_err(err)?.records),
            "matrix" => Records::Matrix(pb::MatrixDataset::decode(bytes).map_err(err)?.records),
            other => return Err(CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())),
        })
    }

    fn decode_lazy(&self, _: &[u8], _: &str, _: &mut dyn FnMut(&str)) -> Result<(), CodecError> {
        Err(CodecError("protobuf has no lazy mode here: prost always materialises messages".into()))
    }
}
