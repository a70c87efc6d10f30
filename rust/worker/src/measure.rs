//! One trial's timing (proto/README.md "Timing: one trial"): calibrate a round to at least
//! `min_round_ms`, warm up until a measured steady state (or the cap), then keep every round's
//! ns per operation. Results go through `black_box` so nothing is optimised away.
use crate::alloc;
use codecbench_proto::v1::Sampling;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Warm-up rounds before a steady state can be declared.
pub const MIN_WARMUP_ROUNDS: usize = 10;
/// Rounds in each of the two windows whose medians are compared, at least.
pub const WINDOW: usize = 5;
/// The two windows together last at least this long: a short window can sit on a plateau that
/// ends later (the same rule as the Java and browser workers).
pub const WINDOWS_MIN: Duration = Duration::from_millis(300);
/// How close the two medians must be (relative to the earlier one).
pub const TOLERANCE: f64 = 0.05;
/// `max_warmup_ms` when a task carries none (control always sends one).
pub const DEFAULT_MAX_WARMUP_MS: u32 = 10_000;

#[derive(Debug, Clone)]
pub struct Sample {
    pub round_ns_per_op: Vec<f64>,
    pub ops_per_round: u64,
    pub alloc_bytes_per_op: f64,
    /// Calibration and warm-up, in ms.
    pub warmup_ms: f64,
    pub warmup_rounds: u64,
    /// Warm-up ended at a steady state, not at the cap.
    pub steady: bool,
    /// Wall time of the timed rounds, in ms.
    pub rounds_ms: f64,
    /// How long, during the timed rounds, the timing thread was ready to run but waited for a CPU
    /// (another process had it), in ms; None where the kernel does not say
    /// (/proc/thread-self/schedstat). It tells a preempted trial from a slow one.
    pub rounds_runqueue_ms: Option<f64>,
    /// The peak growth of the live heap during one more operation after the rounds, its result
    /// included (alloc::peak_growth): the memory one codec operation needs at once. Set by
    /// `with_peak` for codec work only (a transfer leg's extra operation would be another upload).
    pub peak_heap_bytes: Option<u64>,
}

/// This thread's run-queue wait so far, in ns: the second field of /proc/thread-self/schedstat
/// (std exposes no scheduler statistics).
pub fn runqueue_wait_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warmup {
    Continue,
    Steady,
    Capped,
}

pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Whether warm-up is over, given the warm-up rounds so far (ns/op, in order, each of `ops`
/// operations) and the time spent: steady once `min` has passed, at least 10 rounds ran and the
/// median of the last window of rounds is within 5 % of the median of the window before, a window
/// being at least 5 rounds and the two together lasting at least 300 ms; capped at `max` whatever
/// the rounds say.
pub fn warmup_decision(rounds: &[f64], ops: u64, elapsed: Duration, min: Duration, max: Duration) -> Warmup {
    let n = rounds.len();
    if n >= MIN_WARMUP_ROUNDS && elapsed >= min {
        let lasting = |w: usize| rounds[n - 2 * w..].iter().sum::<f64>() * ops as f64 >= WINDOWS_MIN.as_nanos() as f64;
        let mut w = WINDOW;
        while 2 * w <= n && !lasting(w) {
            w += 1;
        }
        if 2 * w <= n {
            let last = median(&rounds[n - w..]);
            let before = median(&rounds[n - 2 * w..n - w]);
            if (last - before).abs() <= TOLERANCE * before {
                return Warmup::Steady;
            }
        }
    }
    if elapsed >= max { Warmup::Capped } else { Warmup::Continue }
}

pub fn measure<T>(sampling: &Sampling, mut op: impl FnMut() -> T) -> Sample {
    let min_warmup = Duration::from_millis(u64::from(sampling.warmup_ms));
    let max_ms = if sampling.max_warmup_ms == 0 { DEFAULT_MAX_WARMUP_MS } else { sampling.max_warmup_ms };
    let max_warmup = Duration::from_millis(u64::from(max_ms)).max(min_warmup);
    let min_round = Duration::from_millis(u64::from(sampling.min_round_ms.max(1)));
    let rounds = sampling.rounds.max(1);

    let start = Instant::now();
    // Calibrate: the smallest power-of-two count of operations that fills a round.
    let mut ops = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..ops {
            black_box(op());
        }
        if t.elapsed() >= min_round || start.elapsed() >= max_warmup {
            break;
        }
        ops *= 2;
    }

    let mut warmup = Vec::new();
    let mut warmup_rounds_total = 0u64;
    let steady = loop {
        let t = Instant::now();
        for _ in 0..ops {
            black_box(op());
        }
        let took = t.elapsed();
        warmup.push(took.as_nanos() as f64 / ops as f64);
        warmup_rounds_total += 1;
        // Calibration ran on cold code; once warm, a round may no longer fill `min_round_ms`:
        // double the ops and judge the warm-up again from there.
        if took < min_round && start.elapsed() < max_warmup && warmup.len() >= WINDOW {
            ops *= 2;
            warmup.clear();
            continue;
        }
        match warmup_decision(&warmup, ops, start.elapsed(), min_warmup, max_warmup) {
            Warmup::Continue => {}
            Warmup::Steady => break true,
            Warmup::Capped => break false,
        }
    };
    let warmup_ms = start.elapsed().as_secs_f64() * 1e3;

    // Read before the allocation count starts: reading the file allocates.
    let waited = runqueue_wait_ns();
    let rounds_start = Instant::now();
    let allocated = alloc::thread_allocated();
    let mut round_ns_per_op = Vec::with_capacity(rounds as usize);
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..ops {
            black_box(op());
        }
        round_ns_per_op.push(t.elapsed().as_nanos() as f64 / ops as f64);
    }
    let allocated = alloc::thread_allocated() - allocated;
    let rounds_ms = rounds_start.elapsed().as_secs_f64() * 1e3;
    let rounds_runqueue_ms = waited.zip(runqueue_wait_ns()).map(|(a, b)| b.saturating_sub(a) as f64 / 1e6);
    let total_ops = ops * u64::from(rounds);
    Sample {
        peak_heap_bytes: None,
        // The Vec above was allocated before the count started; only the ops are counted.
        alloc_bytes_per_op: allocated as f64 / total_ops as f64,
        round_ns_per_op,
        ops_per_round: ops,
        warmup_ms,
        warmup_rounds: warmup_rounds_total,
        steady,
        rounds_ms,
        rounds_runqueue_ms,
    }
}

