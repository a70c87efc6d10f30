//! Generates the contract's Rust code. The dataset messages double as the Rust native model, so
//! they also derive serde with the wire names of DESIGN.md (proto JSON names, `_id` as written).
use std::{env, path::PathBuf};

const DATASET_MESSAGES: &[&str] = &[
    "DummyRecord", "DummyFriend", "DummyDataset", "NumericRecord", "NumericCoordinate",
    "NumericDataset", "OwnerRecord", "OwnerCar", "OwnersDataset", "DocRecord", "DocDepartment",
    "DocEmployee", "DocPrice", "DocOwner", "DocData", "DocTransaction", "DocDelivery",
    "DocAddress", "DocGood", "DocsDataset", "BeerRecord", "BeersDataset", "MatrixDataset",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if env::var_os("PROTOC").is_none() {
        // SAFETY: build scripts are single-threaded at this point.
        unsafe { env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    }
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    let files = ["datasets", "scenario", "results", "worker_service", "harness_service"]
        .map(|f| root.join(format!("codecbench/v1/{f}.proto")));
    let out = PathBuf::from(env::var("OUT_DIR")?);
    let mut builder = tonic_prost_build::configure()
        .file_descriptor_set_path(out.join("codecbench_descriptor.bin"));
    for m in DATASET_MESSAGES {
        builder = builder.message_attribute(
            format!(".codecbench.v1.{m}"),
            "#[derive(serde::Serialize, serde::Deserialize)] #[serde(rename_all = \"camelCase\")]",
        );
    }
    // A matrix row is a plain array of strings on the wire of schema-less codecs.
    builder = builder
        .message_attribute(".codecbench.v1.MatrixRow", "#[derive(serde::Serialize, serde::Deserialize)] #[serde(transparent)]")
        .field_attribute(".codecbench.v1.DummyRecord.id", "#[serde(rename = \"_id\")]")
        .field_attribute(".codecbench.v1.NumericRecord.id", "#[serde(rename = \"_id\")]");
    builder.compile_protos(&files, &[root.clone()])?;
    println!("cargo:rerun-if-changed={}", root.display());
    Ok(())
}
