package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "codecbench/go/gen/codecbench/v1"
	"golang.org/x/sys/unix"
)

// The test binary doubles as the worker's binary: `<test binary> trial` runs a trial child.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "trial" {
		os.Exit(trialMain())
	}
	os.Exit(m.Run())
}

func canonical(t *testing.T, dataset string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "codecs", "vectors", dataset+".pb"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var quick = &pb.Sampling{WarmupMs: 5, MaxWarmupMs: 300, Rounds: 3, MinRoundMs: 1, TaskTimeoutS: 60}

func child(t *testing.T, task *pb.Task, canonical, payload []byte) (*pb.ReportResultRequest, []byte) {
	t.Helper()
	report, out, err := runInChild(context.Background(), os.Args[0], task, canonical, payload, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return report, out
}

// firstCPU is the first CPU this process may run on (a lane of one).
func firstCPU(t *testing.T) uint32 {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			return uint32(i)
		}
	}
	t.Fatal("no CPU allowed")
	return 0
}

func TestEncodeAndDecodeTrialsRunVerifiedInAFreshPinnedProcess(t *testing.T) {
	cpu := firstCPU(t)
	for _, codec := range []string{"json", "bson", "protobuf", "msgpack", "cbor"} {
		can := canonical(t, "media")
		enc := &pb.Task{Id: "e", Operation: pb.Operation_OPERATION_ENCODE, Dataset: "media", Codec: codec, RecordCount: 3, Sampling: quick, StorePayload: true, Cpus: []uint32{cpu}}
		rep, payload := child(t, enc, can, nil)
		if rep.GetFailure() != "" || len(rep.GetMeasurements()) != 1 || len(payload) == 0 {
			t.Fatalf("%s encode: %v", codec, rep)
		}
		if rep.GetTrialCpus() != fmt.Sprint(cpu) {
			t.Errorf("%s: the trial process ran on CPUs %q, its lane is %d", codec, rep.GetTrialCpus(), cpu)
		}
		for _, phase := range []string{"load", "verify", "warmup", "rounds", "other"} {
			if _, ok := rep.GetPhaseMs()[phase]; !ok {
				t.Errorf("%s encode: no phase %s in %v", codec, phase, rep.GetPhaseMs())
			}
		}
		dec := &pb.Task{Id: "d", Operation: pb.Operation_OPERATION_DECODE, Dataset: "media", Codec: codec, DecodeMode: "typed", RecordCount: 3, Sampling: quick, Cpus: []uint32{cpu}}
		rep, _ = child(t, dec, can, payload)
		if rep.GetFailure() != "" || len(rep.GetMeasurements()) != 1 {
			t.Fatalf("%s decode: %v", codec, rep)
		}
		m := rep.GetMeasurements()[0]
		if !m.GetVerified() || m.GetLanguage() != "go" || len(m.GetRoundNsPerOp()) != 3 || m.GetAllocBytesPerOp() <= 0 || m.GetPayloadBytes() != uint64(len(payload)) {
			t.Errorf("%s decode: %v", codec, m)
		}
		if m.GetEnvironment().GetDetails()["GOMAXPROCS"] != "1" {
			t.Errorf("%s: a trial pinned to one CPU reports GOMAXPROCS %s", codec, m.GetEnvironment().GetDetails()["GOMAXPROCS"])
		}
	}
}

// A user dataset's trials: the worker hands its manifests to each trial process, which loads them
// (MediaContent: enums, optional fields, nested messages).
func TestUserDatasetTrialsLoadTheManifestsInTheChild(t *testing.T) {
	manifest := userManifest(t, "my-media", "codecbench.v1.MediaContent")
	if _, err := userDatasetInfos([]string{manifest}); err != nil {
		t.Fatal(err)
	}
	userManifests = []string{manifest}
	defer func() { userManifests = nil }()
	can := canonical(t, "media") // the same records: the user's list message has the same shape
	for _, codec := range []string{"json", "protobuf"} {
		enc := &pb.Task{Operation: pb.Operation_OPERATION_ENCODE, Dataset: "my-media", Codec: codec, RecordCount: 3, Sampling: quick, StorePayload: true}
		rep, payload := child(t, enc, can, nil)
		if rep.GetFailure() != "" || len(payload) == 0 {
			t.Fatalf("%s encode: %v", codec, rep)
		}
		dec := &pb.Task{Operation: pb.Operation_OPERATION_DECODE, Dataset: "my-media", Codec: codec, DecodeMode: "typed", RecordCount: 3, Sampling: quick}
		if rep, _ = child(t, dec, can, payload); rep.GetFailure() != "" || !rep.GetMeasurements()[0].GetVerified() {
			t.Errorf("%s decode: %v", codec, rep)
		}
	}
}

