//! Fidelity benches (issue 9 item 7): criterion times exactly the calls the Rust worker times —
//! `find(codec).encode(&records)` and the typed `decode(dataset, &bytes)` — on the records the
//! worker receives (`generate(dataset, 1000, 1)`, parsed from its canonical blob as the worker
//! parses it), so `codecbench fidelity` can put criterion's median beside codecbench's own for the
//! same cell.
//!
//! Before timing, every payload is checked to decode back to the canonical records, and the
//! canonical blobs and the Rust payloads are written to `$CODECBENCH_FIDELITY_DIR` (default
//! `<target>/tmp/fidelity`): the JMH benches read the Java records from those exact bytes and
//! decode the Rust producer's payload, as codecbench's rust → java cells do.
use codecbench_codecs::find;
use codecbench_datasets::{generate, Records};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const DATASETS: &[&str] = &["dummy", "numeric"];
const CODECS: &[&str] = &["json", "bson", "protobuf"];
const COUNT: u32 = 1000;
const SEED: u64 = 1;

fn out_dir() -> PathBuf {
    std::env::var_os("CODECBENCH_FIDELITY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fidelity"))
}

fn write(path: PathBuf, bytes: &[u8]) {
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn fidelity(c: &mut Criterion) {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    for &dataset in DATASETS {
        let canonical = generate(dataset, COUNT, SEED).expect("known dataset").to_canonical_bytes();
        write(dir.join(format!("{dataset}-{COUNT}-{SEED}.pb")), &canonical);
        // The worker encodes the records it parsed from the canonical blob, laid out in memory as
        // prost's decoder lays them out, not the generator's; encode speed depends on that layout.
        let records = Records::from_canonical_bytes(dataset, &canonical).expect("the canonical blob parses");
        for &id in CODECS {
            let codec = find(id).unwrap_or_else(|| panic!("no codec {id} in the registry"));
            let bytes = codec.encode(&records).unwrap_or_else(|e| panic!("{dataset} {id} encode: {e}"));
            let back = codec.decode(dataset, &bytes).unwrap_or_else(|e| panic!("{dataset} {id} decode: {e}"));
            assert!(back == records, "{dataset} {id}: the payload does not decode to the canonical records");
            write(dir.join(format!("{dataset}-{COUNT}-{SEED}.{id}.rust")), &bytes);

            // Ids are "<dataset>/<codec>/<operation>": fidelity.py matches them to codecbench cells.
            let mut group = c.benchmark_group(format!("{dataset}/{id}"));
            // Operations take 0.5-10 ms: flat sampling (the same iteration count in every sample)
            // keeps a benchmark inside its measurement time, where linear sampling would need ~45 s.
            group.sampling_mode(SamplingMode::Flat);
            group.bench_function("encode", |b| b.iter(|| codec.encode(black_box(&records)).unwrap()));
            group.bench_function("decode-typed", |b| b.iter(|| codec.decode(dataset, black_box(&bytes)).unwrap()));
            group.finish();
        }
    }
}

fn config() -> Criterion {
    // 50 samples over 5 s after a 2 s warm-up (criterion's defaults: 100 samples, 3 s + 5 s).
    Criterion::default().sample_size(50).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(5))
}

criterion_group! { name = benches; config = config(); targets = fidelity }
criterion_main!(benches);
