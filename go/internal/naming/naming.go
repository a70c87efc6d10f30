// Package naming holds the names every Go model of a dataset shares, whoever makes it: the
// generated built-in models (cmd/gen-models), their FlatBuffers mapping (cmd/gen-flatbuffers,
// whose accessor names flatc derives the same way) and a user dataset's models declared at load
// (internal/usermodels). One place, so the three cannot drift apart.
package naming

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// GoName is a message's or enum's type name inside its package, nested names joined with "_"
// (flatc's naming of nested messages too).
func GoName(d protoreflect.Descriptor) string {
	name := strings.TrimPrefix(string(d.FullName()), string(d.ParentFile().Package())+".")
	return strings.ReplaceAll(name, ".", "_")
}

// Camel is a field's Go name: the proto name in UpperCamel, also flatc's Go accessor name.
func Camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

// Tags is a model field's struct tag: the proto JSON name for every schema-less codec (omitted
// when empty for proto3 `optional`), and the field number the protobuf converter reads.
func Tags(name string, number int, optional bool) string {
	o := ""
	if optional {
		o = ",omitempty"
	}
	return fmt.Sprintf(`json:"%s%s" msgpack:"%s%s" cbor:"%s%s" bson:"%s%s" xml:"%s%s" pb:"%d"`,
		name, o, name, o, name, o, name, o, name, o, number)
}
