//! Bounded fuzzing of every codec's decode entry points, in every mode it offers, as the worker's
//! trial calls them (tests/support): mutated valid payloads (bit flips, truncation, byte insert
//! and delete, splices of the codec's own payloads, tokens such as 2^31 length prefixes) and
//! random bytes. Every case must decode or fail with a `CodecError`: no panic, no case slower than
//! `support::CASE_LIMIT`, no hang (a watchdog ends the run and prints the input), no allocation
//! over `ALLOC_CAP` at once.
//!
//! `CODECBENCH_FUZZ_CASES` (default 10,000) sets the cases per codec, each through every mode;
//! `CODECBENCH_FUZZ_SEED` (default 1) the proptest seed, so a run is reproducible.
mod support;
#[path = "support/alloc.rs"]
mod alloc;

use codecbench_codecs::{find, Codec};
use codecbench_datasets::{generate, DATASETS};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use alloc::{ALLOC_CAP, LARGEST, LIVE, LIVE_LIMIT};
use support::{decode_mode, hex};

// ---- watchdog -------------------------------------------------------------------------------------

/// A case that never returns cannot fail its test: the watchdog prints it and ends the process.
const HANG_LIMIT: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Watch {
    current: Mutex<Option<(Instant, String, Vec<u8>)>>,
    done: AtomicBool,
}

fn watchdog(codec: &'static str) -> (Arc<Watch>, std::thread::JoinHandle<()>) {
    let watch = Arc::new(Watch::default());
    let w = watch.clone();
    let handle = std::thread::spawn(move || {
        while !w.done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            let live = LIVE.load(Ordering::Relaxed);
            let current = w.current.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((since, label, bytes)) = current.as_ref() {
                let problem = if since.elapsed() > HANG_LIMIT {
                    format!("still running after {HANG_LIMIT:?}")
                } else if live > LIVE_LIMIT {
                    format!("{live} bytes live (limit {LIVE_LIMIT})")
                } else {
                    continue;
                };
                let _ = writeln!(std::io::stderr(), "fuzz {codec}: {label}: {problem}; input ({} bytes): {}", bytes.len(), hex(bytes));
                std::process::exit(101);
            }
        }
    });
    (watch, handle)
}

// ---- cases ----------------------------------------------------------------------------------------

/// Byte strings that make decoders take lengths, counts and types at their word: 2^31 and other
/// edge integers (little- and big-endian, varints), container headers with huge counts, markers.
const TOKENS: &[&[u8]] = &[
    b"\x00\x00\x00\x80", b"\x80\x00\x00\x00", b"\xff\xff\xff\x7f", b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x00", b"\xff\xff\xff\xff\xff\xff\xff\x7f", b"\x7f\xff\xff\xff\xff\xff\xff\xff",
    b"\x80\x80\x80\x80\x08", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x0a\xff\xff\xff\xff\x07", b"\x0b", b"\x0c",
    // ubjson: optimised containers of payload-less elements, huge counts and string lengths
    b"[$Z#L\x7f\xff\xff\xff\xff\xff\xff\xff", b"[$T#l\x7f\xff\xff\xff", b"{$F#l\x7f\xff\xff\xff", b"[#l\x7f\xff\xff\xff",
    b"SL\x7f\xff\xff\xff\xff\xff\xff\xff", b"Hl\x80\x00\x00\x00", b"N", b"Z",
    // msgpack: array32, map32, str32, bin32, ext32 of 2^32-1; extreme integers
    b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff", b"\xc6\xff\xff\xff\xff", b"\xc9\xff\xff\xff\xff\x01",
    b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00", b"\xc1",
    // cbor: array, map, text and byte string of 2^64-1 and 2^31, indefinite starts, a break
    b"\x9b\xff\xff\xff\xff\xff\xff\xff\xff", b"\xbb\xff\xff\xff\xff\xff\xff\xff\xff", b"\x7b\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\x5a\x80\x00\x00\x00", b"\x9f", b"\xbf", b"\x7f", b"\xff", b"\xf9\x7c\x00", b"\xc2\x49",
    // bson: element types, a 2^31 string
    b"\x02a\x00\x00\x00\x00\x80", b"\x03", b"\x04", b"\x10", b"\x12", b"\x01", b"\x13", b"\xff",
    // json
    b"[", b"{", b"\"\\ud800\"", b"1e99999", b"-", b"99999999999999999999999", b"\"\\u00",
    // xml: markup, references (a code point of 2^31), a DTD with an entity, CDATA, a second root
    b"<", b"</", b"/>", b"&", b"&#13;", b"&#x7fffffff;", b"&#0;", b"&amp;", b"<![CDATA[", b"]]>", b"<!--", b"<?xml version=\"1.0\"?>",
    b"<!DOCTYPE payload [<!ENTITY e \"x\">]>", b"&e;", b"<payload>", b"</payload>", b"<records>", b" xmlns:a=\"u\"", b"a:",
];

