package codecs

import (
	"fmt"

	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/proto"
)

// Protobuf is google.golang.org/protobuf on the protoc-gen-go structs of datasets.proto.
type Protobuf struct{}

func (Protobuf) Info() Info {
	return described("protobuf")
}

// Encode: proto.Marshal computes the sizes afresh on every call (no cached size is reused).
func (Protobuf) Encode(r *Records) ([]byte, error) { return proto.Marshal(r.Proto) }

func (Protobuf) Decode(r *Records, mode string, payload []byte) (any, error) {
	if mode != Typed {
		return nil, fmt.Errorf("protobuf offers no decode mode %q", mode)
	}
	m := r.Dataset.List.New().Interface()
	if err := proto.Unmarshal(payload, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (Protobuf) Verify(r *Records, mode string, decoded any) error {
	m, ok := decoded.(proto.Message)
	if !ok {
		return fmt.Errorf("verification failed: decoded %T, not a protobuf message", decoded)
	}
	if proto.Equal(r.Proto, m) {
		return nil
	}
	// Name the first difference through the models.
	got, err := NewModel(r.Dataset.ID)
	if err != nil {
		return err
	}
	if err := datasets.ToModel(m.ProtoReflect(), got); err != nil {
		return fmt.Errorf("verification failed: %w", err)
	}
	if err := verifyModels(r, got); err != nil {
		return err
	}
	return fmt.Errorf("verification failed: the decoded message differs from the canonical one (unknown fields?)")
}
