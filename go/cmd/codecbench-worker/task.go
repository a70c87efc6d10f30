package main

// Runs one task by the worker protocol (proto/README.md) in the attached process: fetch the
// blobs, hand the trial to a fresh `trial` process (verification and timing happen there), time
// the transfer legs here (they are this process's gRPC calls), store the payload, report every
// measurement or a precise failure. A prepare task goes through the child too (encode + verify,
// nothing timed), so this long-lived process never holds a codec's heap.

import (
	"context"
	"fmt"
	"time"

	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/internal/measure"
)

type runner struct {
	client      *Client
	env         *pb.Environment
	program     string
	canonicalID string
	canonical   []byte
	laps        *laps
}

// failed is a task failure with the measurements taken before it.
type failed struct {
	msg string
	ms  []*pb.Measurement
}

func (r *runner) run(ctx context.Context, workerID string, task *pb.Task) *pb.ReportResultRequest {
	started := time.Now()
	r.laps = startLaps()
	var report *pb.ReportResultRequest
	var f *failed
	if err := checkPrepare(task); err != nil {
		f = &failed{msg: err.Error()}
	} else {
		switch {
		case task.GetOperation() == pb.Operation_OPERATION_ENCODE && task.GetPrepare():
			report, f = r.prepare(ctx, task)
		case task.GetOperation() == pb.Operation_OPERATION_ENCODE:
			report, f = r.encode(ctx, task)
		case task.GetOperation() == pb.Operation_OPERATION_DECODE:
			report, f = r.decode(ctx, task)
		default:
			f = &failed{msg: fmt.Sprintf("unsupported operation %s", task.GetOperation())}
		}
	}
	if f != nil {
		report = &pb.ReportResultRequest{Failure: f.msg, Measurements: f.ms}
	}
	report.WorkerId, report.TaskId = workerID, task.GetId()
	r.laps.merge(report.PhaseMs)
	r.laps.ms["total"] = float64(time.Since(started).Nanoseconds()) / 1e6
	report.PhaseMs = r.laps.ms
	return report
}

func (r *runner) fetchCanonical(ctx context.Context, task *pb.Task) ([]byte, *failed) {
	if r.canonicalID == task.GetCanonicalBlobId() && r.canonical != nil {
		return r.canonical, nil
	}
	b, err := r.client.GetBlob(ctx, "", task.GetCanonicalBlobId())
	if err != nil {
		return nil, &failed{msg: fmt.Sprintf("fetching canonical records failed: %v", err)}
	}
	r.laps.lap("fetch")
	r.canonicalID, r.canonical = task.GetCanonicalBlobId(), b
	return b, nil
}

func (r *runner) trial(ctx context.Context, task *pb.Task, canonical, payload []byte, before []*pb.Measurement) (*pb.ReportResultRequest, []byte, *failed) {
	timeout := time.Duration(task.GetSampling().GetTaskTimeoutS()) * time.Second
	r.laps.lap("fetch")
	report, out, err := runInChild(ctx, r.program, task, canonical, payload, timeout)
	r.laps.lap("process")
	if err != nil {
		return nil, nil, &failed{msg: err.Error(), ms: before}
	}
	return report, out, nil
}

func (r *runner) prepare(ctx context.Context, task *pb.Task) (*pb.ReportResultRequest, *failed) {
	canonical, f := r.fetchCanonical(ctx, task)
	if f != nil {
		return nil, f
	}
	report, payload, f := r.trial(ctx, task, canonical, nil, nil)
	if f != nil || report.GetFailure() != "" {
		return report, f
	}
	if len(report.GetMeasurements()) != 0 || len(payload) == 0 {
		return nil, &failed{msg: fmt.Sprintf("the prepare process returned %d measurements and %d payload bytes (expected none and a payload)", len(report.GetMeasurements()), len(payload))}
	}
	id, err := r.client.PutBlob(ctx, "", payload)
	if err != nil {
		return nil, &failed{msg: fmt.Sprintf("storing the payload failed: %v", err)}
	}
	r.laps.lap("fetch")
	report.PayloadBlobId, report.PayloadBlobSize = id, uint64(len(payload))
	return report, nil
}