#[derive(Debug, Clone)]
enum Op {
    Flip(Index, u8),
    Truncate(Index),
    Insert(Index, u8),
    Delete(Index),
    /// A piece of one of the codec's payloads, inserted or written over the input.
    Splice { from: Index, start: Index, len: usize, at: Index, overwrite: bool },
    Token { token: Index, at: Index, overwrite: bool },
}

#[derive(Debug, Clone)]
enum Case {
    Mutated { seed: usize, ops: Vec<Op> },
    Random { dataset: Index, bytes: Vec<u8> },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Op::Flip(at, bit)),
        any::<Index>().prop_map(Op::Truncate),
        (any::<Index>(), any::<u8>()).prop_map(|(at, b)| Op::Insert(at, b)),
        any::<Index>().prop_map(Op::Delete),
        (any::<Index>(), any::<Index>(), 1usize..128, any::<Index>(), any::<bool>())
            .prop_map(|(from, start, len, at, overwrite)| Op::Splice { from, start, len, at, overwrite }),
        (any::<Index>(), any::<Index>(), any::<bool>()).prop_map(|(token, at, overwrite)| Op::Token { token, at, overwrite }),
    ]
}

fn case(seeds: usize) -> impl Strategy<Value = Case> {
    prop_oneof![
        4 => (0..seeds, vec(op(), 1..=4)).prop_map(|(seed, ops)| Case::Mutated { seed, ops }),
        1 => (any::<Index>(), vec(any::<u8>(), 0..512)).prop_map(|(dataset, bytes)| Case::Random { dataset, bytes }),
    ]
}

/// Writes `piece` at a position `at` picks (end included), over the bytes there or pushing them on.
fn put(bytes: &mut Vec<u8>, at: &Index, piece: &[u8], overwrite: bool) {
    let at = at.index(bytes.len() + 1);
    let end = if overwrite { (at + piece.len()).min(bytes.len()) } else { at };
    bytes.splice(at..end, piece.iter().copied());
}

/// The input and the dataset it is decoded as.
fn build(case: &Case, seeds: &[(&'static str, Vec<u8>)]) -> (&'static str, Vec<u8>) {
    match case {
        Case::Random { dataset, bytes } => (DATASETS[dataset.index(DATASETS.len())], bytes.clone()),
        Case::Mutated { seed, ops } => {
            let (dataset, mut bytes) = seeds[*seed].clone();
            for op in ops {
                let pos = |i: &Index, len: usize| if len == 0 { 0 } else { i.index(len) };
                match op {
                    Op::Flip(at, bit) if !bytes.is_empty() => {
                        let i = at.index(bytes.len());
                        bytes[i] ^= 1 << bit;
                    }
                    Op::Truncate(at) => bytes.truncate(pos(at, bytes.len())),
                    Op::Insert(at, b) => put(&mut bytes, at, &[*b], false),
                    Op::Delete(at) if !bytes.is_empty() => {
                        bytes.remove(at.index(bytes.len()));
                    }
                    Op::Splice { from, start, len, at, overwrite } => {
                        let source = &seeds[from.index(seeds.len())].1;
                        let s = pos(start, source.len());
                        let piece = source[s..(s + len).min(source.len())].to_vec();
                        put(&mut bytes, at, &piece, *overwrite);
                    }
                    Op::Token { token, at, overwrite } => {
                        put(&mut bytes, at, TOKENS[token.index(TOKENS.len())], *overwrite)
                    }
                    _ => {}
                }
            }
            (dataset, bytes)
        }
    }
}

/// The codec's own payloads: a few records of each dataset, two sizes.
fn seeds(codec: &dyn Codec) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = vec![];
    for d in DATASETS {
        for (count, seed) in [(1, 7), (3, 1)] {
            let records = generate(d, count, seed).unwrap();
            out.push((*d, codec.encode(&records).unwrap()));
        }
    }
    out
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a whole number")),
        Err(_) => default,
    }
}

