//! MongoDB's BSON corpus (`testdata/bson-corpus`, laid out by `make testdata` from pymongo 4.10.1's
//! sdist) through the bson codec's own decode entry points, the calls the worker times:
//! `decode` (typed, into each dataset's records), `decode_tree` (bson::Document) and `decode_lazy`.
//! - every `decodeErrors` case of every file is rejected by every mode with the codec's error,
//!   both as the whole payload and as the one record of a `{"records": [case]}` payload (so typed
//!   and lazy walk into the bad bytes instead of stopping at a missing `records` field);
//! - `valid` cases of the types the datasets use decode in tree mode and re-encode to
//!   `canonical_bson`; those of string, int32 and int64 also read back in lazy mode.
mod support;

use codecbench_codecs::{find, LAZY, TREE, TYPED};
use codecbench_datasets::DATASETS;
use serde_json::Value;
use std::path::PathBuf;
use support::decode_mode;

fn corpus() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/bson-corpus");
    assert!(dir.is_dir(), "{} is missing: run `make testdata` (python3 testdata/fetch.py)", dir.display());
    dir
}

struct File {
    name: String,
    /// The key the corpus's cases put their value under (`a`, `d`, `x`, ...), when the file has one.
    test_key: Option<String>,
    json: Value,
}

fn files() -> Vec<File> {
    let mut out: Vec<File> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .map(|name| {
            let text = std::fs::read_to_string(corpus().join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            File { test_key: json["test_key"].as_str().map(String::from), name, json }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// (description, bytes) of a file's `valid` (canonical_bson) or `decodeErrors` (bson) cases.
fn cases(file: &File, kind: &str) -> Vec<(String, Vec<u8>)> {
    let key = if kind == "valid" { "canonical_bson" } else { "bson" };
    file.json[kind].as_array().map(|a| a.iter().map(|c| {
        let what = c["description"].as_str().unwrap_or("").to_string();
        let bytes = hex::decode(c[key].as_str().unwrap()).unwrap_or_else(|e| panic!("{} {what}: {e}", file.name));
        (what, bytes)
    }).collect()).unwrap_or_default()
}

/// `{"records": [doc]}` with `doc`'s bytes as they are (its own length prefix untouched), the
/// enclosing lengths counted from the bytes.
fn as_record(doc: &[u8]) -> Vec<u8> {
    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = ((body.len() + 5) as i32).to_le_bytes().to_vec();
        out.extend_from_slice(body);
        out.push(0);
        out
    }
    let array = frame(&[&[0x03u8][..], b"0\0", doc].concat());
    frame(&[&[0x04u8][..], b"records\0", &array].concat())
}

/// The two cases lazy mode accepts when asked for the corpus's own key `a` in the record form
/// (every mode rejects them as a payload, and typed and tree in every form). Lazy reads a record up
/// to the field and no further, by design: in "extra null" the bad byte lies after `a`; in "eats
/// terminator" `a`'s string ends on its document's terminator, which bson 3.1's raw reader allows
/// (`RawIter` checks an element against the document's length, terminator included) and only a
/// walk past the field notices. A worker's lazy verification still fails on the value it reads.
const LAZY_READS_PAST: &[&str] = &["bad string length: eats terminator", "empty string, but extra null"];

#[test]
fn every_decode_error_case_is_rejected_by_every_bson_mode() {
    let codec = find("bson").unwrap();
    let modes = codec.meta().decode_modes;
    assert_eq!(modes, [TYPED, TREE, LAZY], "a new bson mode must be added here");
    let (mut cases_checked, mut calls) = (0, 0);
    let (mut failures, mut lazy_accepted) = (vec![], vec![]);
    for file in files() {
        let key = file.test_key.clone().unwrap_or_else(|| "a".into());
        for (what, bytes) in cases(&file, "decodeErrors") {
            for (form, payload) in [("payload", bytes.clone()), ("record", as_record(&bytes))] {
                for dataset in DATASETS {
                    for mode in modes {
                        // Lazy reads the dataset's fields, and in the record form also the corpus's key.
                        let key_field = [key.as_str()];
                        let extra: Vec<&[&str]> = if *mode == LAZY && form == "record" { vec![&key_field[..]] } else { vec![] };
                        for fields in std::iter::once(None).chain(extra.into_iter().map(Some)) {
                            let label = format!("{} {what:?} as {form}, {mode} {dataset} {fields:?}", file.name);
                            calls += 1;
                            match decode_mode(codec.as_ref(), mode, dataset, &payload, fields) {
                                Ok(Err(_)) => {}
                                Ok(Ok(())) if fields.is_some() && LAZY_READS_PAST.contains(&what.as_str()) => lazy_accepted.push(what.clone()),
                                Ok(Ok(())) => failures.push(format!("{label}: accepted")),
                                Err(problem) => failures.push(format!("{label}: {problem}")),
                            }
                        }
                    }
                }
            }
            cases_checked += 1;
        }
    }
    support::report(&format!("BSON corpus decodeErrors: {cases_checked} cases, {calls} decode calls (typed, tree, lazy x {} datasets, as payload and as record), {} not rejected cleanly", DATASETS.len(), failures.len()));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    lazy_accepted.dedup();
    assert_eq!(lazy_accepted, LAZY_READS_PAST, "the corpus cases lazy mode accepts when it reads the corpus's own key changed");
    // pymongo 4.10.1's corpus has 75 decodeErrors cases.
    assert!(cases_checked >= 75, "only {cases_checked} decodeErrors cases found");
}

#[test]
fn valid_cases_of_the_dataset_types_round_trip_through_tree_and_lazy() {
    let codec = find("bson").unwrap();
    let (mut tree_checked, mut lazy_checked) = (0, 0);
    for file in files() {
        if !["document.json", "array.json", "string.json", "int32.json", "int64.json", "double.json", "boolean.json", "top.json"].contains(&file.name.as_str()) {
            continue;
        }
        for (what, bytes) in cases(&file, "valid") {
            let Ok(doc) = codec.decode_tree(&bytes).unwrap_or_else(|e| panic!("{} {what}: tree decode: {e}", file.name)).downcast::<bson::Document>() else {
                panic!("{} {what}: the bson tree is not a bson::Document", file.name)
            };
            assert_eq!(bson::serialize_to_vec(&doc).unwrap(), bytes, "{} {what}: tree re-encode", file.name);
            tree_checked += 1;
            if !["string.json", "int32.json", "int64.json"].contains(&file.name.as_str()) {
                continue;
            }
            let key = file.test_key.as_deref().unwrap();
            let want = match doc.get(key).unwrap_or_else(|| panic!("{} {what}: no {key}", file.name)) {
                bson::Bson::String(s) => s.clone(),
                bson::Bson::Int32(n) => n.to_string(),
                bson::Bson::Int64(n) => n.to_string(),
                other => panic!("{} {what}: {other:?}", file.name),
            };
            let got = codecbench_codecs::lazy_values(codec.as_ref(), "corpus", &as_record(&bytes), &[key])
                .unwrap_or_else(|e| panic!("{} {what}: lazy: {e}", file.name));
            assert_eq!(got, [[want]], "{} {what}: lazy", file.name);
            lazy_checked += 1;
        }
    }
    support::report(&format!("BSON corpus valid: {tree_checked} cases round-trip through tree, {lazy_checked} read back through lazy"));
    assert!(tree_checked > 30 && lazy_checked >= 15, "only {tree_checked} tree and {lazy_checked} lazy valid cases found");
}
