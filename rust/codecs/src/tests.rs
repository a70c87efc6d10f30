//! Round trips of every codec and mode on every dataset, and rejection of corrupt payloads.
use super::*;
use codecbench_datasets::{generate, lazy_fields, DATASETS};

mod flatbuffers;
mod xml;

/// The lazy values of `records` for `dataset`'s lazy fields, one Vec per field.
fn expected_lazy(records: &Records) -> Vec<Vec<String>> {
    lazy_fields(records.dataset()).unwrap().iter().map(|f| records.lazy_values(f).unwrap()).collect()
}

/// Checks every mode a codec offers on `bytes` against the canonical `records`.
fn check_modes(codec: &dyn Codec, bytes: &[u8], records: &Records, what: &str) {
    let d = records.dataset();
    let modes = codec.meta().decode_modes;
    assert_eq!(&codec.decode(d, bytes).unwrap_or_else(|e| panic!("{what} typed: {e}")), records, "{what} typed");
    if modes.contains(&TREE) {
        let tree = codec.decode_tree(bytes).unwrap_or_else(|e| panic!("{what} tree: {e}"));
        assert_eq!(&tree.into_records(d).unwrap_or_else(|e| panic!("{what} tree -> records: {e}")), records, "{what} tree");
    } else {
        assert!(codec.decode_tree(bytes).is_err(), "{what}: tree not offered, so it must refuse");
    }
    if modes.contains(&LAZY) {
        let lazy = lazy_values(codec, d, bytes, lazy_fields(d).unwrap()).unwrap_or_else(|e| panic!("{what} lazy: {e}"));
        assert_eq!(lazy, expected_lazy(records), "{what} lazy");
    } else {
        assert!(lazy_values(codec, d, bytes, &["name"]).is_err(), "{what}: lazy not offered, so it must refuse");
    }
    if modes.contains(&STREAMING) {
        // Fed 7 bytes at a time: records must survive any split of the input.
        let mut got = vec![];
        let mut input = std::io::BufReader::with_capacity(7, bytes);
        let n = codec.decode_streaming(d, &mut input, &mut |r| got.push(r)).unwrap_or_else(|e| panic!("{what} streaming: {e}"));
        assert_eq!(n, records.len(), "{what} streaming count");
        assert!(got.iter().enumerate().all(|(i, r)| streaming::is_record(records, i, r)), "{what} streaming records");
        let mut streamed = vec![];
        codec.encode_streaming(records, &mut streamed).unwrap_or_else(|e| panic!("{what} streaming encode: {e}"));
        assert_eq!(&codec.decode(d, &streamed).unwrap(), records, "{what} streaming encode");
        let mut trailing = bytes.to_vec();
        trailing.extend_from_slice(b" x");
        assert!(codec.decode_streaming(d, &mut &trailing[..], &mut drop).is_err(), "{what}: streaming rejects trailing bytes");
    } else {
        assert!(codec.decode_streaming(d, &mut &bytes[..], &mut drop).is_err(), "{what}: streaming not offered, so it must refuse");
        assert!(codec.encode_streaming(records, &mut vec![]).is_err(), "{what}: streaming not offered, so it must refuse");
    }
}

#[test]
fn every_codec_round_trips_every_dataset_in_every_mode() {
    for codec in registry() {
        for d in DATASETS {
            let records = generate(d, 25, 3).unwrap();
            let bytes = codec.encode(&records).unwrap();
            check_modes(codec.as_ref(), &bytes, &records, &format!("{} {d}", codec.meta().id));
        }
    }
}