/// `measure`, then one more operation outside the timed rounds (following the live heap costs a
/// little on every allocation) for the sample's peak heap.
pub fn measure_with_peak<T>(sampling: &Sampling, mut op: impl FnMut() -> T) -> Sample {
    let mut sample = measure(sampling, &mut op);
    let (out, peak) = alloc::peak_growth(&mut op);
    black_box(out);
    sample.peak_heap_bytes = Some(peak);
    sample
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    /// Ops per round in the decision tests: 400,000 x 100 ns = 40 ms rounds.
    const OPS: u64 = 400_000;

    #[test]
    fn a_flat_series_settles_once_the_minimum_time_and_rounds_are_reached() {
        // Rounds of 100 ns x 400,000 ops = 40 ms: ten of them last 400 ms.
        let flat = [100.0, 101.0, 99.0, 100.0, 102.0, 100.0, 98.0, 100.0, 101.0, 100.0];
        assert_eq!(warmup_decision(&flat, OPS, 300 * MS, 200 * MS, 10_000 * MS), Warmup::Steady);
        // Not before the minimum time, nor before 10 rounds.
        assert_eq!(warmup_decision(&flat, OPS, 100 * MS, 200 * MS, 10_000 * MS), Warmup::Continue);
        assert_eq!(warmup_decision(&flat[..9], OPS, 300 * MS, 200 * MS, 10_000 * MS), Warmup::Continue);
        // Short rounds (10 x 4 ms = 40 ms) are not enough: the two windows must last 300 ms.
        assert_eq!(warmup_decision(&flat, OPS / 10, 300 * MS, 200 * MS, 10_000 * MS), Warmup::Continue);
    }

    #[test]
    fn short_rounds_compare_windows_that_last_300_ms() {
        // 13 ms rounds on a plateau, then the real speed (10 ms rounds). Windows of 5 rounds
        // (130 ms together) are too short to judge; 12-round windows (312 ms) are long enough.
        let ops = 100_000;
        let mut rounds = vec![130.0; 24];
        assert_eq!(warmup_decision(&rounds[..20], ops, 300 * MS, 200 * MS, 10_000 * MS), Warmup::Continue);
        assert_eq!(warmup_decision(&rounds, ops, 300 * MS, 200 * MS, 10_000 * MS), Warmup::Steady);
        // The drop after the plateau: the windows now straddle it and disagree.
        rounds.extend([100.0; 10]);
        assert_eq!(warmup_decision(&rounds, ops, 400 * MS, 200 * MS, 10_000 * MS), Warmup::Continue);
        rounds.extend([100.0; 20]);
        assert_eq!(warmup_decision(&rounds, ops, 600 * MS, 200 * MS, 10_000 * MS), Warmup::Steady);
    }

    #[test]
    fn a_series_still_falling_does_not_settle() {
        // Each round 3 % faster: the last 5 rounds' median is ~14 % below the 5 before.
        let falling: Vec<f64> = (0..20).map(|i| 1000.0 * 0.97f64.powi(i)).collect();
        assert_eq!(warmup_decision(&falling, OPS, 500 * MS, 200 * MS, 10_000 * MS), Warmup::Continue);
        // A falling series that then flattens settles.
        let mut settled = falling.clone();
        settled.extend([540.0; 10]);
        assert_eq!(warmup_decision(&settled, OPS, 500 * MS, 200 * MS, 10_000 * MS), Warmup::Steady);
        // One outlier in the last window does not move a median.
        let mut outlier = vec![500.0; 10];
        outlier[8] = 5000.0;
        assert_eq!(warmup_decision(&outlier, OPS, 500 * MS, 200 * MS, 10_000 * MS), Warmup::Steady);
    }

    #[test]
    fn the_cap_ends_warm_up_unsteady() {
        let falling: Vec<f64> = (0..40).map(|i| 1000.0 * 0.97f64.powi(i)).collect();
        assert_eq!(warmup_decision(&falling, OPS, 10_000 * MS, 200 * MS, 10_000 * MS), Warmup::Capped);
        // Even with fewer than 10 rounds (each round very long).
        assert_eq!(warmup_decision(&[5.0, 4.0], OPS, 10_001 * MS, 200 * MS, 10_000 * MS), Warmup::Capped);
    }

    fn sampling(warmup_ms: u32, max_warmup_ms: u32, rounds: u32, min_round_ms: u32) -> Sampling {
        Sampling { warmup_ms, max_warmup_ms, rounds, min_round_ms, ..Default::default() }
    }

    #[test]
    fn rounds_fill_the_minimum_warm_up_is_reported_and_allocations_counted() {
        let sample = measure(&sampling(5, 2000, 4, 2), || vec![0u8; 1000]);
        assert_eq!(sample.round_ns_per_op.len(), 4);
        assert!(sample.round_ns_per_op.iter().all(|&ns| ns > 0.0));
        let round_ms = sample.round_ns_per_op[0] * sample.ops_per_round as f64 / 1e6;
        assert!(round_ms >= 1.0, "a round must last about min_round_ms, got {round_ms} ms");
        // Re-calibrated once warm: the median timed round fills min_round_ms.
        let mut r = sample.round_ns_per_op.clone();
        r.sort_by(f64::total_cmp);
        assert!(r[r.len() / 2] * sample.ops_per_round as f64 / 1e6 >= 2.0 * 0.9, "{:?} x {}", r, sample.ops_per_round);
        assert!((1000.0..1100.0).contains(&sample.alloc_bytes_per_op), "{}", sample.alloc_bytes_per_op);
        assert!(sample.warmup_ms >= 5.0);
        assert!(sample.warmup_rounds >= MIN_WARMUP_ROUNDS as u64);
    }

    #[test]
    fn time_spent_waiting_for_a_cpu_during_the_rounds_is_reported() {
        // Twice as many spinning threads as CPUs: the timing thread must wait for one.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let spinners: Vec<_> = (0..2 * cpus)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || while !stop.load(std::sync::atomic::Ordering::Relaxed) {})
            })
            .collect();
        let busy = measure(&sampling(1, 100, 10, 10), || (0..1000u64).map(black_box).sum::<u64>());
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinners.into_iter().for_each(|t| t.join().unwrap());
        let waited = busy.rounds_runqueue_ms.expect("Linux reports schedstat");
        // rounds_ms is the wall time of the timed rounds. (It is not promised to reach
        // rounds x min_round_ms: calibration under this contention sees preempted, slower
        // operations, so a later round with fewer preemptions can be shorter; CI hit 85 ms.)
        // Between two rounds the thread can be preempted too (CI saw 8 ms of such gaps over
        // 10 rounds): that time is waiting for a CPU, so the gaps are bounded by `waited`.
        let summed: f64 = busy.round_ns_per_op.iter().map(|ns| ns * busy.ops_per_round as f64 / 1e6).sum();
        assert!(
            summed <= busy.rounds_ms && busy.rounds_ms < summed + waited + 1.0,
            "{summed} ms of rounds, {} ms, {waited} ms waiting",
            busy.rounds_ms
        );
        assert!(waited > 0.2 * busy.rounds_ms && waited <= busy.rounds_ms, "waited {waited} ms of {} ms", busy.rounds_ms);
    }

    #[test]
    fn an_operation_that_keeps_slowing_down_hits_the_cap_and_is_unsteady() {
        // An operation whose cost doubles every 50 ms (up to 16x): no two windows agree.
        let t0 = Instant::now();
        let sample = measure(&sampling(1, 150, 2, 1), || {
            let t = t0.elapsed().min(Duration::from_millis(200)).as_secs_f64();
            let spin = Instant::now();
            while spin.elapsed() < Duration::from_secs_f64(500e-6 * 2f64.powf(t / 0.05)) {}
        });
        assert!(!sample.steady);
        assert!(sample.warmup_ms >= 150.0 && sample.warmup_ms < 1500.0, "{}", sample.warmup_ms);
    }
}
