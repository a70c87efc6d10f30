//! MongoDB's BSON corpus (`../shared/testdata/bson-corpus`, used in place) against both decode
//! paths of the Rust bson codec: serde (`typed`) and the raw document (`lazy`).
//! - `valid` cases of the types the datasets use decode and re-encode to `canonical_bson`.
//! - every `decodeErrors` case of every file is rejected with an error, never a panic.
use bson::{Document, RawBsonRef, RawDocument};
use serde_json::Value;
use std::path::PathBuf;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/bson-corpus")
}

fn cases(file: &str, kind: &str) -> Vec<(String, Vec<u8>)> {
    let text = std::fs::read_to_string(corpus().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let json: Value = serde_json::from_str(&text).unwrap();
    let key = if kind == "valid" { "canonical_bson" } else { "bson" };
    json[kind].as_array().map(|a| a.iter().map(|c| {
        (c["description"].as_str().unwrap_or("").to_string(), hex::decode(c[key].as_str().unwrap()).unwrap())
    }).collect()).unwrap_or_default()
}

/// The lazy path reads a raw document without materialising it; a full walk validates every
/// element the way reading any field of it would.
fn walk(doc: &RawDocument) -> Result<usize, bson::error::Error> {
    let mut n = 0;
    for element in doc {
        n += walk_value(element?.1)?;
    }
    Ok(n)
}

fn walk_value(value: RawBsonRef<'_>) -> Result<usize, bson::error::Error> {
    Ok(1 + match value {
        RawBsonRef::Document(d) => walk(d)?,
        RawBsonRef::Array(a) => a.into_iter().map(|v| walk_value(v?)).sum::<Result<usize, _>>()?,
        RawBsonRef::JavaScriptCodeWithScope(c) => walk(c.scope)?,
        _ => 0,
    })
}

#[test]
fn valid_cases_of_the_dataset_types_round_trip_to_canonical_bson() {
    let mut checked = 0;
    for file in ["document.json", "array.json", "string.json", "int32.json", "int64.json", "double.json", "boolean.json", "top.json"] {
        for (what, bytes) in cases(file, "valid") {
            let doc: Document = bson::deserialize_from_slice(&bytes).unwrap_or_else(|e| panic!("{file} {what}: typed decode: {e}"));
            assert_eq!(bson::serialize_to_vec(&doc).unwrap(), bytes, "{file} {what}: typed re-encode");
            let raw = RawDocument::from_bytes(&bytes).unwrap();
            walk(raw).unwrap_or_else(|e| panic!("{file} {what}: lazy walk: {e}"));
            let from_raw = Document::try_from(raw).unwrap();
            assert_eq!(bson::serialize_to_vec(&from_raw).unwrap(), bytes, "{file} {what}: lazy re-encode");
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} valid cases found");
}

#[test]
fn every_decode_error_case_is_rejected_by_both_paths() {
    let mut checked = 0;
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if !file.ends_with(".json") {
            continue;
        }
        for (what, bytes) in cases(&file, "decodeErrors") {
            assert!(bson::deserialize_from_slice::<Document>(&bytes).is_err(), "{file} {what}: typed decode accepted it");
            let lazy = RawDocument::from_bytes(&bytes).map_err(|e| e.to_string()).and_then(|d| walk(d).map_err(|e| e.to_string()));
            assert!(lazy.is_err(), "{file} {what}: lazy walk accepted it");
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} decodeErrors cases found");
}