/// The registry holds exactly codecs/catalogue.yaml's Rust implementations (whose modes each codec
/// announces), and each declares one timed region for encode and each of those modes.
#[test]
fn decode_modes_and_timed_regions_are_declared() {
    let registered: std::collections::BTreeSet<_> = registry().iter().map(|c| c.meta().id).collect();
    let listed: std::collections::BTreeSet<_> = crate::catalogue().iter().map(|l| l.id).collect();
    assert_eq!(registered, listed, "registry() against codecs/catalogue.yaml's rust implementations");
    let vocabulary = ["serialize", "parse", "utf8", "model-conversion", "validation", "copy", "field-lookup"];
    for codec in registry() {
        let m = codec.meta();
        let ops: Vec<_> = m.timed_regions.iter().map(|r| r.operation).collect();
        let mut want = vec!["encode"];
        for mode in m.decode_modes {
            // The streaming mode has an encode side of its own, declared just before it.
            if *mode == STREAMING {
                want.push("encode streaming");
            }
            want.push(mode);
        }
        assert_eq!(ops, want, "{}: one region for encode and each decode mode", m.id);
        for r in m.timed_regions {
            assert!(!r.contains.is_empty() && r.contains.iter().all(|c| vocabulary.contains(c)), "{} {}: {:?}", m.id, r.operation, r.contains);
        }
    }
}

/// Lazy reads dotted paths into nested documents, integers in decimal, and names a missing field.
#[test]
fn bson_lazy_reads_paths_integers_and_names_what_is_missing() {
    let docs = generate("docs", 4, 2).unwrap();
    let bytes = Bson.encode(&docs).unwrap();
    let got = lazy_values(&Bson, "docs", &bytes, &["delivery.company", "department.time", "goods"]);
    assert_eq!(got.unwrap_err().0, "record 0 field \"goods\" is a Array, not a string or integer");
    let got = lazy_values(&Bson, "docs", &bytes, &["delivery.company", "department.time"]).unwrap();
    let Records::Docs(r) = &docs else { unreachable!() };
    assert_eq!(got[0], r.iter().map(|x| x.delivery.as_ref().unwrap().company.clone()).collect::<Vec<_>>());
    assert_eq!(got[1], r.iter().map(|x| x.department.as_ref().unwrap().time.to_string()).collect::<Vec<_>>());
    assert_eq!(lazy_values(&Bson, "docs", &bytes, &["delivery.nope"]).unwrap_err().0, "record 0 has no field \"delivery.nope\"");
    assert_eq!(lazy_values(&Bson, "docs", &bytes, &["name.x"]).unwrap_err().0, "record 0 field \"name.x\": \"name\" is a String, not a document");
    let matrix = Bson.encode(&generate("matrix", 2, 1).unwrap()).unwrap();
    assert_eq!(lazy_values(&Bson, "matrix", &matrix, &["x"]).unwrap_err().0, "record 0 field \"x\": \"x\" is not a cell index");
}

#[test]
fn json_uses_the_wire_names() {
    let text = String::from_utf8(Json.encode(&generate("dummy", 1, 1).unwrap()).unwrap()).unwrap();
    for key in ["{\"records\":[{\"_id\":", "\"isActive\":", "\"eyeColor\":", "\"favoriteFruit\":", "\"friends\":[{\"id\":0,"] {
        assert!(text.contains(key), "{key} missing in {text}");
    }
    let matrix = String::from_utf8(Json.encode(&generate("matrix", 1, 1).unwrap()).unwrap()).unwrap();
    assert!(matrix.starts_with("{\"records\":[[\""), "a matrix row is a plain array: {matrix}");
}

#[test]
fn bson_writes_int32_int64_and_double_types() {
    let records = generate("numeric", 1, 1).unwrap();
    let bytes = Bson.encode(&records).unwrap();
    let doc = ::bson::RawDocument::from_bytes(&bytes).unwrap();
    let rec = doc.get_array("records").unwrap().get_document(0).unwrap();
    assert!(rec.get_i32("index").is_ok(), "int32 field as BSON int32");
    let coord = rec.get_array("coordinates").unwrap().get_document(0).unwrap();
    assert!(coord.get_i64("timestamp").is_ok(), "int64 field as BSON int64");
    assert!(coord.get_f64("latitude").is_ok(), "double field as BSON double");
}

