package main

// The worker's client for control: connect-go speaking gRPC (connect.WithGRPC) over unencrypted
// HTTP/2 (Go's http.Protocols), to control's tonic server. Every call carries the token, when
// control requires one, as `authorization: Bearer TOKEN`; once attached, every blob call carries
// the attachment's report secret as `codecbench-report-secret` (proto/README.md step 1).

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"connectrpc.com/connect"

	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/gen/codecbench/v1/codecbenchv1connect"
)

const secretHeader = "codecbench-report-secret"

// compressions this worker times transfer legs with besides identity: connect-go's gzip.
var compressions = []string{"gzip"}

// Client is one attachment's client: the plain one and one per compressed leg share the token and
// the secret.
type Client struct {
	plain, gzip codecbenchv1connect.WorkerServiceClient
	token       string
	mu          sync.Mutex
	secret      string
}

func newHTTPClient() *http.Client {
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &protocols}}
}

// NewClient: calls advertise no compression (control answers them uncompressed), except the
// gzip client's, which sends and accepts gzip.
func NewClient(addr, token string) *Client {
	h := newHTTPClient()
	addr = strings.TrimRight(addr, "/")
	plain := codecbenchv1connect.NewWorkerServiceClient(h, addr, connect.WithGRPC(), connect.WithAcceptCompression("gzip", nil, nil))
	gz := codecbenchv1connect.NewWorkerServiceClient(h, addr, connect.WithGRPC(), connect.WithSendGzip())
	return &Client{plain: plain, gzip: gz, token: token}
}

// LoadToken reads the token from `file` if given, else CODECBENCH_TOKEN; "" when neither is set.
func LoadToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("CODECBENCH_TOKEN")), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading the token file %s: %w", file, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (c *Client) SetSecret(s string) {
	c.mu.Lock()
	c.secret = s
	c.mu.Unlock()
}

// headers adds the token and, on blob calls, the secret.
func (c *Client) headers(h http.Header, blob bool) {
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	if blob {
		c.mu.Lock()
		if c.secret != "" {
			h.Set(secretHeader, c.secret)
		}
		c.mu.Unlock()
	}
}

// leg is the client for a transfer leg's compression.
func (c *Client) leg(compression string) (codecbenchv1connect.WorkerServiceClient, error) {
	switch compression {
	case "", "identity":
		return c.plain, nil
	case "gzip":
		return c.gzip, nil
	}
	return nil, fmt.Errorf("the Go worker offers no compression %q (it offers identity, %s)", compression, strings.Join(compressions, ", "))
}

func (c *Client) Attach(ctx context.Context, req *pb.AttachRequest) (*connect.ServerStreamForClient[pb.AttachResponse], error) {
	r := connect.NewRequest(req)
	c.headers(r.Header(), false)
	return c.plain.Attach(ctx, r)
}

func (c *Client) Report(ctx context.Context, req *pb.ReportResultRequest) error {
	r := connect.NewRequest(req)
	c.headers(r.Header(), false)
	_, err := c.plain.ReportResult(ctx, r)
	return err
}

// GetBlob fetches a whole blob (chunks of at most 1 MiB, appended until total_size arrived).
func (c *Client) GetBlob(ctx context.Context, compression, id string) ([]byte, error) {
	svc, err := c.leg(compression)
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		before := uint64(len(out))
		r := connect.NewRequest(&pb.GetBlobRequest{BlobId: id, Offset: before})
		c.headers(r.Header(), true)
		stream, err := svc.GetBlob(ctx, r)
		if err != nil {
			return nil, err
		}
		total := uint64(0)
		for stream.Receive() {
			m := stream.Msg()
			if m.GetOffset() != uint64(len(out)) {
				stream.Close()
				return nil, fmt.Errorf("blob %s: a chunk at offset %d, expected %d", id, m.GetOffset(), len(out))
			}
			total = m.GetTotalSize()
			if out == nil {
				out = make([]byte, 0, total)
			}
			out = append(out, m.GetData()...)
		}
		err = stream.Err()
		stream.Close()
		if err != nil {
			return nil, err
		}
		if uint64(len(out)) >= total {
			if uint64(len(out)) > total {
				return nil, fmt.Errorf("blob %s: %d bytes arrived, it has %d", id, len(out), total)
			}
			return out, nil
		}
		// The stream ended early: ask again from where it stopped, unless it brought nothing.
		if uint64(len(out)) == before {
			return nil, fmt.Errorf("blob %s: the stream ended at %d of %d bytes", id, len(out), total)
		}
	}
}

const chunk = 1 << 20

// PutBlob stores a blob with one UploadBlob stream and returns its id.
func (c *Client) PutBlob(ctx context.Context, compression string, data []byte) (string, error) {
	svc, err := c.leg(compression)
	if err != nil {
		return "", err
	}
	stream := svc.UploadBlob(ctx)
	c.headers(stream.RequestHeader(), true)
	for off := 0; ; off += chunk {
		end := min(off+chunk, len(data))
		last := end == len(data)
		if err := stream.Send(&pb.UploadBlobRequest{Offset: uint64(off), Data: data[off:end], Finish: last}); err != nil {
			break // the error comes with CloseAndReceive
		}
		if last {
			break
		}
	}
	resp, err := stream.CloseAndReceive()
	if err != nil {
		return "", err
	}
	if resp.Msg.GetSize() != uint64(len(data)) {
		return "", fmt.Errorf("control stored %d bytes of %d", resp.Msg.GetSize(), len(data))
	}
	return resp.Msg.GetBlobId(), nil
}
