//! Reads the versions of the codec libraries actually linked from the workspace's Cargo.lock, so
//! what a worker announces can never drift from what it runs.
use std::{env, fs, path::PathBuf};

fn main() {
    let lock = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    for lib in ["serde_json", "bson", "prost", "rmp-serde", "ciborium", "quick-xml"] {
        let version = text
            .split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{lib}\"\n")))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .map(|v| v.trim_end_matches('"').to_string())
            .unwrap_or_else(|| "unknown".into());
        println!("cargo:rustc-env=CODECBENCH_VERSION_{}={version}", lib.to_uppercase().replace('-', "_"));
    }
}