/// Corrupt input never passes as the canonical records: it is rejected with the codec's message,
/// or decodes to something verification refuses. (Truncated and empty payloads, and each format's
/// hostile inputs, are codecs/fixtures.yaml's: tests/fixtures.rs.)
#[test]
fn corrupt_payloads_fail_with_the_codecs_message() {
    let good = generate("dummy", 3, 1).unwrap();
    for codec in registry() {
        let id = codec.meta().id;
        let bytes = codec.encode(&good).unwrap();
        let mut garbage = bytes.clone();
        for b in garbage.iter_mut().skip(4).step_by(7) {
            *b ^= 0xA5;
        }
        for bad in [&garbage[..], b"\x05\x00\x00\x00"] {
            match codec.decode("dummy", bad) {
                Err(e) => assert!(!e.0.is_empty(), "{id}: an error needs a message"),
                Ok(decoded) => assert_ne!(decoded, good, "{id} accepted corrupt input as the records"),
            }
            if codec.meta().decode_modes.contains(&LAZY) {
                assert!(lazy_values(codec.as_ref(), "dummy", bad, &["guid", "favoriteFruit"]).is_err(), "{id} lazy must reject corrupt input");
            }
            if codec.meta().decode_modes.contains(&TREE) {
                match codec.decode_tree(bad) {
                    Err(e) => assert!(!e.0.is_empty(), "{id}: an error needs a message"),
                    Ok(tree) => assert!(tree.into_records("dummy").ok() != Some(good.clone()), "{id} tree accepted corrupt input as the records"),
                }
            }
        }
    }
}

#[test]
fn typed_decode_rejects_a_payload_of_another_dataset() {
    for codec in registry() {
        let bytes = codec.encode(&generate("beers", 2, 1).unwrap()).unwrap();
        assert!(codec.decode("numeric", &bytes).is_err(), "{}", codec.meta().id);
    }
}

fn vectors_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../codecs/vectors")
}

/// The committed canonical records and Rust payloads must be what the generator and codecs produce
/// now (each is deterministic for one implementation): `make vectors` when a change is intended.
#[test]
fn committed_vectors_match_fresh_ones() {
    for (name, fresh) in vectors::all() {
        let committed = std::fs::read(vectors_dir().join(&name)).unwrap_or_else(|e| panic!("codecs/vectors/{name}: {e} (run `make vectors`)"));
        assert!(committed == fresh, "codecs/vectors/{name} differs from a fresh one: run `make vectors` if the change is intended");
    }
}

