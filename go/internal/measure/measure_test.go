package measure

import (
	"errors"
	"testing"
	"time"

	pb "codecbench/go/gen/codecbench/v1"
)

const ms1 = time.Millisecond

func TestAFlatSeriesSettlesOnceTheMinimumTimeAndRoundsAreReached(t *testing.T) {
	flat := []float64{100, 101, 99, 100, 102, 100, 98, 100, 101, 100}
	const ops = 400_000 // 40 ms rounds
	if d := WarmupDecision(flat, ops, 300*ms1, 200*ms1, 10_000*ms1); d != Steady {
		t.Fatal(d)
	}
	if d := WarmupDecision(flat, ops, 100*ms1, 200*ms1, 10_000*ms1); d != Continue {
		t.Fatal("before the minimum time", d)
	}
	if d := WarmupDecision(flat[:9], ops, 300*ms1, 200*ms1, 10_000*ms1); d != Continue {
		t.Fatal("before 10 rounds", d)
	}
	if d := WarmupDecision(flat, ops/10, 300*ms1, 200*ms1, 10_000*ms1); d != Continue {
		t.Fatal("windows shorter than 300 ms", d)
	}
}

func TestAFallingSeriesDoesNotSettleAndTheCapEndsIt(t *testing.T) {
	var falling []float64
	v := 1000.0
	for i := 0; i < 20; i++ {
		falling = append(falling, v)
		v *= 0.97
	}
	if d := WarmupDecision(falling, 400_000, 500*ms1, 200*ms1, 10_000*ms1); d != Continue {
		t.Fatal(d)
	}
	if d := WarmupDecision(falling, 400_000, 10_000*ms1, 200*ms1, 10_000*ms1); d != Capped {
		t.Fatal(d)
	}
}

var keep []byte

func TestRoundsFillTheMinimumAndAllocationsAreCounted(t *testing.T) {
	s := Run(&pb.Sampling{WarmupMs: 5, MaxWarmupMs: 2000, Rounds: 4, MinRoundMs: 2}, func() (any, error) {
		keep = make([]byte, 1000)
		return nil, nil
	})
	if len(s.RoundNsPerOp) != 4 || s.FirstError != nil {
		t.Fatalf("%+v", s)
	}
	if med := Median(s.RoundNsPerOp) * float64(s.OpsPerRound) / 1e6; med < 2*0.9 {
		t.Errorf("a round lasts %v ms, not min_round_ms", med)
	}
	// 1000 bytes round up to Go's 1024-byte size class.
	if s.AllocBytesPerOp < 1000 || s.AllocBytesPerOp > 1100 {
		t.Errorf("alloc %v bytes per op", s.AllocBytesPerOp)
	}
	if s.WarmupRounds < MinWarmupRounds || s.WarmupMs < 5 {
		t.Errorf("%+v", s)
	}
}

func TestAnOperationsErrorStopsTheSample(t *testing.T) {
	s := Run(&pb.Sampling{WarmupMs: 5, MaxWarmupMs: 200, Rounds: 2, MinRoundMs: 1}, func() (any, error) { return nil, errors.New("boom") })
	if s.FirstError == nil || len(s.RoundNsPerOp) != 0 {
		t.Fatalf("%+v", s)
	}
}
