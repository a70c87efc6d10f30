package main

// One trial in a fresh process (proto/README.md, worker protocol step 3). The attached worker runs
// its own binary as `codecbench-go-worker trial`, writes the task, the canonical bytes and the
// payload to its stdin, and reads back a ReportResultRequest (measurements or a failure) and, for
// encode tasks that need it, the payload. The child verifies and times, then exits, so no trial
// inherits another's heap, GC pacing or caches.
//
// Framing, both ways (the Rust worker's): each part is a little-endian u64 length and its bytes.
// stdin: Task (protobuf), canonical blob, payload (empty for encode). stdout: ReportResultRequest
// (protobuf), payload (the encoded bytes when the task stores or uploads them, else empty).

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/internal/codecs"
	"codecbench/go/internal/datasets"
	"codecbench/go/internal/measure"
	"google.golang.org/protobuf/proto"
)

func writeFrames(w io.Writer, parts ...[]byte) error {
	for _, p := range parts {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		if _, err := w.Write(n[:]); err != nil {
			return err
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// readFrames splits data into exactly n length-prefixed parts; anything else is an error saying what.
func readFrames(data []byte, n int) ([][]byte, error) {
	parts := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		if len(data) < 8 {
			return nil, fmt.Errorf("part %d of %d: %d bytes where an 8-byte length was expected", i+1, n, len(data))
		}
		l := binary.LittleEndian.Uint64(data)
		data = data[8:]
		if l > uint64(len(data)) {
			return nil, fmt.Errorf("part %d of %d announces %d bytes, only %d follow", i+1, n, l, len(data))
		}
		parts = append(parts, data[:l])
		data = data[l:]
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%d bytes after the %d parts", len(data), n)
	}
	return parts, nil
}

// userManifests are the worker's --user-dataset manifests; each trial process loads them too
// (`trial MANIFEST...`).
var userManifests []string

// trialMain is `codecbench-go-worker trial [MANIFEST...]`: reads the trial from stdin, runs it, writes the
// outcome to stdout. A verification or codec failure is a report (exit 0); unreadable input is 2.
func trialMain() int {
	// The trial's timing runs on this one OS thread (its run-queue wait is read from it).
	runtime.LockOSThread()
	l := startLaps()
	for _, m := range os.Args[2:] {
		if _, err := codecs.LoadUserDataset(m); err != nil {
			fmt.Fprintln(os.Stderr, "trial: loading a user dataset:", err)
			return 2
		}
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trial: reading stdin:", err)
		return 2
	}
	parts, err := readFrames(input, 3)
	task := &pb.Task{}
	if err == nil {
		if perr := proto.Unmarshal(parts[0], task); perr != nil {
			err = fmt.Errorf("the task is not a protobuf Task: %w", perr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "trial: unreadable trial input:", err)
		return 2
	}
	report, payload := runTrial(task, parts[1], parts[2], environment(), l)
	l.lap("other")
	report.PhaseMs = l.ms
	report.TrialCpus = ownCpus()
	out, err := proto.Marshal(report)
	if err == nil {
		var buf bytes.Buffer
		_ = writeFrames(&buf, out, payload)
		_, err = os.Stdout.Write(buf.Bytes())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "trial: writing the result:", err)
		return 2
	}
	return 0
}

// checkPrepare: a prepare task is an encode task (the contract has no other kind).
func checkPrepare(t *pb.Task) error {
	if t.GetPrepare() && t.GetOperation() != pb.Operation_OPERATION_ENCODE {
		return fmt.Errorf("a prepare task must be an encode task, this one is %s", t.GetOperation())
	}
	return nil
}

// runTrial verifies and times one trial; it returns the report and the payload when an encode task
// must store or upload it. A panic in a codec becomes the task's failure.
func runTrial(task *pb.Task, canonical, payload []byte, env *pb.Environment, l *laps) (report *pb.ReportResultRequest, out []byte) {
	report = &pb.ReportResultRequest{TaskId: task.GetId()}
	defer func() {
		if p := recover(); p != nil {
			report.Measurements, report.Failure, out = nil, fmt.Sprintf("%s failed: the codec panicked: %v", strings.ToLower(strings.TrimPrefix(task.GetOperation().String(), "OPERATION_")), p), nil
		}
	}()
	var ms []*pb.Measurement
	var err error
	if err = checkPrepare(task); err == nil {
		switch task.GetOperation() {
		case pb.Operation_OPERATION_ENCODE:
			ms, out, err = encodeTrial(task, canonical, env, l)
		case pb.Operation_OPERATION_DECODE:
			var m *pb.Measurement
			if m, err = decodeTrial(task, canonical, payload, env, l); err == nil {
				ms = []*pb.Measurement{m}
			}
		default:
			err = fmt.Errorf("unsupported operation %s", task.GetOperation())
		}
	}
	if err != nil {
		report.Failure = err.Error()
		return report, nil
	}
	report.Measurements = ms
	return report, out
}

func setup(task *pb.Task, canonical []byte) (codecs.Codec, *codecs.Records, error) {
	c := codecs.Find(task.GetCodec())
	if c == nil {
		return nil, nil, fmt.Errorf("this worker has no codec %q", task.GetCodec())
	}
	// A refused cell is never planned; a task for one anyway fails here, before anything is timed.
	if d := datasets.Find(task.GetDataset()); d != nil {
		if why := codecs.Refusal(c, d); why != "" {
			return nil, nil, errors.New(why)
		}
	}
	r, err := codecs.Load(task.GetDataset(), canonical)
	if err != nil {
		return nil, nil, err
	}
	if r.Count != int(task.GetRecordCount()) {
		return nil, nil, fmt.Errorf("canonical blob has %d records, task says %d", r.Count, task.GetRecordCount())
	}
	return c, r, nil
}

func encodeTrial(task *pb.Task, canonical []byte, env *pb.Environment, l *laps) ([]*pb.Measurement, []byte, error) {
	c, r, err := setup(task, canonical)
	if err != nil {
		return nil, nil, err
	}
	l.lap("load")
	if task.GetDecodeMode() != "" {
		return nil, nil, fmt.Errorf("codec %s offers no %s encode in Go", c.Info().ID, task.GetDecodeMode())
	}
	payload, err := c.Encode(r)
	if err != nil {
		return nil, nil, fmt.Errorf("encode failed: %w", err)
	}
	back, err := c.Decode(r, codecs.Typed, payload)
	if err != nil {
		return nil, nil, fmt.Errorf("verification failed: own payload does not decode: %w", err)
	}
	if err := c.Verify(r, codecs.Typed, back); err != nil {
		return nil, nil, err
	}
	back = nil
	if task.GetPrepare() {
		l.lap("verify")
		return nil, payload, nil
	}
	runtime.GC() // the verification's garbage is not the rounds' to collect
	l.lap("verify")
	s := measure.Run(task.GetSampling(), func() (any, error) { return c.Encode(r) })
	l.measured(s)
	if s.FirstError != nil {
		return nil, nil, fmt.Errorf("encode failed while timing: %w", s.FirstError)
	}
	m := measurement(pb.Operation_OPERATION_ENCODE, len(payload), s, env)
	if task.GetStorePayload() || task.GetMeasureTransfer() {
		return []*pb.Measurement{m}, payload, nil
	}
	return []*pb.Measurement{m}, nil, nil
}

func decodeTrial(task *pb.Task, canonical, payload []byte, env *pb.Environment, l *laps) (*pb.Measurement, error) {
	c, r, err := setup(task, canonical)
	if err != nil {
		return nil, err
	}
	l.lap("load")
	mode := task.GetDecodeMode()
	if !codecs.HasMode(c, mode) {
		return nil, fmt.Errorf("codec %s offers no decode mode %q (it offers %s)", c.Info().ID, mode, strings.Join(c.Info().Modes, ", "))
	}
	// Untimed: the admission check (what the library would not survive, once per payload), the
	// decode in the task's mode and its comparison with the canonical records.
	if err := codecs.Check(c, r, mode, payload, task.GetLazyFields()); err != nil {
		return nil, err
	}
	runtime.GC()
	l.lap("verify")
	s := measure.Run(task.GetSampling(), codecs.Op(c, r, mode, payload, task.GetLazyFields()))
	l.measured(s)
	if s.FirstError != nil {
		return nil, fmt.Errorf("decode failed while timing: %w", s.FirstError)
	}
	return measurement(pb.Operation_OPERATION_DECODE, len(payload), s, env), nil
}

func measurement(op pb.Operation, payloadBytes int, s measure.Sample, env *pb.Environment) *pb.Measurement {
	alloc := s.AllocBytesPerOp
	extras := map[string]float64{"warmup_ms": s.WarmupMs, "warmup_rounds": float64(s.WarmupRounds), "rounds_ms": s.RoundsMs}
	if s.RunqueueMs >= 0 {
		extras["rounds_runqueue_ms"] = s.RunqueueMs
	}
	return &pb.Measurement{
		Operation: op, Language: "go", PayloadBytes: uint64(payloadBytes), RoundNsPerOp: s.RoundNsPerOp,
		OpsPerRound: s.OpsPerRound, AllocBytesPerOp: &alloc, Verified: true, Steady: s.Steady,
		Environment: env, Extras: extras,
	}
}

// runInChild runs one trial in a fresh `trial` process of this binary, pinned to the task's CPUs,
// killed when ctx ends (an abandoned task) or after `timeout` (0: none).
func runInChild(ctx context.Context, program string, task *pb.Task, canonical, payload []byte, timeout time.Duration) (*pb.ReportResultRequest, []byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	taskBytes, err := proto.Marshal(task)
	if err != nil {
		return nil, nil, err
	}
	var in bytes.Buffer
	_ = writeFrames(&in, taskBytes, canonical, payload)
	cmd := exec.CommandContext(ctx, program, append([]string{"trial"}, userManifests...)...)
	cmd.Stdin = &in
	var stdout bytes.Buffer
	stderr := &tail{max: 2000}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := startPinned(cmd, task.GetCpus()); err != nil {
		return nil, nil, fmt.Errorf("starting the trial process failed: %w", err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, nil, fmt.Errorf("the trial process did not finish within %.1f s and was killed", timeout.Seconds())
		}
		return nil, nil, fmt.Errorf("the trial process was stopped: %w", ctx.Err())
	}
	if err != nil {
		how := err.Error()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() >= 0 {
			how = fmt.Sprintf("exited with status %d", exit.ExitCode())
		}
		return nil, nil, fmt.Errorf("the trial process %s; its stderr ends: %s", how, stderr.String())
	}
	parts, err := readFrames(stdout.Bytes(), 2)
	if err != nil {
		return nil, nil, fmt.Errorf("the trial process wrote an unreadable result (%v)", err)
	}
	report := &pb.ReportResultRequest{}
	if err := proto.Unmarshal(parts[0], report); err != nil {
		return nil, nil, fmt.Errorf("the trial process wrote an unreadable result (not a ReportResultRequest: %v)", err)
	}
	return report, parts[1], nil
}

// tail keeps the last `max` bytes written (a child's stderr).
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return "(nothing on stderr)"
	}
	return s
}
