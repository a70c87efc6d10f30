//! One trial in a fresh process (proto/README.md, worker protocol step 3). The attached worker
//! runs `codecbench-worker trial`, writes the task, the canonical bytes and the payload to its
//! stdin, and reads back a `ReportResultRequest` (measurements or a failure) and, for encode
//! tasks that need it, the payload. The child verifies and times, then exits, so no trial
//! inherits another's allocator state, page faults or caches.
//!
//! Framing, both ways: each part is a little-endian u64 length and that many bytes.
//! stdin: Task (protobuf), canonical blob, payload (empty for encode). stdout: ReportResultRequest
//! (protobuf), payload (the encoded bytes when the task stores or uploads them, else empty).
use crate::{environment, measure::{measure_with_peak, Sample}, phases::Laps};
use codecbench_codecs::{self as codecs, streaming::is_record, Codec, LAZY, STREAMING, TREE, TYPED};
use codecbench_datasets::Records;
use codecbench_proto::v1::{Environment, Measurement, Operation, ReportResultRequest, Task};
use prost::Message;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

// ---- framing ----------------------------------------------------------------------------------

pub fn write_frames(out: &mut impl Write, parts: &[&[u8]]) -> std::io::Result<()> {
    for p in parts {
        out.write_all(&(p.len() as u64).to_le_bytes())?;
        out.write_all(p)?;
    }
    out.flush()
}

/// Splits `data` into exactly `n` length-prefixed parts; anything else is an error saying what.
pub fn read_frames(data: &[u8], n: usize) -> Result<Vec<&[u8]>, String> {
    let mut parts = Vec::with_capacity(n);
    let mut rest = data;
    for i in 0..n {
        let Some((len, tail)) = rest.split_first_chunk::<8>() else {
            return Err(format!("part {} of {n}: {} bytes where an 8-byte length was expected", i + 1, rest.len()));
        };
        let len = u64::from_le_bytes(*len);
        if len > tail.len() as u64 {
            return Err(format!("part {} of {n} announces {len} bytes, only {} follow", i + 1, tail.len()));
        }
        let (part, tail) = tail.split_at(len as usize);
        parts.push(part);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes after the {n} parts", rest.len()));
    }
    Ok(parts)
}

// ---- the child --------------------------------------------------------------------------------

/// `codecbench-worker trial`: reads the trial from stdin, runs it, writes the outcome to stdout.
/// A verification or codec failure is a report (exit 0); unreadable input is exit 2.
pub fn child_main() -> i32 {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("trial: reading stdin: {e}");
        return 2;
    }
    let (task, canonical, payload) = match read_frames(&input, 3).and_then(|p| {
        let task = Task::decode(p[0]).map_err(|e| format!("the task is not a protobuf Task: {e}"))?;
        Ok((task, p[1].to_vec(), p[2].to_vec()))
    }) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("trial: unreadable trial input: {e}");
            return 2;
        }
    };
    drop(input);
    let mut laps = Laps::start();
    let (mut report, payload) = run_trial(&task, &canonical, &payload, &environment::current(), &mut laps);
    laps.lap("other");
    report.phase_ms = laps.into_map();
    report.trial_cpus = crate::affinity::own_cpus();
    let mut out = std::io::stdout().lock();
    if let Err(e) = write_frames(&mut out, &[&report.encode_to_vec(), &payload]) {
        eprintln!("trial: writing the result: {e}");
        return 2;
    }
    0
}

/// Verifies and times one trial; returns the report (measurements, or a failure) and the payload
/// when an encode task must store or upload it. `laps` gets the trial's phases.
pub fn run_trial(task: &Task, canonical: &[u8], payload: &[u8], env: &Environment, laps: &mut Laps) -> (ReportResultRequest, Vec<u8>) {
    let mut report = ReportResultRequest { task_id: task.id.clone(), ..Default::default() };
    let outcome = check_prepare(task).and_then(|()| match task.operation() {
        Operation::Encode => encode(task, canonical, env, laps),
        Operation::Decode => decode(task, canonical, payload, env, laps).map(|m| (vec![m], vec![])),
        other => Err(format!("unsupported operation {}", other.as_str_name())),
    });
    match outcome {
        Ok((measurements, payload)) => {
            report.measurements = measurements;
            (report, payload)
        }
        Err(failure) => {
            report.failure = failure;
            (report, vec![])
        }
    }
}

