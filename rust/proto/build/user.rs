//! A user's datasets (proto/README.md, "A user's dataset"), compiled in when the crate's
//! `user-datasets` feature is on: CODECBENCH_USER_DATASETS lists their manifests (separated by
//! ':'), each naming a descriptor set and a record message. Their prost code lands in
//! `codecbench_proto::user`, mirroring their packages, with the serde attributes the built-ins get.
use prost::Message as _;
use prost_reflect::{Cardinality, DescriptorPool, Kind, MessageDescriptor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Error = Box<dyn std::error::Error>;

pub struct UserDataset {
    pub id: String,
    pub field_names: String,
    pub lazy_fields: Vec<String>,
    pub record: MessageDescriptor,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    id: String,
    message: String,
    descriptor_set: String,
    #[serde(default)]
    field_names: String,
    #[serde(default)]
    lazy_fields: Vec<String>,
}

/// The manifests' datasets and one pool of all their files (empty without the feature).
pub fn load() -> Result<(Vec<UserDataset>, Option<prost_types::FileDescriptorSet>), Error> {
    println!("cargo:rerun-if-env-changed=CODECBENCH_USER_DATASETS");
    if std::env::var_os("CARGO_FEATURE_USER_DATASETS").is_none() {
        return Ok((vec![], None));
    }
    let list = std::env::var("CODECBENCH_USER_DATASETS")
        .map_err(|_| "the user-datasets feature needs CODECBENCH_USER_DATASETS: the manifests (dataset.json) to compile in, separated by ':'")?;
    let mut files: BTreeMap<String, prost_types::FileDescriptorProto> = BTreeMap::new();
    let mut order = vec![];
    let mut manifests = vec![];
    for path in list.split(':').filter(|p| !p.is_empty()).map(PathBuf::from) {
        println!("cargo:rerun-if-changed={}", path.display());
        let m: Manifest = serde_json::from_slice(&std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let set_path = path.parent().unwrap_or(Path::new(".")).join(&m.descriptor_set);
        println!("cargo:rerun-if-changed={}", set_path.display());
        let set = prost_types::FileDescriptorSet::decode(std::fs::read(&set_path).map_err(|e| format!("{}: {e}", set_path.display()))?.as_slice())?;
        for f in set.file {
            match files.get(f.name()) {
                Some(known) if *known != f => return Err(format!("two user datasets carry different files named {}", f.name()).into()),
                Some(_) => {}
                None => {
                    order.push(f.name().to_string());
                    files.insert(f.name().to_string(), f);
                }
            }
        }
        manifests.push(m);
    }
    let set = prost_types::FileDescriptorSet { file: order.iter().map(|n| files[n].clone()).collect() };
    let pool = DescriptorPool::from_file_descriptor_set(set.clone())?;
    let mut out = vec![];
    for m in manifests {
        let record = pool.get_message_by_name(m.message.trim_start_matches('.'))
            .ok_or_else(|| format!("dataset {}: message {} is not in its descriptor set", m.id, m.message))?;
        let field_names = if m.field_names.is_empty() { "json".into() } else { m.field_names };
        out.push(UserDataset { id: m.id, field_names, lazy_fields: m.lazy_fields, record });
    }
    Ok((out, Some(set)))
}

/// A type's Rust path under `crate::user`: packages as modules, a nested type in its parent's
/// module (prost's layout).
pub fn rust_type(full_name: &str, package: &str) -> String {
    let local = full_name.strip_prefix(package).map(|s| s.trim_start_matches('.')).unwrap_or(full_name);
    let mut parts: Vec<String> = package.split('.').filter(|p| !p.is_empty()).map(super::snake).collect();
    let names: Vec<&str> = local.split('.').collect();
    let (last, outer) = names.split_last().unwrap();
    parts.extend(outer.iter().map(|p| super::snake(p)));
    parts.push(upper_camel(last));
    format!("crate::user::{}", parts.join("::"))
}

/// prost's type names: UpperCamelCase.
fn upper_camel(name: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Every message the records reach.
pub fn messages(users: &[UserDataset]) -> Vec<MessageDescriptor> {
    let mut seen = BTreeMap::new();
    let mut todo: Vec<MessageDescriptor> = users.iter().map(|d| d.record.clone()).collect();
    while let Some(m) = todo.pop() {
        if seen.insert(m.full_name().to_string(), m.clone()).is_none() {
            todo.extend(m.fields().filter_map(|f| f.kind().as_message().cloned()));
        }
    }
    seen.into_values().collect()
}

/// Every message type a record reaches, its own first.
fn reached(record: &MessageDescriptor) -> Vec<MessageDescriptor> {
    let mut seen = std::collections::HashSet::new();
    let mut out = vec![];
    let mut todo = vec![record.clone()];
    while let Some(m) = todo.pop() {
        if seen.insert(m.full_name().to_string()) {
            todo.extend(m.fields().filter_map(|f| f.kind().as_message().cloned()));
            out.push(m);
        }
    }
    out
}

/// A well-known type no payload rule covers (every one but Timestamp).
fn unruled(kind: &Kind) -> Option<String> {
    match kind {
        Kind::Message(r) if r.package_name() == "google.protobuf" && r.full_name() != "google.protobuf.Timestamp" => Some(r.full_name().to_string()),
        _ => None,
    }
}

/// What no serde codec can carry (proto/README.md, "Payloads"), one entry per field, e.g.
/// "google.protobuf.Duration field acme.Order.wait": the same rule as Java's Offered and the
/// browser's requireOffered.
pub fn unoffered(record: &MessageDescriptor) -> Vec<String> {
    let mut out = vec![];
    for m in reached(record).iter().filter(|m| !m.is_map_entry()) {
        for f in m.fields() {
            let value = if f.is_map() { f.kind().as_message().and_then(|e| e.map_entry_value_field().kind().as_message().cloned()).map(Kind::Message) } else { Some(f.kind()) };
            if let Some(name) = value.as_ref().and_then(unruled) {
                out.push(format!("{name} field {}", f.full_name()));
            }
        }
    }
    out
}

/// The fields some serde codecs refuse and others carry, named by feature ("uint64 field X",
/// "map field X", "oneof field X"): bson and ubjson have no unsigned 64-bit integer; Rust's xml
/// (quick-xml's serde) writes a map's keys as element names and cannot read a oneof through
/// serde's flatten buffer (its text has no types).
pub fn limited(record: &MessageDescriptor) -> Vec<String> {
    let mut out = vec![];
    for m in reached(record).iter().filter(|m| !m.is_map_entry()) {
        for f in m.fields() {
            let at = f.full_name();
            if f.is_map() {
                out.push(format!("map field {at}"));
                let entry = f.kind().as_message().cloned();
                if let Some(v) = entry.map(|e| e.map_entry_value_field()) {
                    if matches!(v.kind(), Kind::Uint64 | Kind::Fixed64) {
                        out.push(format!("{} field {at}", kind_name(&v.kind())));
                    }
                }
                continue;
            }
            if f.containing_oneof().is_some_and(|o| !o.is_synthetic()) {
                out.push(format!("oneof field {at}"));
            }
            if matches!(f.kind(), Kind::Uint64 | Kind::Fixed64) {
                out.push(format!("{} field {at}", kind_name(&f.kind())));
            }
        }
    }
    out
}

fn kind_name(kind: &Kind) -> String {
    format!("{kind:?}").to_lowercase()
}

/// The payload rule (serde_rules.rs) of one value of `kind`, as a Rust path.
fn rule(kind: &Kind) -> String {
    match kind {
        Kind::Bytes => "crate::serde_bytes::Bytes".into(),
        Kind::Float => "crate::serde_float::F32".into(),
        Kind::Double => "crate::serde_float::F64".into(),
        Kind::Enum(e) => format!("crate::Enum<{}>", rust_type(e.full_name(), e.package_name())),
        Kind::Message(r) if r.full_name() == "google.protobuf.Timestamp" => "crate::serde_timestamp::Stamp".into(),
        _ => "crate::Plain".into(),
    }
}

/// A oneof's set member is written under its own name in the record's object (proto/README.md),
/// so its field is `#[serde(flatten)]`. Added to prost's output rather than as a field attribute:
/// prost matches attribute paths as prefixes, and the oneof's path is also its members' prefix.
fn flatten_oneofs(dir: &Path) -> Result<(), Error> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let code = std::fs::read_to_string(&path)?;
        let mut out = String::with_capacity(code.len());
        for line in code.lines() {
            out.push_str(line);
            out.push('\n');
            if line.trim_start().starts_with("#[prost(oneof = \"") {
                out.push_str(&line[..line.len() - line.trim_start().len()]);
                out.push_str("#[serde(flatten)]\n");
            }
        }
        std::fs::write(&path, out)?;
    }
    Ok(())
}

/// `serialize_with`/`deserialize_with` of a field's shape (serde_rules.rs, `serde_shape`).
fn shaped(shape: &str, rule: &str, generics: &str) -> String {
    format!("#[serde(serialize_with = \"crate::serde_shape::{shape}::serialize::<{rule}, {generics}>\", deserialize_with = \"crate::serde_shape::{shape}::deserialize::<{rule}, {generics}>\")]")
}

/// The serde attributes of the user's messages (as the built-ins': names, optional, enums), and
/// prost's code for their files in OUT_DIR/user; returns the module tree that includes it.
pub fn compile(users: &[UserDataset], set: prost_types::FileDescriptorSet, out: &Path) -> Result<String, Error> {
    let dir = out.join("user");
    std::fs::create_dir_all(&dir)?;
    let mut config = prost_build::Config::new();
    config.out_dir(&dir);
    // Every message and oneof of the user's files (only theirs are compiled here). prost matches
    // an attribute's path as a prefix too, so one on a message would also reach its nested types.
    config.message_attribute(".", "#[derive(serde::Serialize, serde::Deserialize)]");
    config.enum_attribute(".", "#[derive(serde::Serialize, serde::Deserialize)]");
    // A message two datasets reach gets its attributes once; its field names must agree.
    let mut named: BTreeMap<String, (String, String)> = BTreeMap::new();
    for d in users {
        for m in messages(std::slice::from_ref(d)) {
            if let Some((other, names)) = named.get(m.full_name()) {
                if *names != d.field_names {
                    return Err(format!("datasets {other} and {} both reach {} with different fieldNames ({names}, {}): a Rust type has one set of serde names", d.id, m.full_name(), d.field_names).into());
                }
                continue;
            }
            named.insert(m.full_name().to_string(), (d.id.clone(), d.field_names.clone()));
            let path = format!(".{}", m.full_name());
            for field in m.fields() {
                let oneof = field.containing_oneof().filter(|o| !o.is_synthetic());
                // prost names a oneof member by its oneof's path (it is a variant of its enum).
                let fp = match &oneof {
                    Some(o) => format!("{path}.{}.{}", o.name(), field.name()),
                    None => format!("{path}.{}", field.name()),
                };
                let name = if d.field_names == "proto" { field.name() } else { field.json_name() };
                config.field_attribute(&fp, format!("#[serde(rename = {name:?})]"));
                let optional = field.field_descriptor_proto().proto3_optional();
                if optional {
                    config.field_attribute(&fp, "#[serde(default, skip_serializing_if = \"Option::is_none\")]");
                }
                if field.is_map() {
                    let entry = field.kind().as_message().cloned().ok_or("a map field without its entry")?;
                    let value = entry.map_entry_value_field().kind();
                    let attr = if unruled(&value).is_some() { "#[serde(with = \"crate::serde_refused\")]".to_string() } else { shaped("map", &rule(&value), "_, _, _") };
                    config.field_attribute(&fp, attr);
                    continue;
                }
                let kind = field.kind();
                if unruled(&kind).is_some() {
                    // Refused before it is used (unoffered): this only has to compile.
                    config.field_attribute(&fp, "#[serde(with = \"crate::serde_refused\")]");
                    continue;
                }
                let r = rule(&kind);
                if r == "crate::Plain" {
                    continue;
                }
                // prost keeps a message field (a Timestamp) in an Option, unless it is a oneof's member.
                let message = matches!(kind, Kind::Message(_));
                let shape = if field.cardinality() == Cardinality::Repeated {
                    "repeated"
                } else if oneof.is_none() && (optional || message) {
                    "optional"
                } else {
                    "single"
                };
                config.field_attribute(&fp, shaped(shape, &r, "_, _"));
            }
        }
    }
    let packages: std::collections::BTreeSet<String> = set.file.iter().map(|f| f.package().to_string()).collect();
    config.compile_fds(set)?;
    flatten_oneofs(&dir)?;
    // The module tree: one module per package segment, each including prost's file of its package.
    #[derive(Default)]
    struct Tree(BTreeMap<String, Tree>, Option<String>);
    let mut root = Tree::default();
    for p in &packages {
        let file = if p.is_empty() { "_".to_string() } else { p.clone() };
        // google.protobuf's types are prost_types' (prost's extern paths): no file of its own.
        if !dir.join(format!("{file}.rs")).exists() {
            continue;
        }
        let mut node = &mut root;
        for seg in p.split('.').filter(|s| !s.is_empty()) {
            node = node.0.entry(super::snake(seg)).or_default();
        }
        node.1 = Some(dir.join(format!("{file}.rs")).display().to_string());
    }
    fn render(t: &Tree, s: &mut String) {
        if let Some(f) = &t.1 {
            s.push_str(&format!("include!({f:?});\n"));
        }
        for (name, child) in &t.0 {
            s.push_str(&format!("pub mod {name} {{\n"));
            render(child, s);
            s.push_str("}\n");
        }
    }
    let mut s = String::from("/// A user's datasets' types (the `user-datasets` feature), by package.\n#[allow(clippy::all, non_camel_case_types, dead_code)]\npub mod user {\n");
    render(&root, &mut s);
    // The list message of each dataset (`repeated Record records = 1`), as a built-in's `*Dataset`.
    s.push_str("pub mod lists {\n");
    for d in users {
        let t = rust_type(d.record.full_name(), d.record.package_name());
        s.push_str(&format!(
            "#[derive(Clone, PartialEq, ::prost::Message, serde::Serialize, serde::Deserialize)]\npub struct {} {{\n    #[prost(message, repeated, tag = \"1\")]\n    pub records: ::prost::alloc::vec::Vec<{t}>,\n}}\n",
            super::variant(&d.id)
        ));
    }
    s.push_str("}\n}\n");
    Ok(s)
}
