// Package usermodels builds the Go models of a user's dataset (docs/own-messages.md) from its
// descriptor set when the worker loads it. Go cannot compile a struct at run time, but reflect can
// declare one (reflect.StructOf) with the same fields and tags go/cmd/gen-models writes for a
// built-in: every schema-less codec here is a reflection-driven library, so it walks such a type
// exactly as it walks a generated one. Enums take a compiled-in slot type (enums.go).
package usermodels

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"codecbench/go/internal/datasets"
	"codecbench/go/internal/naming"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var (
	mu    sync.Mutex
	lists = map[string]reflect.Type{} // dataset id -> struct{ Records []Record }
	whys  = map[string]string{}       // dataset id -> why no models could be built
)

// Build derives the models of a user's dataset; the schema features they do not carry (maps,
// oneofs, well-known types, recursion) leave the dataset without models, and Refusal says why.
func Build(d *datasets.Dataset) {
	b := &builder{names: d.FieldNames, done: map[protoreflect.FullName]reflect.Type{}, open: map[protoreflect.FullName]bool{}}
	rec, err := b.message(d.Record)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		whys[d.ID] = err.Error()
		return
	}
	lists[d.ID] = reflect.StructOf([]reflect.StructField{{Name: "Records", Type: reflect.SliceOf(rec), Tag: tags("records", 1, false)}})
}

// Refusal is why the dataset has no models ("map field x.Y.z is not offered"), "" when it has.
func Refusal(id string) string {
	mu.Lock()
	defer mu.Unlock()
	return whys[id]
}

// New is an empty list of a user dataset's models (a pointer, as models.New gives), or false.
func New(id string) (any, bool) {
	mu.Lock()
	t, ok := lists[id]
	mu.Unlock()
	if !ok {
		return nil, false
	}
	return reflect.New(t).Interface(), true
}

type builder struct {
	names string // "json": json_name; "proto": the .proto name
	done  map[protoreflect.FullName]reflect.Type
	open  map[protoreflect.FullName]bool
}

// message is the struct type of a message: one field per proto field, in field order, tagged
// like go/cmd/gen-models' (the wire name for every codec, `pb` the number ToModel reads).
func (b *builder) message(m protoreflect.MessageDescriptor) (reflect.Type, error) {
	if t, ok := b.done[m.FullName()]; ok {
		return t, nil
	}
	if b.open[m.FullName()] {
		return nil, fmt.Errorf("recursive message %s is not offered (a Go struct built at run time cannot refer to itself)", m.FullName())
	}
	b.open[m.FullName()] = true
	fs := m.Fields()
	out := make([]reflect.StructField, 0, fs.Len())
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		t, err := b.field(f)
		if err != nil {
			return nil, err
		}
		optional := f.HasPresence() && f.Message() == nil
		switch {
		case f.Cardinality() == protoreflect.Repeated:
			t = reflect.SliceOf(t)
		case optional:
			t = reflect.PointerTo(t)
		}
		name := f.JSONName()
		if b.names == "proto" {
			name = string(f.Name())
		}
		// Field names are F<number>: unique and exported; the tags carry the wire names.
		out = append(out, reflect.StructField{Name: fmt.Sprintf("F%d", f.Number()), Type: t, Tag: tags(name, int(f.Number()), optional)})
	}
	t := reflect.StructOf(out)
	b.done[m.FullName()], b.open[m.FullName()] = t, false
	return t, nil
}

// field is a field's element type, or why the models do not carry it (gen-models' refusals).
func (b *builder) field(f protoreflect.FieldDescriptor) (reflect.Type, error) {
	switch {
	case f.IsMap():
		return nil, fmt.Errorf("map field %s is not offered", f.FullName())
	case f.ContainingOneof() != nil && !f.ContainingOneof().IsSynthetic():
		return nil, fmt.Errorf("oneof field %s is not offered", f.FullName())
	case f.Message() != nil && strings.HasPrefix(string(f.Message().FullName()), "google.protobuf."):
		return nil, fmt.Errorf("field %s of well-known type %s is not offered", f.FullName(), f.Message().FullName())
	case f.Kind() == protoreflect.GroupKind:
		return nil, fmt.Errorf("group field %s is not offered", f.FullName())
	}
	switch f.Kind() {
	case protoreflect.BoolKind:
		return reflect.TypeFor[bool](), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return reflect.TypeFor[int32](), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return reflect.TypeFor[int64](), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return reflect.TypeFor[uint32](), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return reflect.TypeFor[uint64](), nil
	case protoreflect.FloatKind:
		return reflect.TypeFor[float32](), nil
	case protoreflect.DoubleKind:
		return reflect.TypeFor[float64](), nil
	case protoreflect.StringKind:
		return reflect.TypeFor[string](), nil
	case protoreflect.BytesKind:
		return reflect.TypeFor[[]byte](), nil
	case protoreflect.EnumKind:
		return enumType(f.Enum())
	}
	return b.message(f.Message())
}

// tags: as go/cmd/gen-models writes them (internal/naming).
func tags(name string, number int, optional bool) reflect.StructTag {
	return reflect.StructTag(naming.Tags(name, number, optional))
}
