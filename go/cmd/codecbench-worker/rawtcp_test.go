package main

import (
	"testing"

	pb "codecbench/go/gen/codecbench/v1"
)

func TestRawTCPMovesEveryByteBothWays(t *testing.T) {
	payload := make([]byte, 3_000_000)
	for i := range payload {
		payload[i] = byte(i)
	}
	for _, dir := range []pb.Operation{pb.Operation_OPERATION_UPLOAD, pb.Operation_OPERATION_DOWNLOAD} {
		r, err := connectRawTCP(payload, dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			out, err := r.copy()
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			if b, ok := out.([]byte); ok && (len(b) != len(payload) || b[len(b)-1] != payload[len(payload)-1]) {
				t.Fatalf("%s: %d bytes", dir, len(b))
			}
		}
		r.close()
	}
}
