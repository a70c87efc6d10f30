// Command codecbench-go-worker is codecbench's Go worker: it attaches to control, announces its
// codecs, datasets and environment, and runs each task it is given as one trial in a fresh process
// of its own binary (`codecbench-go-worker trial`), by the worker protocol of proto/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"connectrpc.com/connect"

	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/internal/codecs"
	"codecbench/go/internal/datasets"
)

type args struct {
	control, name, tokenFile string
	reconnectTimeout         time.Duration
	userDatasets             []string
	users                    []*pb.DatasetInfo
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "trial" {
		os.Exit(trialMain())
	}
	// `vectors DIR`: this worker's payloads of the golden records (codecs/README.md).
	if len(os.Args) == 3 && os.Args[1] == "vectors" {
		n, err := codecs.WriteVectors(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "codecbench-go-worker: vectors:", err)
			os.Exit(1)
		}
		fmt.Printf("wrote %d files to %s\n", n, os.Args[2])
		return
	}
	a := args{}
	flag.StringVar(&a.control, "control", orDefault(os.Getenv("CODECBENCH_CONTROL"), "http://127.0.0.1:7600"), "control's address")
	flag.StringVar(&a.name, "name", "go", "name announced to control (it makes the id unique: go-1, go-2...)")
	flag.StringVar(&a.tokenFile, "token-file", os.Getenv("CODECBENCH_TOKEN_FILE"), "a file holding control's token (else CODECBENCH_TOKEN)")
	timeout := flag.Int("reconnect-timeout-s", 3600, "give up when control cannot be reached for this long")
	flag.Func("user-dataset", "a user's dataset manifest (dataset.json), repeatable: its models are built from the descriptor set, and its trial processes load it too", func(s string) error {
		a.userDatasets = append(a.userDatasets, s)
		return nil
	})
	flag.Parse()
	a.reconnectTimeout = time.Duration(*timeout) * time.Second
	log.SetPrefix("codecbench-go-worker: ")
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	users, err := userDatasetInfos(a.userDatasets)
	if err != nil {
		fmt.Fprintln(os.Stderr, "codecbench-go-worker:", err)
		os.Exit(2)
	}
	a.users, userManifests = users, a.userDatasets
	if err := run(a); err != nil {
		fmt.Fprintln(os.Stderr, "codecbench-go-worker:", err)
		os.Exit(1)
	}
}

func codecInfos() []*pb.CodecInfo {
	var out []*pb.CodecInfo
	for _, c := range codecs.Registry() {
		i := c.Info()
		ci := &pb.CodecInfo{Id: i.ID, MediaType: i.MediaType, DecodeModes: i.Modes, Library: i.Library, LibraryVersion: i.LibraryVersion, Notes: i.Notes}
		for _, r := range i.Regions {
			ci.TimedRegions = append(ci.TimedRegions, &pb.TimedRegion{Operation: r.Operation, Contains: r.Contains, Note: r.Note})
		}
		out = append(out, ci)
	}
	return out
}

func datasetInfos() []*pb.DatasetInfo {
	var out []*pb.DatasetInfo
	for _, d := range datasets.All() {
		out = append(out, datasetInfo(d))
	}
	return out
}

func datasetInfo(d *datasets.Dataset) *pb.DatasetInfo {
	info := &pb.DatasetInfo{Id: d.ID, Message: string(d.Record.FullName()), Fingerprint: d.Fingerprint, FieldNames: d.FieldNames}
	for _, c := range codecs.Registry() {
		if why := codecs.Refusal(c, d); why != "" {
			info.Refused = append(info.Refused, &pb.Refusal{Dataset: d.ID, Codec: c.Info().ID, Reason: why})
		}
	}
	return info
}

// userDatasetInfos loads each user dataset (its models built from the descriptor set) and announces
// it like a built-in: the fingerprint of its own descriptors and each codec's refusal, if any.
func userDatasetInfos(manifests []string) ([]*pb.DatasetInfo, error) {
	var out []*pb.DatasetInfo
	for _, path := range manifests {
		d, err := codecs.LoadUserDataset(path)
		if err != nil {
			return nil, err
		}
		out = append(out, datasetInfo(d))
	}
	return out, nil
}

const (
	retryFirst     = 300 * time.Millisecond
	retryMax       = 10 * time.Second
	reportAttempts = 6
)

