//! The build's catalogue reader (build/catalogue.rs) refuses what would make the Rust worker
//! announce something other than the catalogue says, naming the codec.
#[allow(dead_code)]
#[path = "../build/catalogue.rs"]
mod catalogue;

const LOCK: &str = "[[package]]\nname = \"serde_json\"\nversion = \"1.0.1\"\n\n[[package]]\nname = \"itoa\"\nversion = \"1.0.15\"\n";

/// The generated table for a catalogue whose one json entry's rust implementation is `rust`.
fn generate(rust: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("codecbench-catalogue-{}-{:x}", std::process::id(), rust.len() ^ rust.bytes().map(usize::from).sum::<usize>()));
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = format!("codecs:\n  - id: json\n    mediaType: application/json\n    deterministic: false\n    fileExtension: json\n    implementations:\n      rust:\n{rust}");
    std::fs::write(dir.join("catalogue.yaml"), yaml).unwrap();
    let out = catalogue::generate(&dir.join("catalogue.yaml"), LOCK, &dir).map(|()| std::fs::read_to_string(dir.join("catalogue.rs")).unwrap());
    std::fs::remove_dir_all(&dir).ok();
    out
}

const REGIONS: &str = "        timedRegions:\n          - {operation: encode, contains: [serialize]}\n          - {operation: typed, contains: [parse]}\n";

#[test]
fn notes_and_regions_are_the_table_with_versions_filled_in() {
    let table = generate(&format!("        library: serde_json\n        modes: [typed]\n        notes: \"itoa {{version:itoa}} writes integers\"\n{REGIONS}")).unwrap();
    assert!(table.contains(r#"notes: "itoa 1.0.15 writes integers""#), "{table}");
    assert!(table.contains(r#"crate::Region { operation: "typed", contains: &["parse"], note: "" }"#), "{table}");
}

#[test]
fn an_unknown_version_name_is_refused() {
    let e = generate(&format!("        library: serde_json\n        modes: [typed]\n        notes: \"{{version:nope}}\"\n{REGIONS}")).unwrap_err();
    assert!(e.contains("json's rust implementation") && e.contains("{version:nope}"), "{e}");
}

#[test]
fn regions_out_of_order_or_missing_are_refused() {
    let e = generate(&format!("        library: serde_json\n        modes: [typed, tree]\n{REGIONS}")).unwrap_err();
    assert!(e.contains("json's rust implementation") && e.contains(r#"["encode", "typed", "tree"]"#), "{e}");
    let e = generate("        library: serde_json\n        modes: [typed]\n").unwrap_err();
    assert!(e.contains("no timedRegions"), "{e}");
}

#[test]
fn an_unknown_region_key_is_refused() {
    let e = generate("        library: serde_json\n        modes: [typed]\n        timedRegions:\n          - {operation: encode, contains: [serialize], notes: x}\n          - {operation: typed, contains: [parse]}\n").unwrap_err();
    assert!(e.contains("unknown field `notes`"), "{e}");
}
