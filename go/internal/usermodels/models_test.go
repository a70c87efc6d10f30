package usermodels

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// message builds the record message of a one-file schema given as FileDescriptorProto text.
func message(t *testing.T, file, name string) protoreflect.MessageDescriptor {
	t.Helper()
	var fdp descriptorpb.FileDescriptorProto
	if err := prototext.Unmarshal([]byte(file), &fdp); err != nil {
		t.Fatal(err)
	}
	fd, err := protodesc.NewFile(&fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName(protoreflect.Name(name))
}

// The models gen-models would write: the wire names by fieldNames, a pointer for `optional`, a
// slice for repeated, a struct for a message, an enum written by its value name.
func TestModelsHaveGenModelsFieldsAndTags(t *testing.T) {
	m := message(t, `name: "a.proto" package: "p" syntax: "proto3"
		enum_type { name: "E" value { name: "E_ZERO" number: 0 } value { name: "E_ONE" number: 1 } }
		message_type { name: "In" field { name: "v" number: 1 label: LABEL_OPTIONAL type: TYPE_DOUBLE json_name: "v" } }
		message_type { name: "R"
			field { name: "row_id" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "rowId" }
			field { name: "hits" number: 2 label: LABEL_REPEATED type: TYPE_UINT32 json_name: "hits" }
			field { name: "inner" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".p.In" json_name: "inner" }
			field { name: "kind" number: 4 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".p.E" json_name: "kind" }
			field { name: "note" number: 5 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "note" oneof_index: 0 proto3_optional: true }
			oneof_decl { name: "_note" } }`, "R")
	for _, names := range []string{"json", "proto"} {
		id := "tags-" + names
		Build(&datasets.Dataset{ID: id, Record: m, FieldNames: names})
		list, ok := New(id)
		if !ok {
			t.Fatalf("%s: no models: %s", id, Refusal(id))
		}
		rec := reflect.TypeOf(list).Elem().Field(0).Type.Elem()
		want := map[string]string{"F1": "string", "F2": "[]uint32", "F3": "struct { F1 float64 ", "F4": "usermodels.Enum[[0]uint8]", "F5": "*string"}
		for i := 0; i < rec.NumField(); i++ {
			f := rec.Field(i)
			if !strings.HasPrefix(f.Type.String(), want[f.Name]) {
				t.Errorf("%s %s: %s, want %s", names, f.Name, f.Type, want[f.Name])
			}
		}
		if tag := rec.Field(0).Tag.Get("json"); tag != map[string]string{"json": "rowId", "proto": "row_id"}[names] {
			t.Errorf("%s: %q", names, tag)
		}
		if tag := rec.Field(4).Tag.Get("json"); !strings.HasSuffix(tag, ",omitempty") {
			t.Errorf("optional note: %q", tag)
		}
	}
	e := reflect.New(slotTypes[0]).Interface().(interface{ UnmarshalText([]byte) error })
	if err := e.UnmarshalText([]byte("E_ONE")); err != nil || reflect.ValueOf(e).Elem().Int() != 1 {
		t.Errorf("%v %v", err, e)
	}
	if err := e.UnmarshalText([]byte("NOPE")); err == nil || err.Error() != `p.E has no value named "NOPE"` {
		t.Errorf("%v", err)
	}
}

// What a struct built at run time cannot be is a refusal naming the message or enum.
func TestRecursionAndTheEnumSlotsAreRefusals(t *testing.T) {
	node := message(t, `name: "n.proto" package: "q" syntax: "proto3"
		message_type { name: "Node" field { name: "kids" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".q.Node" json_name: "kids" } }`, "Node")
	Build(&datasets.Dataset{ID: "tree", Record: node, FieldNames: "json"})
	if why := Refusal("tree"); why != "recursive message q.Node is not offered (a Go struct built at run time cannot refer to itself)" {
		t.Errorf("%q", why)
	}
	var b strings.Builder
	b.WriteString(`name: "many.proto" package: "m" syntax: "proto3" message_type { name: "R" `)
	for i := 0; i <= len(slotTypes); i++ {
		fmt.Fprintf(&b, `field { name: "e%d" number: %d label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".m.E%d" json_name: "e%d" } `, i, i+1, i, i)
	}
	b.WriteString("} ")
	for i := 0; i <= len(slotTypes); i++ {
		fmt.Fprintf(&b, `enum_type { name: "E%d" value { name: "E%d_ZERO" number: 0 } } `, i, i)
	}
	Build(&datasets.Dataset{ID: "many", Record: message(t, b.String(), "R"), FieldNames: "json"})
	if why := Refusal("many"); !strings.HasPrefix(why, "enum m.E") || !strings.Contains(why, "is one more than the 32 enums") {
		t.Errorf("%q", why)
	}
}