fn setup(task: &Task, canonical: &[u8]) -> Result<(Box<dyn Codec>, Records), String> {
    let codec = codecs::find(&task.codec).ok_or_else(|| format!("this worker has no codec {:?}", task.codec))?;
    // A refused cell is never planned; a task for one anyway (another control, grpcurl) fails
    // here, before anything is timed, with the refusal's reason.
    if let Some(reason) = codecbench_datasets::spec(&task.dataset).and_then(|d| codec.refusal(d)) {
        return Err(reason);
    }
    let records = Records::from_canonical_bytes(&task.dataset, canonical)?;
    if records.len() != task.record_count as usize {
        return Err(format!("canonical blob has {} records, task says {}", records.len(), task.record_count));
    }
    Ok((codec, records))
}

/// A prepare task is an encode task (the contract has no other kind).
pub fn check_prepare(task: &Task) -> Result<(), String> {
    match task.operation() {
        op if task.prepare && op != Operation::Encode => Err(format!("a prepare task must be an encode task, this one is {}", op.as_str_name())),
        _ => Ok(()),
    }
}

/// Encodes and verifies; a prepare task stops there and returns the payload, nothing timed.
fn encode(task: &Task, canonical: &[u8], env: &Environment, laps: &mut Laps) -> Result<(Vec<Measurement>, Vec<u8>), String> {
    let (codec, records) = setup(task, canonical)?;
    laps.lap("load");
    let sampling = task.sampling.unwrap_or_default();
    if task.decode_mode == STREAMING {
        return encode_streaming(task, codec.as_ref(), &records, env, laps).map(|m| (vec![m], vec![]));
    }
    let payload = codec.encode(&records).map_err(|e| format!("encode failed: {e}"))?;
    let back = codec.decode(records.dataset(), &payload).map_err(|e| format!("verification failed: own payload does not decode: {e}"))?;
    verify_typed(&records, &back)?;
    drop(back);
    laps.lap("verify");
    if task.prepare {
        return Ok((vec![], payload));
    }
    let sample = measure_with_peak(&sampling, || codec.encode(&records));
    laps.measured(&sample);
    let m = measurement(Operation::Encode, payload.len(), &sample, env);
    let keep = task.store_payload || task.measure_transfer;
    Ok((vec![m], if keep { payload } else { vec![] }))
}

/// What a socket write or read moves at a time: the streaming mode's buffer.
pub const STREAM_BUFFER: usize = 4096;

/// The far end of a streaming encode: it takes each drained chunk (touched, then forgotten), as a
/// socket would, and counts the bytes.
struct Drain(u64);