/// Every vector of every codec this worker implements, from every language, decodes to the
/// canonical records; for deterministic codecs (the catalogue's: bson, protobuf) Rust re-encodes them
/// byte for byte.
#[test]
fn every_languages_vectors_decode_and_deterministic_ones_match_bytes() {
    let mut checked = 0;
    for entry in std::fs::read_dir(vectors_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let parts: Vec<&str> = name.split('.').collect();
        let [dataset, language, ext] = parts[..] else { continue };
        let format = crate::format_of_extension(ext).unwrap_or_else(|| panic!("codecs/vectors/{name}: no format has extension {ext}"));
        let bytes = std::fs::read(vectors_dir().join(&name)).unwrap();
        let canonical = codecbench_datasets::Records::from_canonical_bytes(dataset, &std::fs::read(vectors_dir().join(format!("{dataset}.pb"))).unwrap()).unwrap();
        // Every implementation of the vector's format reads it (json and json/simd-json).
        for codec in registry().into_iter().filter(|c| crate::format_of(c.meta().id) == format) {
            check_modes(codec.as_ref(), &bytes, &canonical, &format!("{name} by {}", codec.meta().id));
            if crate::listed(format).is_some_and(|l| l.deterministic) {
                assert!(codec.encode(&canonical).unwrap() == bytes, "{name}: Rust writes other bytes than {language} for a deterministic codec");
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} vectors found in codecs/vectors");
}

#[test]
fn protobuf_payload_is_the_canonical_dataset_message() {
    for d in DATASETS {
        let records = generate(d, 5, 2).unwrap();
        assert_eq!(Protobuf.encode(&records).unwrap(), records.to_canonical_bytes(), "{d}");
    }
}

/// Plain RFC 8949 CBOR, the forms other writers use: records as maps keyed by wire names; floats
/// in the smallest exact width; an integer, a float16 or an indefinite-length map where Jackson or
/// cbor-x put them decodes to the same records.
#[test]
fn cbor_is_plain_rfc_8949_and_reads_other_writers_forms() {
    let records = generate("owners", 1, 1).unwrap();
    let bytes = Cbor.encode(&records).unwrap();
    // {"records": [ {...
    assert_eq!(bytes[..10], *b"\xa1\x67records\x81");
    assert!(matches!(bytes[10], 0xa0..=0xb7), "a definite-length map: {:#x}", bytes[10]);
    let v: ciborium::Value = ciborium::from_reader(&bytes[..]).unwrap();
    let rec = &v.as_map().unwrap()[0].1.as_array().unwrap()[0];
    let keys: Vec<_> = rec.as_map().unwrap().iter().map(|(k, _)| k.as_text().unwrap().to_string()).collect();
    assert_eq!(keys[..2], ["uid", "name"]);
    // 1.5 is exact in float16 (f9 3e00), 100000.5 needs float32 (fa 47c35040)
    let mut small = Vec::new();
    ciborium::into_writer(&(1.5f64, 100000.5f64, 0.1f64), &mut small).unwrap();
    assert_eq!(small, b"\x83\xf9\x3e\x00\xfa\x47\xc3\x50\x40\xfb\x3f\xb9\x99\x99\x99\x99\x99\x9a");
    // A dummy record as Jackson writes it: indefinite-length maps, the double `balance` as float64;
    // and as cbor-x may: the same double as an integer, then as float16.
    let one = generate("dummy", 1, 1).unwrap();
    let Records::Dummy(r) = &one else { unreachable!() };
    let encoded = Cbor.encode(&one).unwrap();
    let tree: ciborium::Value = ciborium::from_reader(&encoded[..]).unwrap();
    let fields = tree.as_map().unwrap()[0].1.as_array().unwrap()[0].as_map().unwrap().clone();
    let indefinite = |fields: &[(ciborium::Value, ciborium::Value)]| {
        let mut out = b"\xbf\x67records\x81\xbf".to_vec();
        for (k, v) in fields {
            ciborium::into_writer(k, &mut out).unwrap();
            ciborium::into_writer(v, &mut out).unwrap();
        }
        out.extend_from_slice(b"\xff\xff");
        out
    };
    assert_eq!(Cbor.decode("dummy", &indefinite(&fields)).unwrap(), one, "indefinite-length maps");
    let at = |name: &str| fields.iter().position(|(k, _)| k.as_text() == Some(name)).unwrap();
    let mut expected = r[0].clone();
    expected.balance = 3.0;
    let mut changed = fields.clone();
    changed[at("balance")].1 = ciborium::Value::Integer(3.into());
    assert_eq!(Cbor.decode("dummy", &indefinite(&changed)).unwrap(), Records::Dummy(vec![expected.clone()]), "an integer in a double field");
    changed[at("balance")].1 = ciborium::Value::Float(3.0);
    let half = indefinite(&changed);
    assert!(half.windows(3).any(|w| w == b"\xf9\x42\x00"), "3.0 written as float16");
    assert_eq!(Cbor.decode("dummy", &half).unwrap(), Records::Dummy(vec![expected]), "a float16 in a double field");
    // A fraction where an integer belongs is an error, not a truncation; so is trailing data.
    changed[at("index")].1 = ciborium::Value::Float(1.5);
    assert!(Cbor.decode("dummy", &indefinite(&changed)).is_err());
    let mut trailing = encoded.clone();
    trailing.push(0);
    assert_eq!(Cbor.decode("dummy", &trailing).unwrap_err().0, "1 bytes after the payload's value");
}

#[test]
fn msgpack_records_are_maps_with_wire_names() {
    let bytes = Msgpack.encode(&generate("dummy", 1, 1).unwrap()).unwrap();
    let v = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
    let rec = &v.as_map().unwrap()[0].1.as_array().unwrap()[0];
    let keys: Vec<_> = rec.as_map().unwrap().iter().map(|(k, _)| k.as_str().unwrap().to_string()).collect();
    assert_eq!(keys[..4], ["_id", "index", "guid", "isActive"]);
}

#[test]
fn a_users_schema_is_refused_by_the_codecs_that_cannot_carry_it_naming_the_field() {
    let user = codecbench_datasets::DatasetSpec {
        id: "orders", description: "", message: "acme.Order", lazy_fields: &[], bare_list: false, fingerprint: "f",
        field_names: "json", unoffered: &["google.protobuf.Duration field acme.Order.wait"],
        limited: &["map field acme.Order.attributes", "oneof field acme.Order.card", "uint64 field acme.Order.total"], generated: false,
    };
    assert_eq!(Json.refusal(&user).as_deref(), Some("json: google.protobuf.Duration field acme.Order.wait is not offered"));
    assert_eq!(Msgpack.refusal(&user).as_deref(), Some("msgpack: google.protobuf.Duration field acme.Order.wait is not offered"));
    // Each codec refuses only the features it has no form for (proto/README.md, "Payloads").
    let carried = codecbench_datasets::DatasetSpec { unoffered: &[], ..user };
    for c in [&Json as &dyn Codec, &Msgpack, &Cbor] {
        assert_eq!(c.refusal(&carried), None, "{}", c.meta().id);
    }
    assert_eq!(Bson.refusal(&carried).as_deref(), Some("bson: uint64 field acme.Order.total is not offered"));
    assert_eq!(Ubjson.refusal(&carried).as_deref(), Some("ubjson: uint64 field acme.Order.total is not offered"));
    assert_eq!(Xml.refusal(&carried).as_deref(), Some("xml: map field acme.Order.attributes is not offered"));
    assert_eq!(Protobuf.refusal(&user), None, "prost's types carry every proto3 feature");
    assert!(Flatbuffers.refusal(&codecbench_datasets::DatasetSpec { unoffered: &[], ..user }).unwrap().starts_with("flatbuffers: "));
    // Every built-in is carried by every codec, and announced with no refusal.
    for c in registry() {
        for d in codecbench_datasets::DATASET_SPECS {
            assert_eq!(c.refusal(d), None, "{} {}", c.meta().id, d.id);
        }
    }
    assert!(dataset_infos().iter().all(|i| i.refused.is_empty() && i.field_names == "json"));
}

/// `{records: [{a: {a: ... {} }}]}` with `levels` nested documents inside the record, written
/// outside in (no recursion, no quadratic copying).
fn deep_bson(levels: usize) -> Vec<u8> {
    // Each nested level adds: its length (4), the type (1), the key "a\0" (2), the terminator (1).
    let inner = 5 + 8 * levels;
    let record = inner; // the record itself is the outermost of the nested documents
    let array = 4 + 1 + 2 + record + 1;
    let top = 4 + 1 + 8 + array + 1;
    let mut out = Vec::with_capacity(top);
    let len = |n: usize| (n as i32).to_le_bytes();
    out.extend(len(top));
    out.push(0x04);
    out.extend(b"records\0");
    out.extend(len(array));
    out.push(0x03);
    out.extend(b"0\0");
    for level in 0..levels {
        out.extend(len(inner - 8 * level));
        out.push(0x03);
        out.extend(b"a\0");
    }
    out.extend(len(5));
    out.push(0);
    out.extend(std::iter::repeat_n(0u8, levels + 2));
    assert_eq!(out.len(), top);
    out
}

#[test]
fn bson_refuses_deep_nesting_as_a_decode_error_not_a_stack_overflow() {
    let bson = find("bson").unwrap();
    // 20,000 levels overflowed the stack in typed and tree decodes (issue 32).
    let deep = deep_bson(20_000);
    ::bson::RawDocument::from_bytes(&deep).expect("well-formed BSON: only its depth is refused");
    // The trial admits every payload before decoding it in any mode, outside timing.
    let e = bson.admit(&deep).unwrap_err();
    assert!(e.0.contains("nested deeper than 128"), "{e:?}");
    // At the limit it is the library's to read (the record is a document of documents).
    let ok = deep_bson(crate::bson::MAX_DEPTH - 3);
    assert!(bson.admit(&ok).is_ok() && bson.decode_tree(&ok).is_ok());
    assert!(bson.admit(&deep_bson(crate::bson::MAX_DEPTH - 2)).is_err());
}