func run(a args) error {
	token, err := LoadToken(a.tokenFile)
	if err != nil {
		return err
	}
	program, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this worker's own binary (trials run in it): %w", err)
	}
	env := environment()
	lastSeen := time.Now()
	pause := retryFirst
	for {
		before := lastSeen
		err := attachOnce(a, token, env, program, &lastSeen)
		switch {
		case err == nil:
			log.Print("control closed the stream; reattaching")
		case connect.CodeOf(err) == connect.CodeUnauthenticated:
			return fmt.Errorf("control at %s refused this worker: %w", a.control, err)
		default:
			if time.Since(lastSeen) > a.reconnectTimeout {
				return fmt.Errorf("cannot reach control at %s for %s: %w", a.control, a.reconnectTimeout, err)
			}
			log.Printf("control unreachable (%v); retrying in %s", err, pause)
		}
		if lastSeen.After(before) {
			pause = retryFirst
		} else {
			pause = min(pause*2, retryMax)
		}
		time.Sleep(pause)
	}
}

// attachOnce runs tasks until the attach stream ends. The stream is read while a task runs, so
// control can abandon it (its trial process is killed and nothing is reported).
func attachOnce(a args, token string, env *pb.Environment, program string, lastSeen *time.Time) error {
	client := NewClient(a.control, token)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.Attach(ctx, &pb.AttachRequest{Name: a.name, Environment: env, Codecs: codecInfos(), Compressions: compressions, Datasets: append(datasetInfos(), a.users...)})
	if err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	defer stream.Close()
	msgs := make(chan *pb.AttachResponse)
	streamErr := make(chan error, 1)
	go func() {
		defer close(msgs)
		for stream.Receive() {
			select {
			case msgs <- stream.Msg():
			case <-ctx.Done(): // this attachment is over: nobody reads any more
				streamErr <- ctx.Err()
				return
			}
		}
		streamErr <- stream.Err()
	}()
	r := &runner{client: client, env: env, program: program}
	var workerID, secret string
	type running struct {
		id     string
		cancel context.CancelFunc
		done   chan *pb.ReportResultRequest
	}
	var cur *running
	for {
		var done chan *pb.ReportResultRequest
		if cur != nil {
			done = cur.done
		}
		select {
		case msg, ok := <-msgs:
			// connect-go reports a refused connection on the stream's first read: only an
			// attachment that happened counts as control being reachable.
			if ok || workerID != "" {
				*lastSeen = time.Now()
			}
			if !ok {
				err := <-streamErr
				if cur != nil {
					cur.cancel()
					<-cur.done
					return fmt.Errorf("lost control's stream while running task %s: %v", cur.id, err)
				}
				if err != nil {
					return fmt.Errorf("attach stream: %w", err)
				}
				return nil
			}
			switch m := msg.GetMessage().(type) {
			case *pb.AttachResponse_Attached:
				workerID, secret = m.Attached.GetId(), msg.GetReportSecret()
				client.SetSecret(secret)
				log.Printf("attached to %s as %s", a.control, workerID)
			case *pb.AttachResponse_Task:
				t := m.Task
				if cur != nil {
					log.Printf("task %s: ignored while task %s runs", t.GetId(), cur.id)
					continue
				}
				log.Printf("task %s: %s %s %s %s x%d", t.GetId(), t.GetOperation(), t.GetDataset(), t.GetCodec(), t.GetDecodeMode(), t.GetRecordCount())
				tctx, tcancel := context.WithCancel(ctx)
				cur = &running{id: t.GetId(), cancel: tcancel, done: make(chan *pb.ReportResultRequest, 1)}
				go func(done chan *pb.ReportResultRequest) { done <- r.run(tctx, workerID, t) }(cur.done)
			case *pb.AttachResponse_Abandon:
				if cur != nil && cur.id == m.Abandon.GetTaskId() {
					log.Printf("task %s: abandoned: %s", cur.id, m.Abandon.GetReason())
					cur.cancel()
					<-cur.done // its trial process is killed; nothing is reported
					cur = nil
				} else {
					log.Printf("task %s: control abandoned a task this worker is not running", m.Abandon.GetTaskId())
				}
			}
		case rep := <-done:
			cur.cancel()
			cur = nil
			rep.ReportSecret = secret
			if rep.GetFailure() != "" {
				log.Printf("task %s: failed: %s", rep.GetTaskId(), rep.GetFailure())
			}
			if err := report(ctx, client, rep); err != nil {
				log.Printf("task %s: report refused: %v", rep.GetTaskId(), err)
			}
			*lastSeen = time.Now()
		}
	}
}

// report retries while control is unavailable; any other refusal is control's decision.
func report(ctx context.Context, c *Client, rep *pb.ReportResultRequest) error {
	pause := 500 * time.Millisecond
	var err error
	for i := 0; i < reportAttempts; i++ {
		if err = c.Report(ctx, rep); err == nil || connect.CodeOf(err) != connect.CodeUnavailable {
			return err
		}
		log.Printf("task %s: report not stored (%v); retrying in %s", rep.GetTaskId(), err, pause)
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		}
		pause = min(pause*2, retryMax)
	}
	return err
}