func TestFailuresAreReportsNamingTheStep(t *testing.T) {
	can := canonical(t, "dummy")
	dec := &pb.Task{Operation: pb.Operation_OPERATION_DECODE, Dataset: "dummy", Codec: "json", DecodeMode: "typed", RecordCount: 3, Sampling: quick}
	rep, _ := child(t, dec, can, []byte(`{"records":[{"_id":`))
	if !strings.HasPrefix(rep.GetFailure(), "decode failed: ") {
		t.Errorf("corrupt payload: %q", rep.GetFailure())
	}
	rep, _ = child(t, dec, can, []byte(`{"records":[]}`))
	if !strings.HasPrefix(rep.GetFailure(), "verification failed: records: expected 3 items but decoded 0") {
		t.Errorf("no records: %q", rep.GetFailure())
	}
	dec.RecordCount = 4
	if rep, _ = child(t, dec, can, nil); rep.GetFailure() != "canonical blob has 3 records, task says 4" {
		t.Errorf("count: %q", rep.GetFailure())
	}
	dec.RecordCount, dec.DecodeMode = 3, "lazy"
	if rep, _ = child(t, dec, can, nil); !strings.HasPrefix(rep.GetFailure(), `codec json offers no decode mode "lazy"`) {
		t.Errorf("mode: %q", rep.GetFailure())
	}
	dec.Codec = "capnproto"
	if rep, _ = child(t, dec, can, nil); rep.GetFailure() != `this worker has no codec "capnproto"` {
		t.Errorf("codec: %q", rep.GetFailure())
	}
	prep := &pb.Task{Operation: pb.Operation_OPERATION_DECODE, Prepare: true}
	if rep, _ = child(t, prep, can, nil); !strings.HasPrefix(rep.GetFailure(), "a prepare task must be an encode task") {
		t.Errorf("prepare: %q", rep.GetFailure())
	}
}

func TestFramesAreCheckedAndAChildOverItsTimeIsKilled(t *testing.T) {
	if _, err := readFrames([]byte{5, 0, 0, 0, 0, 0, 0, 0, 1}, 1); err == nil || !strings.Contains(err.Error(), "announces 5 bytes, only 1 follow") {
		t.Error(err)
	}
	if _, err := readFrames([]byte{0, 0, 0, 0, 0, 0, 0, 0, 9}, 1); err == nil || err.Error() != "1 bytes after the 1 parts" {
		t.Error(err)
	}
	slow := &pb.Task{Operation: pb.Operation_OPERATION_DECODE, Dataset: "dummy", Codec: "json", DecodeMode: "typed", RecordCount: 3, Sampling: &pb.Sampling{WarmupMs: 60_000, MaxWarmupMs: 60_000, Rounds: 3, MinRoundMs: 1}}
	can := canonical(t, "dummy")
	_, out := child(t, &pb.Task{Operation: pb.Operation_OPERATION_ENCODE, Dataset: "dummy", Codec: "json", RecordCount: 3, Sampling: quick, StorePayload: true}, can, nil)
	start := time.Now()
	_, _, err := runInChild(context.Background(), os.Args[0], slow, can, out, 500*time.Millisecond)
	if err == nil || !strings.HasPrefix(err.Error(), "the trial process did not finish within 0.5 s and was killed") || time.Since(start) > 10*time.Second {
		t.Errorf("%v after %s", err, time.Since(start))
	}
}