func (r *runner) encode(ctx context.Context, task *pb.Task) (*pb.ReportResultRequest, *failed) {
	canonical, f := r.fetchCanonical(ctx, task)
	if f != nil {
		return nil, f
	}
	report, payload, f := r.trial(ctx, task, canonical, nil, nil)
	if f != nil || report.GetFailure() != "" {
		return report, f
	}
	if (task.GetStorePayload() || task.GetMeasureTransfer()) && len(payload) == 0 {
		return nil, &failed{msg: "the trial process returned no payload to store or upload", ms: report.Measurements}
	}
	if task.GetStorePayload() {
		id, err := r.client.PutBlob(ctx, "", payload)
		if err != nil {
			return nil, &failed{msg: fmt.Sprintf("storing the payload failed: %v", err), ms: report.Measurements}
		}
		r.laps.lap("fetch")
		report.PayloadBlobId, report.PayloadBlobSize = id, uint64(len(payload))
	}
	if task.GetMeasureTransfer() {
		for _, c := range legs(task) {
			m, err := r.timeTransfer(task, pb.Operation_OPERATION_UPLOAD, c, payload, func() (any, error) { return r.client.PutBlob(ctx, c, payload) })
			if err != nil {
				return nil, &failed{msg: err.Error(), ms: report.Measurements}
			}
			r.laps.lap("transfer")
			report.Measurements = append(report.Measurements, m)
		}
	}
	return report, nil
}

func (r *runner) decode(ctx context.Context, task *pb.Task) (*pb.ReportResultRequest, *failed) {
	canonical, f := r.fetchCanonical(ctx, task)
	if f != nil {
		return nil, f
	}
	payload, err := r.client.GetBlob(ctx, "", task.GetPayloadBlobId())
	if err != nil {
		return nil, &failed{msg: fmt.Sprintf("fetching payload failed: %v", err)}
	}
	if task.GetPayloadBlobSize() != 0 && uint64(len(payload)) != task.GetPayloadBlobSize() {
		return nil, &failed{msg: fmt.Sprintf("fetching payload failed: got %d bytes, the task says %d", len(payload), task.GetPayloadBlobSize())}
	}
	r.laps.lap("fetch")
	var ms []*pb.Measurement
	if task.GetMeasureTransfer() {
		for _, c := range legs(task) {
			m, err := r.timeTransfer(task, pb.Operation_OPERATION_DOWNLOAD, c, payload, func() (any, error) { return r.client.GetBlob(ctx, c, task.GetPayloadBlobId()) })
			if err != nil {
				return nil, &failed{msg: err.Error(), ms: ms}
			}
			r.laps.lap("transfer")
			ms = append(ms, m)
		}
	}
	report, _, f := r.trial(ctx, task, canonical, payload, ms)
	if f != nil {
		return nil, f
	}
	report.Measurements = append(ms, report.Measurements...)
	return report, nil
}

// timeTransfer times one transfer leg here by the same warm-up, steady state and rounds as every
// operation (one op = the whole payload through one gRPC call sequence in `compression`); then,
// for the identity leg, the raw-TCP baseline (extras["raw_tcp_ns_per_op"], its rounds' median).
func (r *runner) timeTransfer(task *pb.Task, op pb.Operation, compression string, payload []byte, call func() (any, error)) (*pb.Measurement, error) {
	size := len(payload)
	leg := "download"
	if op == pb.Operation_OPERATION_UPLOAD {
		leg = "upload"
	}
	if _, err := r.client.leg(compression); err != nil {
		return nil, fmt.Errorf("%s timing failed: %v", leg, err)
	}
	s := measure.Run(task.GetSampling(), call)
	if s.FirstError != nil {
		return nil, fmt.Errorf("%s (%s) timing failed: %v", leg, orDefault(compression, "identity"), s.FirstError)
	}
	m := measurement(op, size, s, r.env)
	if compression != "identity" && compression != "" {
		m.Compression = compression
		return m, nil
	}
	// The identity leg's baseline: the same bytes over a plain loopback TCP connection.
	raw, err := connectRawTCP(payload, op)
	if err != nil {
		return nil, fmt.Errorf("%s timing failed: raw TCP copy: %v", leg, err)
	}
	base := measure.Run(task.GetSampling(), raw.copy)
	raw.close()
	if base.FirstError != nil {
		return nil, fmt.Errorf("%s timing failed: raw TCP copy: %v", leg, base.FirstError)
	}
	m.Extras["raw_tcp_ns_per_op"] = measure.Median(base.RoundNsPerOp)
	return m, nil
}

// legs: the compressions a task's transfer leg is timed with, in order: the task's, else identity.
func legs(task *pb.Task) []string {
	if len(task.GetCompressions()) == 0 {
		return []string{"identity"}
	}
	return task.GetCompressions()
}