impl Write for Drain {
    fn write(&mut self, chunk: &[u8]) -> std::io::Result<usize> {
        self.0 += std::hint::black_box(chunk).len() as u64;
        Ok(chunk.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One streaming encode: the codec writes through a STREAM_BUFFER-byte buffer drained each time
/// it fills; returns the bytes written.
pub fn stream_encode_once(codec: &dyn Codec, records: &Records) -> Result<u64, codecs::CodecError> {
    let mut out = std::io::BufWriter::with_capacity(STREAM_BUFFER, Drain(0));
    codec.encode_streaming(records, &mut out)?;
    out.flush().map_err(codecs::CodecError::from_display)?;
    Ok(out.get_ref().0)
}

/// One streaming decode: the payload read STREAM_BUFFER bytes at a time, every record touched
/// and dropped as it arrives; returns the record count.
pub fn stream_decode_once(codec: &dyn Codec, dataset: &str, payload: &[u8]) -> Result<usize, codecs::CodecError> {
    let mut input = std::io::BufReader::with_capacity(STREAM_BUFFER, payload);
    codec.decode_streaming(dataset, &mut input, &mut |r| drop(std::hint::black_box(r)))
}

fn encode_streaming(task: &Task, codec: &dyn Codec, records: &Records, env: &Environment, laps: &mut Laps) -> Result<Measurement, String> {
    if task.prepare || task.store_payload {
        return Err("a streaming encode cell times only; its payload is the in-memory cell's".into());
    }
    let meta = codec.meta();
    if !meta.decode_modes.contains(&STREAMING) {
        return Err(format!("codec {} offers no streaming mode", meta.id));
    }
    // Verified as every encode: the streamed bytes decode back to the records.
    let mut bytes = Vec::new();
    codec.encode_streaming(records, &mut bytes).map_err(|e| format!("encode failed: {e}"))?;
    let back = codec.decode(records.dataset(), &bytes).map_err(|e| format!("verification failed: own streamed payload does not decode: {e}"))?;
    verify_typed(records, &back)?;
    drop(back);
    laps.lap("verify");
    let sample = measure_with_peak(&task.sampling.unwrap_or_default(), || stream_encode_once(codec, records));
    laps.measured(&sample);
    Ok(measurement(Operation::Encode, bytes.len(), &sample, env))
}

fn decode(task: &Task, canonical: &[u8], payload: &[u8], env: &Environment, laps: &mut Laps) -> Result<Measurement, String> {
    let (codec, records) = setup(task, canonical)?;
    laps.lap("load");
    let sampling = task.sampling.unwrap_or_default();
    let meta = codec.meta();
    let mode = task.decode_mode.as_str();
    if !meta.decode_modes.contains(&mode) {
        return Err(format!("codec {} offers no decode mode {mode:?} (it offers {})", meta.id, meta.decode_modes.join(", ")));
    }
    let dataset = records.dataset();
    // Once per payload, untimed: what the library would not survive (Codec::admit).
    codec.admit(payload).map_err(|e| format!("decode failed: {e}"))?;
    let sample = match mode {
        TYPED => {
            let decoded = codec.decode(dataset, payload).map_err(|e| format!("decode failed: {e}"))?;
            verify_typed(&records, &decoded)?;
            drop(decoded);
            laps.lap("verify");
            measure_with_peak(&sampling, || codec.decode(dataset, payload))
        }
        TREE => {
            let tree = codec.decode_tree(payload).map_err(|e| format!("decode failed: {e}"))?;
            let decoded = tree.into_records(dataset).map_err(|e| format!("verification failed: the tree does not hold {dataset} records: {e}"))?;
            verify_typed(&records, &decoded)?;
            drop(decoded);
            laps.lap("verify");
            measure_with_peak(&sampling, || codec.decode_tree(payload))
        }
        LAZY => {
            let fields: Vec<&str> = task.lazy_fields.iter().map(String::as_str).collect();
            if fields.is_empty() {
                return Err("a lazy decode task must name its lazy_fields".into());
            }
            let expected = fields
                .iter()
                .map(|f| records.lazy_values(f).ok_or_else(|| format!("{dataset} records have no lazy field {f:?}")))
                .collect::<Result<Vec<_>, _>>()?;
            let got = codecs::lazy_values(codec.as_ref(), dataset, payload, &fields).map_err(|e| format!("decode failed: {e}"))?;
            for ((field, want), got) in fields.iter().zip(&expected).zip(&got) {
                verify_lazy(want, got, field)?;
            }
            drop((expected, got));
            // The sink: every value read is touched, so no read can be elided.
            laps.lap("verify");
            measure_with_peak(&sampling, || {
                let mut sink = 0usize;
                codec.decode_lazy(dataset, payload, &fields, &mut |_, v| sink = sink.wrapping_add(std::hint::black_box(v).len())).map(|()| sink)
            })
        }
        STREAMING => {
            let (mut seen, mut first_bad) = (0usize, None);
            let n = codec
                .decode_streaming(dataset, &mut std::io::BufReader::with_capacity(STREAM_BUFFER, payload), &mut |r| {
                    if first_bad.is_none() && !is_record(&records, seen, &r) {
                        first_bad = Some(seen);
                    }
                    seen += 1;
                })
                .map_err(|e| format!("decode failed: {e}"))?;
            if let Some(i) = first_bad {
                return Err(format!("verification failed: streamed record {i} differs from the canonical one"));
            }
            if n != records.len() {
                return Err(format!("verification failed: {n} records streamed, {} expected", records.len()));
            }
            laps.lap("verify");
            measure_with_peak(&sampling, || stream_decode_once(codec.as_ref(), dataset, payload))
        }
        other => return Err(format!("unknown decode mode {other:?}")),
    };
    laps.measured(&sample);
    Ok(measurement(Operation::Decode, payload.len(), &sample, env))
}

pub fn measurement(operation: Operation, payload_bytes: usize, s: &Sample, env: &Environment) -> Measurement {
    Measurement {
        operation: operation as i32,
        language: "rust".into(),
        payload_bytes: payload_bytes as u64,
        round_ns_per_op: s.round_ns_per_op.clone(),
        ops_per_round: s.ops_per_round,
        alloc_bytes_per_op: Some(s.alloc_bytes_per_op),
        verified: true,
        steady: s.steady,
        environment: Some(env.clone()),
        extras: [("warmup_ms", Some(s.warmup_ms)), ("warmup_rounds", Some(s.warmup_rounds as f64)), ("rounds_ms", Some(s.rounds_ms)), ("rounds_runqueue_ms", s.rounds_runqueue_ms), ("peak_heap_bytes", s.peak_heap_bytes.map(|p| p as f64))]
            .into_iter()
            .filter_map(|(k, v)| Some((k.to_string(), v?)))
            .collect::<HashMap<_, _>>(),
        ..Default::default()
    }
}

/// Compares decoded records with the canonical ones and names the first difference.
pub fn verify_typed(expected: &Records, got: &Records) -> Result<(), String> {
    if expected == got {
        return Ok(());
    }
    if expected.len() != got.len() || expected.dataset() != got.dataset() {
        return Err(format!("verification failed: expected {} {} records, decoded {} {}", expected.len(), expected.dataset(), got.len(), got.dataset()));
    }
    let diff = first_difference(expected, got).unwrap_or_else(|| "records differ".into());
    Err(format!("verification failed: {diff}"))
}

fn first_difference(a: &Records, b: &Records) -> Option<String> {
    let (i, expected, decoded) = a.first_difference(b)?;
    let cut = |s: String| s.chars().take(300).collect::<String>();
    Some(format!("record {i}: expected {} but decoded {}", cut(expected), cut(decoded)))
}

pub fn verify_lazy(expected: &[String], got: &[String], field: &str) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!("verification failed: expected {} values of {field:?}, read {}", expected.len(), got.len()));
    }
    match expected.iter().zip(got).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!("verification failed: record {i} field {field:?}: expected {:?}, read {:?}", expected[i], got[i])),
    }
}

