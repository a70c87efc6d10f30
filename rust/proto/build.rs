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
    // A double field also reads an integer: JavaScript writers (cbor-x, @msgpack/msgpack) write a
    // whole-number double such as 2166.0 as an integer, and ciborium, unlike serde_json or
    // rmp-serde, refuses an integer where a float is asked for. Found from the descriptors, so a
    // new dataset needs no entry here.
    for field in double_fields(&root.join("codecbench/v1/datasets.proto"), &root, &out)? {
        builder = builder.field_attribute(field, "#[serde(deserialize_with = \"crate::serde_number::f64_from_number\")]");
    }
    // An upload's chunks as `Bytes`: control takes each from the received buffer without a copy.
    builder = builder.bytes(".codecbench.v1.UploadBlobRequest.data");
    builder.compile_protos(&files, &[root.clone()])?;
    println!("cargo:rerun-if-changed={}", root.display());
    Ok(())
}

/// The singular `double` fields of the dataset messages in `file`, as prost-build paths.
fn double_fields(file: &std::path::Path, root: &std::path::Path, out: &std::path::Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    use prost::Message;
    use prost_types::field_descriptor_proto::{Label, Type};
    let set = out.join("datasets_only.bin");
    let status = std::process::Command::new(env::var("PROTOC")?)
        .arg(format!("--descriptor_set_out={}", set.display()))
        .arg(format!("-I{}", root.display()))
        .arg(file)
        .status()?;
    if !status.success() {
        return Err(format!("protoc failed on {}", file.display()).into());
    }
    let set = prost_types::FileDescriptorSet::decode(std::fs::read(set)?.as_slice())?;
    let mut fields = Vec::new();
    for f in &set.file {
        for m in f.message_type.iter().filter(|m| DATASET_MESSAGES.contains(&m.name())) {
            for field in m.field.iter().filter(|x| x.r#type() == Type::Double && x.label() != Label::Repeated) {
                fields.push(format!(".{}.{}.{}", f.package(), m.name(), field.name()));
            }
        }
    }
    Ok(fields)
}
