package codecs

import (
	"fmt"

	"codecbench/go/internal/datasets"
	"go.mongodb.org/mongo-driver/v2/bson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// BSON is go.mongodb.org/mongo-driver/v2/bson on the generated models: one document
// {"records": [...]}, int32 as 0x10, int64 and uint32 as 0x12, float and double as 0x01, bytes as
// binary subtype 0x00, enums as their name (the models' MarshalBSONValue); byte-identical to every
// other language's (the catalogue marks bson deterministic).
type BSON struct{}

func (BSON) Info() Info {
	return Info{
		ID: "bson", MediaType: "application/bson", Library: "go.mongodb.org/mongo-driver/v2/bson",
		LibraryVersion: moduleVersion("go.mongodb.org/mongo-driver/v2"), Modes: []string{Typed, Tree},
		Regions: []Region{
			{Operation: "encode", Contains: []string{"serialize"}},
			{Operation: Typed, Contains: []string{"parse"}},
			{Operation: Tree, Contains: []string{"parse"}, Note: "Unmarshal into bson.D (ordered documents, arrays as bson.A)"},
		},
	}
}

// Refusal: BSON has no unsigned 64-bit integer (proto/README.md "Payloads").
func (BSON) Refusal(d *datasets.Dataset) string {
	if f := datasets.FirstField(d.Record, func(f protoreflect.FieldDescriptor) bool {
		return f.Kind() == protoreflect.Uint64Kind || f.Kind() == protoreflect.Fixed64Kind
	}); f != nil {
		return fmt.Sprintf("bson: uint64 field %s is not offered", f.FullName())
	}
	return ""
}

func (BSON) Encode(r *Records) ([]byte, error) { return bson.Marshal(r.Model) }

func (BSON) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		return m, bson.Unmarshal(payload, m)
	case Tree:
		var d bson.D
		return d, bson.Unmarshal(payload, &d)
	}
	return nil, fmt.Errorf("bson offers no decode mode %q", mode)
}

func (BSON) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		b, err := bson.Marshal(decoded)
		if err != nil {
			return fmt.Errorf("verification failed: the tree cannot be written back: %w", err)
		}
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return err
		}
		if err := bson.Unmarshal(b, m); err != nil {
			return fmt.Errorf("verification failed: the tree does not hold %s records: %w", r.Dataset.ID, err)
		}
		decoded = m
	}
	return verifyModels(r, decoded)
}
