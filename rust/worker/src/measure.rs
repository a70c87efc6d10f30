//! The timing rules of DESIGN.md: warm up, calibrate a round to at least `min_round_ms`, then keep
//! every round's ns per operation. Results go through `black_box` so nothing is optimised away.
use crate::alloc;
use codecbench_proto::v1::Sampling;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Sample {
    pub round_ns_per_op: Vec<f64>,
    pub ops_per_round: u64,
    pub alloc_bytes_per_op: f64,
    pub warmup_ms: f64,
    pub warmup_ops: u64,
}

pub fn measure<T>(sampling: &Sampling, mut op: impl FnMut() -> T) -> Sample {
    let warmup = Duration::from_millis(u64::from(sampling.warmup_ms));
    let min_round = Duration::from_millis(u64::from(sampling.min_round_ms.max(1)));
    let rounds = sampling.rounds.max(1);

    let start = Instant::now();
    let mut warmup_ops = 0u64;
    loop {
        black_box(op());
        warmup_ops += 1;
        if start.elapsed() >= warmup {
            break;
        }
    }
    let warmup_ms = start.elapsed().as_secs_f64() * 1e3;

    // Smallest power-of-two count of operations that fills a round.
    let mut ops = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..ops {
            black_box(op());
        }
        if t.elapsed() >= min_round {
            break;
        }
        ops *= 2;
    }

    let allocated = alloc::thread_allocated();
    let mut round_ns_per_op = Vec::with_capacity(rounds as usize);
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..ops {
            black_box(op());
        }
        round_ns_per_op.push(t.elapsed().as_nanos() as f64 / ops as f64);
    }
    let total_ops = ops * u64::from(rounds);
    Sample {
        round_ns_per_op,
        ops_per_round: ops,
        alloc_bytes_per_op: (alloc::thread_allocated() - allocated) as f64 / total_ops as f64,
        warmup_ms,
        warmup_ops,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_fill_the_minimum_and_count_allocations() {
        let s = Sampling { warmup_ms: 5, rounds: 4, min_round_ms: 2, task_timeout_s: 0 };
        let sample = measure(&s, || vec![0u8; 1000]);
        assert_eq!(sample.round_ns_per_op.len(), 4);
        assert!(sample.round_ns_per_op.iter().all(|&ns| ns > 0.0));
        let round_ms = sample.round_ns_per_op[0] * sample.ops_per_round as f64 / 1e6;
        assert!(round_ms >= 1.0, "a round must last about min_round_ms, got {round_ms} ms");
        assert!(sample.alloc_bytes_per_op >= 1000.0, "{}", sample.alloc_bytes_per_op);
        assert!(sample.warmup_ms >= 5.0);
    }
}
