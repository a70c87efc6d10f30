//! Where a task's time goes (proto/README.md "Where the time goes"): ms by phase, carried in
//! `ReportResultRequest.phase_ms`. A stopwatch of laps: each lap adds the time since the previous
//! one to a named phase.
use crate::measure::Sample;
use std::collections::HashMap;
use std::time::Instant;

pub struct Laps {
    last: Instant,
    ms: HashMap<String, f64>,
}

impl Default for Laps {
    fn default() -> Self {
        Self::start()
    }
}

impl Laps {
    pub fn start() -> Self {
        Laps { last: Instant::now(), ms: HashMap::new() }
    }

    /// Adds the time since the last lap (or the start) to `phase`.
    pub fn lap(&mut self, phase: &str) {
        let now = Instant::now();
        self.add(phase, (now - self.last).as_secs_f64() * 1e3);
        self.last = now;
    }

    pub fn add(&mut self, phase: &str, ms: f64) {
        *self.ms.entry(phase.to_string()).or_default() += ms;
    }

    /// Ends a lap that measured `sample`: its warm-up and rounds go to `warmup` and `rounds`, the
    /// rest of the lap (the peak-heap probe, the sampler's own work) to `other`.
    pub fn measured(&mut self, sample: &Sample) {
        let now = Instant::now();
        let lap = (now - self.last).as_secs_f64() * 1e3;
        self.last = now;
        self.add("warmup", sample.warmup_ms);
        self.add("rounds", sample.rounds_ms);
        self.add("other", (lap - sample.warmup_ms - sample.rounds_ms).max(0.0));
    }

    /// Folds in phases measured elsewhere (a trial process's own).
    pub fn merge(&mut self, other: &HashMap<String, f64>) {
        for (k, v) in other {
            self.add(k, *v);
        }
    }

    pub fn into_map(self) -> HashMap<String, f64> {
        self.ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn laps_add_up_by_phase_and_a_sample_is_split() {
        let mut laps = Laps::start();
        std::thread::sleep(Duration::from_millis(20));
        laps.lap("load");
        std::thread::sleep(Duration::from_millis(30));
        let sample = Sample {
            round_ns_per_op: vec![], ops_per_round: 1, alloc_bytes_per_op: 0.0, warmup_ms: 10.0, warmup_rounds: 1,
            steady: true, rounds_ms: 15.0, rounds_runqueue_ms: None, peak_heap_bytes: None,
        };
        laps.measured(&sample);
        laps.merge(&HashMap::from([("load".to_string(), 1.0)]));
        let ms = laps.into_map();
        assert!(ms["load"] >= 21.0, "{ms:?}");
        assert_eq!((ms["warmup"], ms["rounds"]), (10.0, 15.0));
        assert!(ms["other"] >= 5.0 - 0.01, "the rest of the 30 ms lap: {ms:?}");
    }
}