/// Runs `CODECBENCH_FUZZ_CASES` cases through every decode mode of codec `id`.
fn fuzz(id: &'static str) {
    let codec = find(id).unwrap();
    let modes = codec.meta().decode_modes;
    let cases = env_number("CODECBENCH_FUZZ_CASES", 10_000);
    let seed = env_number("CODECBENCH_FUZZ_SEED", 1);
    let seeds = seeds(codec.as_ref());
    let config = Config {
        cases: u32::try_from(cases).expect("CODECBENCH_FUZZ_CASES fits a u32"),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let mut rng_seed = [0u8; 32];
    rng_seed[..8].copy_from_slice(&seed.to_le_bytes());
    rng_seed[8..8 + id.len()].copy_from_slice(id.as_bytes());
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed));
    let calls: Vec<AtomicUsize> = modes.iter().map(|_| AtomicUsize::new(0)).collect();
    let accepted: Vec<AtomicUsize> = modes.iter().map(|_| AtomicUsize::new(0)).collect();
    let (watch, dog) = watchdog(id);
    let start = Instant::now();
    let result = runner.run(&case(seeds.len()), |case| {
        let (dataset, bytes) = build(&case, &seeds);
        for (m, mode) in modes.iter().enumerate() {
            *watch.current.lock().unwrap() = Some((Instant::now(), format!("{mode} {dataset}"), bytes.clone()));
            LARGEST.with(|l| l.set(0));
            let outcome = decode_mode(codec.as_ref(), mode, dataset, &bytes, None);
            let largest = LARGEST.with(|l| l.get());
            *watch.current.lock().unwrap() = None;
            calls[m].fetch_add(1, Ordering::Relaxed);
            let what = || format!("{id} {mode} {dataset}, input ({} bytes) {}", bytes.len(), hex(&bytes));
            match outcome {
                Err(problem) => return Err(TestCaseError::fail(format!("{}: {problem}", what()))),
                Ok(Ok(())) => {
                    accepted[m].fetch_add(1, Ordering::Relaxed);
                }
                Ok(Err(_)) => {}
            }
            if largest > ALLOC_CAP {
                return Err(TestCaseError::fail(format!("{}: allocated {largest} bytes at once (cap {ALLOC_CAP})", what())));
            }
        }
        Ok(())
    });
    watch.done.store(true, Ordering::Relaxed);
    dog.join().unwrap();
    let took = start.elapsed();
    for (m, mode) in modes.iter().enumerate() {
        let _ = writeln!(
            std::io::stderr(),
            "fuzz {id:<8} {mode:<5}: {} cases ({} decoded, the rest rejected with the codec's error), seed {seed}, {took:.1?} for the codec",
            calls[m].load(Ordering::Relaxed),
            accepted[m].load(Ordering::Relaxed),
        );
    }
    if let Err(e) = result {
        panic!("fuzz {id}: {e}");
    }
    assert!(calls.iter().all(|c| c.load(Ordering::Relaxed) as u64 >= cases), "fuzz {id}: fewer calls than cases");
}

#[test]
fn fuzz_json() {
    fuzz("json");
}

#[test]
fn fuzz_json_simd_json() {
    fuzz("json/simd-json");
}

#[test]
fn fuzz_bson() {
    fuzz("bson");
}

#[test]
fn fuzz_protobuf() {
    fuzz("protobuf");
}

#[test]
fn fuzz_ubjson() {
    fuzz("ubjson");
}

#[test]
fn fuzz_msgpack() {
    fuzz("msgpack");
}

#[test]
fn fuzz_cbor() {
    fuzz("cbor");
}

#[test]
fn fuzz_xml() {
    fuzz("xml");
}

#[test]
fn fuzz_flatbuffers() {
    fuzz("flatbuffers");
}

/// The fuzz run's checks can fail: a codec that panics, or allocates a declared size, is caught.
#[test]
fn the_checks_catch_a_panic_and_a_big_allocation() {
    assert!(support::clean(|| -> Result<(), codecbench_codecs::CodecError> { panic!("boom") }).unwrap_err().contains("boom"));
    LARGEST.with(|l| l.set(0));
    let v: Vec<u8> = std::hint::black_box(Vec::with_capacity(ALLOC_CAP + 1));
    assert!(LARGEST.with(|l| l.get()) > ALLOC_CAP);
    drop(v);
}

