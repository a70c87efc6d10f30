//! Two jobs, both from what the build actually uses:
//! - reads the versions of the codec libraries actually linked from the workspace's Cargo.lock, so
//!   what a worker announces can never drift from what it runs;
//! - generates the flatbuffers codec's code into OUT_DIR: the schema (`flatc --proto` on
//!   proto/codecbench/v1/datasets.proto), flatc's Rust for it (`flatc --rust`), and the mapping
//!   between the native model (the prost types) and flatc's tables, written from the contract's
//!   descriptors (`flatbuffers_mapping.rs`, see `flatbuffers` below). Nothing generated is committed.
use std::{env, fs, path::PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let lock = manifest.join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    for lib in ["serde_json", "simd-json", "bson", "prost", "rmp-serde", "ciborium", "quick-xml", "flatbuffers"] {
        let version = text
            .split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{lib}\"\n")))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .map(|v| v.trim_end_matches('"').to_string())
            .unwrap_or_else(|| "unknown".into());
        println!("cargo:rustc-env=CODECBENCH_VERSION_{}={version}", lib.to_uppercase().replace('-', "_"));
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    if let Err(e) = flatbuffers::generate(&manifest.join("../../proto"), &out) {
        panic!("\n\ncodecbench-codecs build: {e}\n\n");
    }
}

#[path = "build/flatbuffers.rs"]
mod flatbuffers;
