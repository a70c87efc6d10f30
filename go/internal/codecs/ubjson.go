package codecs

import (
	"fmt"
	"reflect"

	"codecbench/go/internal/datasets"
	"codecbench/go/internal/ubjson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// UBJSON is go/internal/ubjson (Draft 12, the worker's own: no Go library is served) by reflection
// on the models, as encoding/json: fields by the proto JSON names, enums by name, bytes as
// `[$U#n`, a bare-list record as a plain array.
type UBJSON struct{}

func (UBJSON) Info() Info {
	return described("ubjson")
}

// Refusal: UBJSON's largest integer is int64 (proto/README.md "Payloads").
func (UBJSON) Refusal(d *datasets.Dataset) string {
	if f := datasets.FirstField(d.Record, func(f protoreflect.FieldDescriptor) bool {
		return f.Kind() == protoreflect.Uint64Kind || f.Kind() == protoreflect.Fixed64Kind
	}); f != nil {
		return fmt.Sprintf("ubjson: uint64 field %s is not offered", f.FullName())
	}
	return ""
}

// ubjsonOptions: a bare_list dataset's record type is written as a plain array.
func ubjsonOptions(r *Records) ubjson.Options {
	if !r.Dataset.BareList {
		return ubjson.Options{}
	}
	return ubjson.Options{Bare: reflect.TypeOf(r.Model).Elem().Field(0).Type.Elem()}
}

func (UBJSON) Encode(r *Records) ([]byte, error) { return ubjsonOptions(r).Marshal(r.Model) }

func (UBJSON) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		return m, ubjsonOptions(r).Unmarshal(payload, m)
	case Tree:
		return ubjson.Tree(payload)
	}
	return nil, fmt.Errorf("ubjson offers no decode mode %q", mode)
}

func (UBJSON) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		return verifyTree(r, decoded, ubjson.Options{}.Marshal, ubjsonOptions(r).Unmarshal)
	}
	return verifyModels(r, decoded)
}