/// Declared sizes of 2^31 and more, in every codec's framing, are refused without allocating them.
#[test]
fn declared_sizes_of_2_pow_31_are_refused_without_allocating_them() {
    /// A BSON document around `body`: its length, the body, the terminator.
    fn doc(body: &[u8]) -> Vec<u8> {
        let mut out = ((body.len() + 5) as i32).to_le_bytes().to_vec();
        out.extend_from_slice(body);
        out.push(0);
        out
    }
    let cases: Vec<(&str, Vec<u8>)> = vec![
        // {"records": "<a string of 2^31 - 1 bytes>"}
        ("bson", doc(b"\x02records\x00\xff\xff\xff\x7fab\x00")),
        // {"records": [<an array document of 2^31 - 1 bytes>]}
        ("bson", doc(b"\x04records\x00\xff\xff\xff\x7f\x00")),
        // field 1 (records), length-delimited, 2^31 - 1 bytes
        ("protobuf", b"\x0a\xff\xff\xff\xff\x07\x08\x01".to_vec()),
        // {"records": array32 of 2^32 - 1 elements}, and a str32 of 2^32 - 1 bytes
        ("msgpack", b"\x81\xa7records\xdd\xff\xff\xff\xff\xc0".to_vec()),
        ("msgpack", b"\x81\xa7records\xdb\xff\xff\xff\xffab".to_vec()),
        // {"records": array of 2^64 - 1 elements}, a text string and a byte string of 2^31 - 1 bytes
        ("cbor", b"\xa1\x67records\x9b\xff\xff\xff\xff\xff\xff\xff\xff\xf6".to_vec()),
        ("cbor", b"\xa1\x67records\x7a\x7f\xff\xff\xffab".to_vec()),
        ("cbor", b"\xa1\x67records\x81\xa1\x64name\x5a\x7f\xff\xff\xffab".to_vec()),
        // {"records": [#L 2^63-1 ...]}, [$Z#L 2^63-1] and [$T#l 2^31-1] (payload-less elements),
        // a string of 2^31 - 1 bytes
        ("ubjson", b"{i\x07records[#L\x7f\xff\xff\xff\xff\xff\xff\xffZ}".to_vec()),
        ("ubjson", b"{i\x07records[$Z#L\x7f\xff\xff\xff\xff\xff\xff\xff}".to_vec()),
        ("ubjson", b"{i\x07records[$T#l\x7f\xff\xff\xff}".to_vec()),
        ("ubjson", b"{i\x07recordsSl\x7f\xff\xff\xffab}".to_vec()),
        // JSON declares no sizes; an exponent past 2^31 is still refused
        ("json", b"{\"records\":[1e2147483648]}".to_vec()),
        // XML declares no sizes either: a character reference to code point 2^31 - 1
        ("xml", b"<payload><records><name>&#x7fffffff;</name></records></payload>".to_vec()),
        // FlatBuffers: the root table's first field (`records`) a vector of 2^31 - 1 offsets; then a
        // vector of one table whose first two fields both point at a string of 2^31 - 1 bytes.
        // root offset | vtable (6 bytes: size, table size, field at 4) | pad | table: soffset to
        // the vtable, offset to the vector | the vector's length
        ("flatbuffers", b"\x0c\0\0\0\x06\0\x08\0\x04\0\0\0\x08\0\0\0\x04\0\0\0\xff\xff\xff\x7f\0\0\0\0".to_vec()),
        (
            "flatbuffers",
            [
                &b"\x0c\0\0\0\x06\0\x08\0\x04\0\0\0\x08\0\0\0\x04\0\0\0"[..], // root -> table -> vector at 20
                b"\x01\0\0\0\x0c\0\0\0",                                        // one element -> table at 36
                b"\x08\0\x08\0\x04\0\x04\0",                                    // its vtable: two fields at 4
                b"\x08\0\0\0\x04\0\0\0",                                        // the table -> string at 44
                b"\xff\xff\xff\x7fab\0\0",                                        // length 2^31 - 1
            ]
            .concat(),
        ),
    ];
    for (id, bytes) in &cases {
        let codec = find(id).unwrap();
        for mode in codec.meta().decode_modes {
            for dataset in DATASETS {
                LARGEST.with(|l| l.set(0));
                let outcome = decode_mode(codec.as_ref(), mode, dataset, bytes, None);
                let largest = LARGEST.with(|l| l.get());
                let what = format!("{id} {mode} {dataset} {}", hex(bytes));
                assert!(matches!(outcome, Ok(Err(_))), "{what}: must be rejected with the codec's error, got {outcome:?}");
                assert!(largest <= ALLOC_CAP, "{what}: allocated {largest} bytes at once");
            }
        }
    }
}