// ---- the parent -------------------------------------------------------------------------------

/// Runs one trial in `program args...` (the worker's own binary with `trial`) and reads its
/// outcome. A child that cannot start, crashes, exits non-zero, overruns `timeout` or writes
/// anything but the two parts is an error naming what happened and ending with its stderr.
pub fn run_in_child(
    program: &Path,
    args: &[&str],
    task: &Task,
    canonical: &[u8],
    payload: &[u8],
    timeout: Option<Duration>,
) -> Result<(ReportResultRequest, Vec<u8>), String> {
    run_in_child_until(program, args, task, canonical, payload, timeout, &AtomicBool::new(false))
}

/// `run_in_child`, and the child is killed as soon as `abandon` is set (control ended the task).
pub fn run_in_child_until(
    program: &Path,
    args: &[&str],
    task: &Task,
    canonical: &[u8],
    payload: &[u8],
    timeout: Option<Duration>,
    abandon: &AtomicBool,
) -> Result<(ReportResultRequest, Vec<u8>), String> {
    let mut command = Command::new(program);
    crate::affinity::pin(&mut command, &task.cpus)?;
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the trial process {}: {e}", program.display()))?;
    let started = Instant::now();
    let (mut stdin, mut stdout, mut stderr) = (child.stdin.take().unwrap(), child.stdout.take().unwrap(), child.stderr.take().unwrap());
    // Three threads so that no pipe can fill up and stall both processes.
    let input = [task.encode_to_vec(), canonical.to_vec(), payload.to_vec()];
    let writer = std::thread::spawn(move || {
        // A child that dies early closes the pipe; its exit status then says why.
        let _ = write_frames(&mut stdin, &[&input[0], &input[1], &input[2]]);
    });
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        stdout.read_to_end(&mut v).map(|_| v)
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("waiting for the trial process: {e}"))? {
            break Ok(status);
        }
        let stop = match timeout {
            Some(t) if started.elapsed() >= t => Some(format!("the trial process did not finish within {} s and was killed", t.as_secs_f64())),
            _ if abandon.load(Ordering::Relaxed) => Some("the task was abandoned (control ended it) and its trial process was killed".to_string()),
            _ => None,
        };
        if let Some(why) = stop {
            let _ = child.kill();
            let _ = child.wait();
            break Err(why);
        }
        // Polling, not a blocking wait, so the timeout can be enforced; the child runs alone.
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    let out = out_reader.join().map_err(|_| "reading the trial's stdout panicked".to_string())?;
    let err = err_reader.join().unwrap_or_default();
    let tail = stderr_tail(&err);
    let status = status.map_err(|e| format!("{e}; its stderr ends: {tail}"))?;
    if !status.success() {
        return Err(format!("the trial process {}; its stderr ends: {tail}", describe(status)));
    }
    let out = out.map_err(|e| format!("reading the trial's stdout: {e}"))?;
    let parts = read_frames(&out, 2).map_err(|e| format!("the trial process wrote an unreadable result ({e}); its stderr ends: {tail}"))?;
    let report = ReportResultRequest::decode(parts[0])
        .map_err(|e| format!("the trial process wrote an unreadable result (not a ReportResultRequest: {e}); its stderr ends: {tail}"))?;
    Ok((report, parts[1].to_vec()))
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("was killed by signal {sig}{}", if status.core_dumped() { " (core dumped)" } else { "" }),
        _ => format!("ended with {status}"),
    }
}

