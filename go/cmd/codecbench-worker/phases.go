package main

// Where a task's time goes (proto/README.md "Where the time goes"): ms by phase, a stopwatch of
// laps; each lap adds the time since the previous one to a named phase.

import (
	"time"

	"codecbench/go/internal/measure"
)

type laps struct {
	last time.Time
	ms   map[string]float64
}

func startLaps() *laps { return &laps{last: time.Now(), ms: map[string]float64{}} }

func (l *laps) lap(phase string) {
	now := time.Now()
	l.ms[phase] += float64(now.Sub(l.last).Nanoseconds()) / 1e6
	l.last = now
}

// measured ends a lap that took `s`: its warm-up and rounds, and the rest to `other`.
func (l *laps) measured(s measure.Sample) {
	now := time.Now()
	lap := float64(now.Sub(l.last).Nanoseconds()) / 1e6
	l.last = now
	l.ms["warmup"] += s.WarmupMs
	l.ms["rounds"] += s.RoundsMs
	l.ms["other"] += max(lap-s.WarmupMs-s.RoundsMs, 0)
}

func (l *laps) merge(other map[string]float64) {
	for k, v := range other {
		l.ms[k] += v
	}
}
