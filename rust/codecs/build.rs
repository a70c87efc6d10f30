//! Two jobs, both from what the build actually uses:
//! - turns codecs/catalogue.yaml into the table the codecs announce from, with each library's
//!   version read from the workspace's Cargo.lock (build/catalogue.rs), so what a worker announces
//!   can never drift from the catalogue or from what it runs;
//! - generates the flatbuffers codec's code into OUT_DIR: the schema (`flatc --proto` on
//!   proto/codecbench/v1/datasets.proto), flatc's Rust for it (`flatc --rust`), and the mapping
//!   between the native model (the prost types) and flatc's tables, written from the contract's
//!   descriptors (`flatbuffers_mapping.rs`, see `flatbuffers` below). Nothing generated is committed.
use std::{env, fs, path::PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let lock = manifest.join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let listed = manifest.join("../../codecs/catalogue.yaml");
    println!("cargo:rerun-if-changed={}", listed.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    if let Err(e) = catalogue::generate(&listed, &text, &out) {
        panic!("\n\ncodecbench-codecs build: {e}\n\n");
    }
    if let Err(e) = flatbuffers::generate(&manifest.join("../../proto"), &out) {
        panic!("\n\ncodecbench-codecs build: {e}\n\n");
    }
}

#[path = "build/catalogue.rs"]
mod catalogue;
#[path = "build/flatbuffers.rs"]
mod flatbuffers;
