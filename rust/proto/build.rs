//! Generates the contract's Rust code, and everything the Rust crates know about datasets, from
//! the descriptors:
//! - a dataset is a record message marked with the `(codecbench.v1.dataset)` option
//!   (dataset_options.proto); its record types and their `*Dataset` list messages double as the
//!   Rust native model, so they derive serde, each field renamed to its proto JSON name;
//! - `datasets.rs` in OUT_DIR: the catalogue (id, description, lazy fields, schema fingerprint)
//!   and the macros the other crates dispatch on a dataset with, so a new dataset needs no
//!   hand-written match arm anywhere.
use prost_reflect::{Cardinality, DescriptorPool, FieldDescriptor, Kind, MessageDescriptor, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::{env, path::Path, path::PathBuf};

type Error = Box<dyn std::error::Error>;

#[path = "build/user.rs"]
mod user;

fn main() -> Result<(), Error> {
    if env::var_os("PROTOC").is_none() {
        // SAFETY: build scripts are single-threaded at this point.
        unsafe { env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    }
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    let files = ["dataset_options", "datasets", "scenario", "results", "worker_service", "harness_service"]
        .map(|f| root.join(format!("codecbench/v1/{f}.proto")));
    let out = PathBuf::from(env::var("OUT_DIR")?);
    let pool = descriptor_pool(&root.join("codecbench/v1/datasets.proto"), &root, &out)?;
    let datasets = datasets(&pool)?;

    let mut builder = tonic_prost_build::configure().file_descriptor_set_path(out.join("codecbench_descriptor.bin"));
    for message in model_messages(&datasets) {
        let path = format!(".{}", message.full_name());
        let bare = datasets.iter().any(|d| d.record == message && d.bare_list);
        // A bare-list record (a matrix row) is its one repeated field on the wire of schema-less codecs.
        let serde = if bare { "#[serde(transparent)]" } else { "" };
        builder = builder.message_attribute(&path, format!("#[derive(serde::Serialize, serde::Deserialize)] {serde}"));
        for field in message.fields() {
            let field_path = format!("{path}.{}", field.name());
            if !bare {
                builder = builder.field_attribute(&field_path, format!("#[serde(rename = {:?})]", field.json_name()));
            }
            // proto/README.md, "Payloads": an unset proto3 `optional` field is left out, and
            // reads back unset; an enum value is its name.
            let optional = field.field_descriptor_proto().proto3_optional();
            if optional {
                builder = builder.field_attribute(&field_path, "#[serde(default, skip_serializing_if = \"Option::is_none\")]");
            }
            if let Kind::Enum(e) = field.kind() {
                let shape = if field.cardinality() == Cardinality::Repeated { "repeated" } else if optional { "optional" } else { "single" };
                let t = rust_type(e.full_name(), e.parent_message().is_some());
                builder = builder.field_attribute(&field_path, format!(
                    "#[serde(serialize_with = \"crate::serde_enum::{shape}::serialize::<{t}, _>\", deserialize_with = \"crate::serde_enum::{shape}::deserialize::<{t}, _>\")]"
                ));
            }
            // A double field also reads an integer: JavaScript writers (cbor-x, @msgpack/msgpack)
            // write a whole-number double such as 2166.0 as an integer, and ciborium, unlike
            // serde_json or rmp-serde, refuses an integer where a float is asked for.
            if field.kind() == Kind::Double && field.cardinality() != Cardinality::Repeated {
                builder = builder.field_attribute(&field_path, "#[serde(deserialize_with = \"crate::serde_number::f64_from_number\")]");
            }
        }
    }
    // An upload's chunks as `Bytes`: control takes each from the received buffer without a copy.
    builder = builder.bytes(".codecbench.v1.UploadBlobRequest.data");
    builder.compile_protos(&files, &[root.clone()])?;
    let (users, user_files) = user::load()?;
    let modules = match user_files {
        Some(set) => user::compile(&users, set, &out)?,
        None => String::new(),
    };
    std::fs::write(out.join("user_modules.rs"), modules)?;
    std::fs::write(out.join("datasets.rs"), render(&datasets, &users)?)?;
    println!("cargo:rerun-if-changed={}", root.display());
    Ok(())
}

/// datasets.proto and what it imports, as a pool whose options carry their extensions.
fn descriptor_pool(file: &Path, root: &Path, out: &Path) -> Result<DescriptorPool, Error> {
    let set = out.join("datasets_only.bin");
    let status = std::process::Command::new(env::var("PROTOC")?)
        .arg(format!("--descriptor_set_out={}", set.display()))
        .arg("--include_imports")
        .arg(format!("-I{}", root.display()))
        .arg(format!("-I{}", protoc_bin_vendored::include_path()?.display()))
        .arg(file)
        .status()?;
    if !status.success() {
        return Err(format!("protoc failed on {}", file.display()).into());
    }
    Ok(DescriptorPool::decode(std::fs::read(set)?.as_slice())?)
}

struct Dataset {
    id: String,
    description: String,
    lazy_fields: Vec<String>,
    bare_list: bool,
    record: MessageDescriptor,
    /// `XDataset { repeated Record records = 1; }`: the canonical blob's and protobuf payload's message.
    list: MessageDescriptor,
    fingerprint: String,
}

/// Every record message of datasets.proto marked with the `(dataset)` option, in file order.
fn datasets(pool: &DescriptorPool) -> Result<Vec<Dataset>, Error> {
    let option = pool.get_extension_by_name("codecbench.v1.dataset").ok_or("no codecbench.v1.dataset extension")?;
    let file = pool.get_file_by_name("codecbench/v1/datasets.proto").ok_or("datasets.proto is not in the pool")?;
    let mut out = Vec::new();
    for record in file.messages() {
        let options = record.options();
        if !options.has_extension(&option) {
            continue;
        }
        let Value::Message(o) = options.get_extension(&option).into_owned() else { unreachable!("a message option") };
        let text = |name: &str| o.get_field_by_name(name).and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let id = text("id");
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') || !id.starts_with(|c: char| c.is_ascii_lowercase()) {
            return Err(format!("{}: (dataset).id {id:?} must be lowercase letters, digits and _ (it names the generator's module)", record.full_name()).into());
        }
        let lazy_fields = o.get_field_by_name("lazy_fields")
            .and_then(|v| v.as_list().map(|l| l.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()))
            .unwrap_or_default();
        let bare_list = o.get_field_by_name("bare_list").and_then(|v| v.as_bool()).unwrap_or(false);
        let list = file.messages().find(|m| {
            let f: Vec<_> = m.fields().collect();
            matches!(&f[..], [only] if only.number() == 1 && only.cardinality() == Cardinality::Repeated && only.kind().as_message() == Some(&record))
        }).ok_or_else(|| format!("{}: datasets.proto has no list message `repeated {} records = 1;`", record.full_name(), record.name()))?;
        out.push(Dataset { id, description: text("description"), lazy_fields, bare_list, fingerprint: fingerprint(&record), list, record });
    }
    Ok(out)
}

/// The Rust path of a generated type, from its full name in package codecbench.v1.
fn rust_type(full_name: &str, nested: bool) -> String {
    let name = full_name.strip_prefix("codecbench.v1.").unwrap_or(full_name);
    if !nested {
        return format!("crate::v1::{name}");
    }
    // prost nests a message's types in a module named by the message in snake_case.
    let parts: Vec<&str> = name.split('.').collect();
    let (last, outer) = parts.split_last().unwrap();
    let modules: Vec<String> = outer.iter().map(|p| snake(p)).collect();
    format!("crate::v1::{}::{last}", modules.join("::"))
}

fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The record and list messages of every dataset, and every message they reach.
fn model_messages(datasets: &[Dataset]) -> Vec<MessageDescriptor> {
    let mut seen = BTreeMap::new();
    let mut todo: Vec<MessageDescriptor> = datasets.iter().flat_map(|d| [d.record.clone(), d.list.clone()]).collect();
    while let Some(m) = todo.pop() {
        if seen.insert(m.full_name().to_string(), m.clone()).is_none() {
            todo.extend(m.fields().filter_map(|f| f.kind().as_message().cloned()));
        }
    }
    seen.into_values().collect()
}

/// The record schema's fingerprint (proto/README.md, "Datasets and their schema fingerprint").
fn fingerprint(record: &MessageDescriptor) -> String {
    use sha2::{Digest, Sha256};
    enum Type {
        Message(MessageDescriptor),
        Enum(prost_reflect::EnumDescriptor),
    }
    let mut types = BTreeMap::new();
    let mut todo = vec![Type::Message(record.clone())];
    while let Some(t) = todo.pop() {
        let name = match &t {
            Type::Message(m) => m.full_name().to_string(),
            Type::Enum(e) => e.full_name().to_string(),
        };
        if types.contains_key(&name) {
            continue;
        }
        if let Type::Message(m) = &t {
            for f in m.fields() {
                match f.kind() {
                    Kind::Message(r) => todo.push(Type::Message(r)),
                    Kind::Enum(r) => todo.push(Type::Enum(r)),
                    _ => {}
                }
            }
        }
        types.insert(name, t);
    }
    let mut text = String::new();
    for (name, t) in &types {
        match t {
            Type::Enum(e) => {
                let _ = writeln!(text, "enum {name}");
                let mut values: Vec<_> = e.values().map(|v| (v.number(), v.name().to_string())).collect();
                values.sort();
                for (number, value) in values {
                    let _ = writeln!(text, "{number} {value}");
                }
            }
            Type::Message(m) => {
                let _ = writeln!(text, "message {name}");
                let mut fields: Vec<FieldDescriptor> = m.fields().collect();
                fields.sort_by_key(|f| f.number());
                for f in fields {
                    let proto = f.field_descriptor_proto();
                    let type_name = match f.kind() {
                        Kind::Message(r) => r.full_name().to_string(),
                        Kind::Enum(r) => r.full_name().to_string(),
                        _ => String::new(),
                    };
                    let oneof = f.containing_oneof().filter(|o| !o.is_synthetic()).map(|o| o.name().to_string()).unwrap_or_default();
                    let _ = writeln!(
                        text, "{} {} {} {} {} {} {} {}",
                        f.number(), f.name(), f.json_name(), proto.r#type.unwrap_or_default(),
                        u8::from(f.cardinality() == Cardinality::Repeated), type_name, u8::from(proto.proto3_optional()), oneof
                    );
                }
            }
        }
    }
    hex(&Sha256::digest(text.as_bytes())[..8])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `dummy` -> `Dummy`, `media_content` -> `MediaContent`.
fn variant(id: &str) -> String {
    id.split('_').map(|p| p[..1].to_ascii_uppercase() + &p[1..]).collect()
}

/// OUT_DIR/datasets.rs, included by lib.rs.
fn render(datasets: &[Dataset], users: &[user::UserDataset]) -> Result<String, Error> {
    let mut s = String::from(
        "// Generated by rust/proto/build.rs from the `(codecbench.v1.dataset)` options of datasets.proto\n\
         // and the user's datasets compiled in (the `user-datasets` feature). Never edit: change the\n\
         // .proto, or build.rs.\n\n\
         /// Every built-in dataset, in the order datasets.proto declares them.\n\
         pub const DATASET_SPECS: &[DatasetSpec] = &[\n",
    );
    for d in datasets {
        writeln!(
            s,
            "    DatasetSpec {{ id: {:?}, description: {:?}, message: {:?}, lazy_fields: &{:?}, bare_list: {}, fingerprint: {:?}, field_names: \"json\", unoffered: &[], limited: &[], generated: true }},",
            d.id, d.description, d.record.full_name(), d.lazy_fields, d.bare_list, d.fingerprint
        )?;
    }
    s.push_str("];\n\n/// The user's datasets compiled into this build (none without the `user-datasets` feature).\npub const USER_DATASET_SPECS: &[DatasetSpec] = &[\n");
    for d in users {
        writeln!(
            s,
            "    DatasetSpec {{ id: {:?}, description: {:?}, message: {:?}, lazy_fields: &{:?}, bare_list: false, fingerprint: {:?}, field_names: {:?}, unoffered: &{:?}, limited: &{:?}, generated: false }},",
            d.id, format!("records of {} from a file", d.record.full_name()), d.record.full_name(), d.lazy_fields, fingerprint(&d.record), d.field_names, user::unoffered(&d.record), user::limited(&d.record)
        )?;
    }
    s.push_str("];\n\n");
    // Every enum the models reach names its values for serde (proto/README.md: an enum is its name).
    let mut enums = BTreeMap::new();
    for m in model_messages(datasets) {
        for f in m.fields() {
            if let Kind::Enum(e) = f.kind() {
                enums.insert(e.full_name().to_string(), rust_type(e.full_name(), e.parent_message().is_some()));
            }
        }
    }
    for m in user::messages(users) {
        for f in m.fields() {
            if let Kind::Enum(e) = f.kind() {
                enums.insert(e.full_name().to_string(), user::rust_type(e.full_name(), e.package_name()));
            }
        }
    }
    for t in enums.values() {
        writeln!(
            s,
            "impl crate::serde_enum::Named for {t} {{\n    \
             fn name(number: i32) -> Option<&'static str> {{\n        Self::try_from(number).ok().map(|e| e.as_str_name())\n    }}\n    \
             fn number(name: &str) -> Option<i32> {{\n        Self::from_str_name(name).map(|e| e as i32)\n    }}\n}}\n"
        )?;
    }
    // (id, Variant, record type, list type) of every dataset, built-ins first.
    let mut rows: Vec<(String, String, String, String)> = datasets.iter()
        .map(|d| (d.id.clone(), variant(&d.id), format!("$crate::v1::{}", d.record.name()), format!("$crate::v1::{}", d.list.name())))
        .collect();
    for d in users {
        let t = user::rust_type(d.record.full_name(), d.record.package_name()).replacen("crate::", "$crate::", 1);
        rows.push((d.id.clone(), variant(&d.id), t, format!("$crate::user::lists::{}", variant(&d.id))));
    }
    let each = |f: &dyn Fn(&(String, String, String, String)) -> String| rows.iter().map(f).collect::<String>();
    write!(
        s,
        "/// Calls `$callback!` with every built-in dataset as `(module, \"id\", Variant, RecordType, ListType)`\n\
         /// and, after a `;`, every user dataset as `(\"id\", Variant, RecordType, ListType)`: how the\n\
         /// datasets crate builds its enums and dispatch.\n\
         #[macro_export]\n\
         macro_rules! for_each_dataset {{\n    ($callback:ident) => {{\n        $callback! {{\n{}            ;\n{}        }}\n    }};\n}}\n\n",
        datasets.iter().zip(&rows).map(|(d, r)| format!("            ({}, {:?}, {}, {}, {}),\n", d.id, r.0, r.1, r.2, r.3)).collect::<String>(),
        rows[datasets.len()..].iter().map(|r| format!("            ({:?}, {}, {}, {}),\n", r.0, r.1, r.2, r.3)).collect::<String>(),
    )?;
    write!(
        s,
        "/// Calls `$callback!` with every user dataset compiled in, as `(\"id\", Variant, RecordType, ListType)`.\n\
         #[macro_export]\n\
         macro_rules! for_each_user_dataset {{\n    ($callback:ident) => {{\n        $callback! {{\n{}        }}\n    }};\n}}\n\n",
        rows[datasets.len()..].iter().map(|r| format!("            ({:?}, {}, {}, {}),\n", r.0, r.1, r.2, r.3)).collect::<String>(),
    )?;
    write!(
        s,
        "/// Runs `$body` with `$r` bound to the record slice of a `codecbench_datasets::Records`, whatever the dataset.\n\
         #[macro_export]\n\
         macro_rules! with_records {{\n    ($records:expr, $r:ident => $body:expr) => {{\n        match $records {{\n{}        }}\n    }};\n}}\n\n",
        each(&|r| format!("            ::codecbench_datasets::Records::{}($r) => $body,\n", r.1))
    )?;
    write!(
        s,
        "/// Runs `$body` with the type `$T` naming the record type of the dataset whose id is `$dataset`;\n\
         /// any other id is bound to `$other` for `$fallback`.\n\
         #[macro_export]\n\
         macro_rules! with_record_type {{\n    ($dataset:expr, $T:ident => $body:expr, $other:ident => $fallback:expr) => {{\n        match $dataset {{\n{}            $other => $fallback,\n        }}\n    }};\n}}\n",
        each(&|r| format!("            {:?} => {{\n                type $T = {};\n                $body\n            }}\n", r.0, r.2))
    )?;
    Ok(s)
}
