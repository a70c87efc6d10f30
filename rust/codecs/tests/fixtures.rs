//! codecs/fixtures.yaml's hostile inputs through every decode mode of every Rust implementation of
//! their format, as the worker's trial calls them (tests/support): each must be refused with the
//! codec's own error, within `support::CASE_LIMIT`, allocating no block over `alloc::ALLOC_CAP`.
//! Where the file's `knownFailing` says a library legitimately accepts one, it must be accepted:
//! a listed case that is refused after all fails too, so the list stays true.
mod support;
#[path = "support/alloc.rs"]
mod alloc;

use codecbench_codecs::{format_of, format_of_extension, registry};
use codecbench_datasets::DATASETS;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use support::{decode_mode, hex};

const LANGUAGE: &str = "rust";

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct File {
    derived: Vec<String>,
    formats: BTreeMap<String, Vec<Fixture>>,
    known_failing: Vec<Known>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    name: String,
    #[allow(dead_code)] // for readers of the file
    kind: String,
    #[allow(dead_code)]
    about: String,
    input: Vec<Part>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Part {
    hex: Option<String>,
    text: Option<String>,
    repeat: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Known {
    fixture: String,
    language: Option<String>,
    implementation: Option<String>,
    modes: Option<Vec<String>>,
    #[allow(dead_code)]
    reason: String,
}

impl Known {
    fn covers(&self, fixture: &str, implementation: &str, mode: &str) -> bool {
        self.fixture == fixture
            && self.language.as_deref().is_none_or(|l| l == LANGUAGE)
            && self.implementation.as_deref().is_none_or(|i| i == implementation)
            && self.modes.as_ref().is_none_or(|m| m.iter().any(|m| m == mode))
    }
}

/// One input, decoded as `dataset`: `fixture` is `<format>/<name>`.
struct Case {
    fixture: String,
    dataset: String,
    bytes: Vec<u8>,
}

fn codecs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../codecs")
}

fn bytes_of(fixture: &str, parts: &[Part]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        let one = match (&p.hex, &p.text) {
            (Some(h), None) => {
                let h: String = h.split_whitespace().collect();
                (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or_else(|e| panic!("{fixture}: {h}: {e}"))).collect()
            }
            (None, Some(t)) => t.as_bytes().to_vec(),
            _ => panic!("{fixture}: a part is either hex or text"),
        };
        out.extend(one.repeat(p.repeat.unwrap_or(1)));
    }
    out
}

/// Every case of codecs/fixtures.yaml by format: its own inputs for each dataset, and the derived
/// ones from every language's golden vectors of the format.
fn cases(file: &File) -> BTreeMap<String, Vec<Case>> {
    let mut by_format: BTreeMap<String, Vec<Case>> = BTreeMap::new();
    for (format, fixtures) in &file.formats {
        for f in fixtures {
            let fixture = format!("{format}/{}", f.name);
            let bytes = bytes_of(&fixture, &f.input);
            for d in DATASETS {
                by_format.entry(format.clone()).or_default().push(Case { fixture: fixture.clone(), dataset: d.to_string(), bytes: bytes.clone() });
            }
        }
    }
    let mut vectors: Vec<_> = std::fs::read_dir(codecs_dir().join("vectors")).unwrap().map(|e| e.unwrap().path()).collect();
    vectors.sort();
    for path in vectors {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let parts: Vec<&str> = name.split('.').collect();
        let [dataset, _language, ext] = parts[..] else { continue };
        let Some(format) = format_of_extension(ext) else { continue };
        let bytes = std::fs::read(&path).unwrap();
        let cases = by_format.entry(format.to_string()).or_default();
        for derived in &file.derived {
            let input = match derived.as_str() {
                "truncated" => bytes[..bytes.len() / 2].to_vec(),
                "empty" if !cases.iter().any(|c| c.fixture == format!("{format}/empty") && c.dataset == dataset) => Vec::new(),
                "empty" => continue,
                other => panic!("codecs/fixtures.yaml: unknown derived input {other:?}"),
            };
            let fixture = format!("{format}/{derived}");
            cases.push(Case { fixture: if derived == "truncated" { format!("{fixture} of {name}") } else { fixture }, dataset: dataset.into(), bytes: input });
        }
    }
    by_format
}

#[test]
fn every_fixture_is_refused_by_every_implementation_of_its_format() {
    let text = std::fs::read_to_string(codecs_dir().join("fixtures.yaml")).unwrap();
    let file: File = serde_norway::from_str(&text).unwrap_or_else(|e| panic!("codecs/fixtures.yaml: {e}"));
    let cases = cases(&file);
    let mut failures = Vec::new();
    let mut known_used = vec![false; file.known_failing.len()];
    for codec in registry() {
        let id = codec.meta().id;
        let Some(cases) = cases.get(format_of(id)) else { continue };
        let mut calls = 0;
        for case in cases {
            let spec = codecbench_datasets::spec(&case.dataset).unwrap();
            if codec.refusal(spec).is_some() {
                continue; // the worker never plans a dataset its codec refuses
            }
            // A derived case's name is "<format>/truncated of <vector>": knownFailing names the kind.
            let fixture = case.fixture.split(" of ").next().unwrap();
            for mode in codec.meta().decode_modes {
                calls += 1;
                let (outcome, largest) = alloc::largest_during(|| decode_mode(codec.as_ref(), mode, &case.dataset, &case.bytes, None));
                let what = || format!("{id} {mode} {} as {}", case.fixture, case.dataset);
                let known = file.known_failing.iter().position(|k| k.covers(fixture, id, mode));
                if let Some(k) = known {
                    known_used[k] = true;
                }
                match (outcome, known) {
                    (Err(problem), _) => failures.push(format!("{}: {problem}; input {}", what(), hex(&case.bytes[..case.bytes.len().min(64)]))),
                    (Ok(Ok(())), None) => failures.push(format!("{}: accepted", what())),
                    (Ok(Err(e)), Some(_)) => failures.push(format!("{}: refused ({e}) though knownFailing lists it as accepted", what())),
                    _ => {}
                }
                if largest > alloc::ALLOC_CAP {
                    failures.push(format!("{}: allocated {largest} bytes at once (cap {})", what(), alloc::ALLOC_CAP));
                }
            }
        }
        support::report(&format!("fixtures {id}: {calls} decode calls"));
    }
    for (k, used) in file.known_failing.iter().zip(known_used) {
        let ours = k.language.as_deref().is_none_or(|l| l == LANGUAGE);
        if ours && !used && registry().iter().any(|c| k.implementation.as_deref().is_none_or(|i| i == c.meta().id) && k.fixture.starts_with(&format!("{}/", format_of(c.meta().id)))) {
            failures.push(format!("knownFailing {} matches no case here", k.fixture));
        }
    }
    assert!(failures.is_empty(), "{} fixture cases broke the contract:\n  {}", failures.len(), failures.join("\n  "));
}
