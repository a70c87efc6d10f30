// Package measure times one operation by the trial protocol (proto/README.md "Timing: one
// trial"): calibrate a round to at least min_round_ms, warm up until a measured steady state (or
// the cap), then keep every round's ns per operation, counting the heap bytes the rounds allocate.
package measure

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	pb "codecbench/go/gen/codecbench/v1"
)

const (
	// MinWarmupRounds: warm-up rounds before a steady state can be declared.
	MinWarmupRounds = 10
	// Window: rounds in each of the two windows whose medians are compared, at least.
	Window = 5
	// WindowsMin: the two windows together last at least this long.
	WindowsMin = 300 * time.Millisecond
	// Tolerance: how close the two medians must be (relative to the earlier one).
	Tolerance = 0.05
	// DefaultMaxWarmupMs when a task carries none (control always sends one).
	DefaultMaxWarmupMs = 10_000
)

// Sample is one trial's timing.
type Sample struct {
	RoundNsPerOp    []float64
	OpsPerRound     uint64
	AllocBytesPerOp float64
	WarmupMs        float64
	WarmupRounds    uint64
	Steady          bool
	RoundsMs        float64
	// RunqueueMs: how long the timing thread waited for a CPU during the rounds; -1 when unknown.
	RunqueueMs float64
	// FirstError: the first error an operation returned (the sample is then worthless).
	FirstError error
}

// Decision of one warm-up step.
type Decision int

const (
	Continue Decision = iota
	Steady
	Capped
)

// Median of xs (xs is not changed).
func Median(xs []float64) float64 {
	v := append([]float64{}, xs...)
	sort.Float64s(v)
	n := len(v)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// WarmupDecision: steady once `min` has passed, at least 10 rounds ran and the median of the last
// window of rounds is within 5 % of the median of the window before, a window being at least 5
// rounds and the two together lasting at least 300 ms; capped at `max` whatever the rounds say.
func WarmupDecision(rounds []float64, ops uint64, elapsed, min, max time.Duration) Decision {
	n := len(rounds)
	if n >= MinWarmupRounds && elapsed >= min {
		lasting := func(w int) bool {
			sum := 0.0
			for _, r := range rounds[n-2*w:] {
				sum += r
			}
			return sum*float64(ops) >= float64(WindowsMin.Nanoseconds())
		}
		w := Window
		for 2*w <= n && !lasting(w) {
			w++
		}
		if 2*w <= n {
			last, before := Median(rounds[n-w:]), Median(rounds[n-2*w:n-w])
			if abs(last-before) <= Tolerance*before {
				return Steady
			}
		}
	}
	if elapsed >= max {
		return Capped
	}
	return Continue
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Sink keeps every result alive past the operation so the compiler cannot drop the work.
var Sink any

// Run measures op by the trial protocol. op's result goes to Sink; its first error is kept in
// Sample.FirstError.
func Run(s *pb.Sampling, op func() (any, error)) Sample {
	minWarmup := time.Duration(s.GetWarmupMs()) * time.Millisecond
	maxMs := s.GetMaxWarmupMs()
	if maxMs == 0 {
		maxMs = DefaultMaxWarmupMs
	}
	maxWarmup := max(time.Duration(maxMs)*time.Millisecond, minWarmup)
	minRound := time.Duration(max(s.GetMinRoundMs(), 1)) * time.Millisecond
	rounds := max(s.GetRounds(), 1)

	var firstErr error
	run := func(ops uint64) time.Duration {
		t := time.Now()
		for i := uint64(0); i < ops; i++ {
			out, err := op()
			Sink = out
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}
		return time.Since(t)
	}

	start := time.Now()
	// Calibrate: the smallest power-of-two count of operations that fills a round.
	ops := uint64(1)
	for {
		if run(ops) >= minRound || time.Since(start) >= maxWarmup || firstErr != nil {
			break
		}
		ops *= 2
	}
	var warmup []float64
	var warmupRounds uint64
	steady := false
	for firstErr == nil {
		took := run(ops)
		warmup = append(warmup, float64(took.Nanoseconds())/float64(ops))
		warmupRounds++
		// Calibration ran on cold code; once warm a round may no longer fill min_round_ms: double
		// the ops and judge the warm-up again from there.
		if took < minRound && time.Since(start) < maxWarmup && len(warmup) >= Window {
			ops *= 2
			warmup = warmup[:0]
			continue
		}
		d := WarmupDecision(warmup, ops, time.Since(start), minWarmup, maxWarmup)
		if d == Steady {
			steady = true
			break
		}
		if d == Capped {
			break
		}
	}
	warmupMs := ms(time.Since(start))
	sample := Sample{OpsPerRound: ops, WarmupMs: warmupMs, WarmupRounds: warmupRounds, Steady: steady, RunqueueMs: -1, RoundNsPerOp: make([]float64, 0, rounds)}
	if firstErr != nil {
		sample.FirstError = firstErr
		return sample
	}
	waited := runqueueWaitNs()
	roundsStart := time.Now()
	allocated := HeapAllocatedBytes()
	for i := uint32(0); i < rounds; i++ {
		took := run(ops)
		sample.RoundNsPerOp = append(sample.RoundNsPerOp, float64(took.Nanoseconds())/float64(ops))
	}
	allocated = HeapAllocatedBytes() - allocated
	sample.RoundsMs = ms(time.Since(roundsStart))
	if after := runqueueWaitNs(); waited >= 0 && after >= waited {
		sample.RunqueueMs = float64(after-waited) / 1e6
	}
	sample.AllocBytesPerOp = float64(allocated) / float64(ops*uint64(rounds))
	sample.FirstError = firstErr
	return sample
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// runqueueWaitNs: this thread's run-queue wait so far (/proc/thread-self/schedstat, second
// field), -1 where the kernel does not say. The trial runs on a locked OS thread.
func runqueueWaitNs() int64 {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return n
}
