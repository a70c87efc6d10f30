//! JSONTestSuite (`../shared/testdata/JSONTestSuite/test_parsing`, used in place) against the json
//! codec's parser (serde_json, the same call both decode modes make): every `y_` case accepted,
//! every `n_` case rejected, `i_` cases either way but never a panic.
use std::path::PathBuf;

#[test]
fn serde_json_accepts_y_rejects_n_and_survives_i() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/JSONTestSuite/test_parsing");
    let (mut y, mut n, mut i) = (0, 0, 0);
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let parsed = std::panic::catch_unwind(|| serde_json::from_slice::<serde_json::Value>(&bytes).is_ok());
        let ok = parsed.unwrap_or_else(|_| panic!("{name}: the parser panicked"));
        match &name[..2] {
            "y_" => { assert!(ok, "{name} must be accepted"); y += 1 }
            "n_" => { assert!(!ok, "{name} must be rejected"); n += 1 }
            _ => i += 1,
        }
    }
    assert!(y > 90 && n > 180 && i > 20, "suite incomplete: {y} y, {n} n, {i} i");
}