/// The last 2000 characters of what the child wrote to stderr, or a note that it wrote nothing.
fn stderr_tail(err: &[u8]) -> String {
    let text = String::from_utf8_lossy(err);
    let text = text.trim();
    if text.is_empty() {
        return "(nothing on stderr)".into();
    }
    let chars: Vec<char> = text.chars().collect();
    let start = chars.len().saturating_sub(2000);
    format!("{}{}", if start > 0 { "..." } else { "" }, chars[start..].iter().collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use codecbench_datasets::generate;

    #[test]
    fn verification_names_the_first_differing_record() {
        let a = generate("beers", 5, 1).unwrap();
        let Records::Beers(mut changed) = a.clone() else { unreachable!() };
        changed[3].alcohol += 0.1;
        let e = verify_typed(&a, &Records::Beers(changed)).unwrap_err();
        assert!(e.starts_with("verification failed: record 3: expected BeerRecord"), "{e}");
        assert!(verify_typed(&a, &a).is_ok());
        let e = verify_lazy(&["x".into(), "y".into()], &["x".into(), "z".into()], "name").unwrap_err();
        assert_eq!(e, "verification failed: record 1 field \"name\": expected \"y\", read \"z\"");
    }

    #[test]
    fn frames_round_trip_and_bad_framing_is_named() {
        let mut buf = Vec::new();
        write_frames(&mut buf, &[b"abc", b"", b"xy"]).unwrap();
        assert_eq!(read_frames(&buf, 3).unwrap(), [&b"abc"[..], b"", b"xy"]);
        assert_eq!(read_frames(&buf, 2).unwrap_err(), "10 bytes after the 2 parts");
        assert_eq!(read_frames(&buf[..5], 1).unwrap_err(), "part 1 of 1: 5 bytes where an 8-byte length was expected");
        assert_eq!(read_frames(&buf[..10], 1).unwrap_err(), "part 1 of 1 announces 3 bytes, only 2 follow");
    }

    fn sh(script: &str, timeout: Option<Duration>) -> String {
        let task = Task::default();
        run_in_child(Path::new("/bin/sh"), &["-c", script], &task, b"canonical", b"", timeout).unwrap_err()
    }

    #[test]
    fn a_crashing_child_is_named_with_its_signal_and_stderr() {
        let e = sh("cat >/dev/null; echo 'thread main panicked: boom' >&2; kill -SEGV $$", None);
        assert!(e.starts_with("the trial process was killed by signal 11"), "{e}");
        assert!(e.ends_with("its stderr ends: thread main panicked: boom"), "{e}");
    }

    #[test]
    fn a_child_exiting_non_zero_is_named_with_its_status_and_stderr() {
        let e = sh("cat >/dev/null; echo oops >&2; exit 3", None);
        assert_eq!(e, "the trial process exited with status 3; its stderr ends: oops");
        // Even one that does not read its input.
        let e = sh("exit 4", None);
        assert_eq!(e, "the trial process exited with status 4; its stderr ends: (nothing on stderr)");
    }

    #[test]
    fn a_child_writing_garbage_is_named() {
        let e = sh("cat >/dev/null; echo garbage", None);
        assert!(e.starts_with("the trial process wrote an unreadable result (part 1 of 2 announces"), "{e}");
        // Well framed, but not a report.
        let e = sh(r"cat >/dev/null; printf '\002\0\0\0\0\0\0\0\377\377\0\0\0\0\0\0\0\0'", None);
        assert!(e.starts_with("the trial process wrote an unreadable result (not a ReportResultRequest"), "{e}");
    }

    #[test]
    fn a_child_over_its_time_is_killed() {
        let t = Instant::now();
        let e = sh("cat >/dev/null; exec sleep 30", Some(Duration::from_millis(300)));
        assert!(e.starts_with("the trial process did not finish within 0.3 s and was killed"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}
