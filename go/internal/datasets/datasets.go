// Package datasets finds the built-in datasets by walking the compiled-in descriptors for the
// `(dataset)` option (proto/README.md "Datasets and their schema fingerprint"), computes their
// schema fingerprints, and parses canonical blobs into the dataset's list message.
package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	pb "codecbench/go/gen/codecbench/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Dataset is one built-in dataset: its record message and the `*Dataset` list message holding
// `repeated <Record> records = 1`.
type Dataset struct {
	ID          string
	Record      protoreflect.MessageDescriptor
	List        protoreflect.MessageType
	LazyFields  []string
	BareList    bool
	Fingerprint string
	// User: a user's dataset (user.go), its list message a dynamicpb type built from the
	// descriptor set; FieldNames "json" or "proto" names its fields in self-describing payloads.
	User       bool
	FieldNames string
}

// All returns the built-in datasets, in the order datasets.proto declares them.
func All() []*Dataset { return builtins }

// Find returns the dataset with that id, built-in or a registered user's, or nil.
func Find(id string) *Dataset {
	for _, d := range builtins {
		if d.ID == id {
			return d
		}
	}
	usersMu.Lock()
	defer usersMu.Unlock()
	for _, d := range users {
		if d.ID == id {
			return d
		}
	}
	return nil
}

var builtins = discover()

func discover() []*Dataset {
	fd := pb.File_codecbench_v1_datasets_proto
	var out []*Dataset
	msgs := fd.Messages()
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		opts, ok := m.Options().(*descriptorpb.MessageOptions)
		if !ok || opts == nil || !proto.HasExtension(opts, pb.E_Dataset) {
			continue
		}
		o := proto.GetExtension(opts, pb.E_Dataset).(*pb.DatasetOptions)
		list, err := listMessage(m)
		if err != nil {
			panic(err) // a broken datasets.proto: the build is wrong, not the input
		}
		out = append(out, &Dataset{ID: o.GetId(), Record: m, List: list, LazyFields: o.GetLazyFields(), BareList: o.GetBareList(), Fingerprint: Fingerprint(m), FieldNames: "json"})
	}
	return out
}

// listMessage finds the message of the record's file that is `repeated <Record> records = 1;`.
func listMessage(record protoreflect.MessageDescriptor) (protoreflect.MessageType, error) {
	msgs := record.ParentFile().Messages()
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		f := m.Fields().ByNumber(1)
		if m.Fields().Len() == 1 && f != nil && f.Name() == "records" && f.Cardinality() == protoreflect.Repeated && f.Message() != nil && f.Message().FullName() == record.FullName() {
			return protoregistry.GlobalTypes.FindMessageByName(m.FullName())
		}
	}
	return nil, fmt.Errorf("no list message holds repeated %s records = 1", record.FullName())
}

// Parse reads a canonical blob: the protobuf encoding of the dataset's list message.
func (d *Dataset) Parse(canonical []byte) (proto.Message, int, error) {
	m := d.List.New().Interface()
	if err := proto.Unmarshal(canonical, m); err != nil {
		return nil, 0, fmt.Errorf("the canonical blob is not a %s: %w", d.List.Descriptor().FullName(), err)
	}
	n := m.ProtoReflect().Get(d.List.Descriptor().Fields().ByNumber(1)).List().Len()
	return m, n, nil
}

// Fingerprint is the schema fingerprint of proto/README.md: the record message and every message
// and enum its fields reach, sorted by full name, one header line per type and one line per field
// or value; the first 16 hex digits of the SHA-256 of that text.
func Fingerprint(record protoreflect.MessageDescriptor) string {
	types := map[string]protoreflect.Descriptor{}
	var walk func(m protoreflect.MessageDescriptor)
	walk = func(m protoreflect.MessageDescriptor) {
		if _, seen := types[string(m.FullName())]; seen {
			return
		}
		types[string(m.FullName())] = m
		fs := m.Fields()
		for i := 0; i < fs.Len(); i++ {
			f := fs.Get(i)
			if f.Message() != nil {
				walk(f.Message())
			} else if f.Enum() != nil {
				types[string(f.Enum().FullName())] = f.Enum()
			}
		}
	}
	walk(record)
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		switch t := types[n].(type) {
		case protoreflect.MessageDescriptor:
			fmt.Fprintf(&b, "message %s\n", n)
			fs := t.Fields()
			fields := make([]protoreflect.FieldDescriptor, fs.Len())
			for i := range fields {
				fields[i] = fs.Get(i)
			}
			sort.Slice(fields, func(i, j int) bool { return fields[i].Number() < fields[j].Number() })
			for _, f := range fields {
				fmt.Fprintf(&b, "%d %s %s %d %s %s %s %s\n", f.Number(), f.Name(), f.JSONName(), fieldType(f), bit(f.Cardinality() == protoreflect.Repeated), typeName(f), bit(f.HasOptionalKeyword() && f.ContainingOneof() != nil && f.ContainingOneof().IsSynthetic()), realOneof(f))
			}
		case protoreflect.EnumDescriptor:
			fmt.Fprintf(&b, "enum %s\n", n)
			vs := t.Values()
			vals := make([]protoreflect.EnumValueDescriptor, vs.Len())
			for i := range vals {
				vals[i] = vs.Get(i)
			}
			sort.Slice(vals, func(i, j int) bool {
				if vals[i].Number() != vals[j].Number() {
					return vals[i].Number() < vals[j].Number()
				}
				return vals[i].Name() < vals[j].Name()
			})
			for _, v := range vals {
				fmt.Fprintf(&b, "%d %s\n", v.Number(), v.Name())
			}
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])[:16]
}

// fieldType is the FieldDescriptorProto.Type number (a map entry's and a group's included).
func fieldType(f protoreflect.FieldDescriptor) int { return int(f.Kind()) }

func typeName(f protoreflect.FieldDescriptor) string {
	if f.Message() != nil {
		return string(f.Message().FullName())
	}
	if f.Enum() != nil {
		return string(f.Enum().FullName())
	}
	return ""
}

func realOneof(f protoreflect.FieldDescriptor) string {
	if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
		return string(o.Name())
	}
	return ""
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// FirstField is the first field, in the record or a message it reaches, for which `match` holds
// (depth first, in field-number order), or nil.
func FirstField(record protoreflect.MessageDescriptor, match func(protoreflect.FieldDescriptor) bool) protoreflect.FieldDescriptor {
	seen := map[protoreflect.FullName]bool{}
	var walk func(m protoreflect.MessageDescriptor) protoreflect.FieldDescriptor
	walk = func(m protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
		if seen[m.FullName()] {
			return nil
		}
		seen[m.FullName()] = true
		fs := m.Fields()
		for i := 0; i < fs.Len(); i++ {
			f := fs.Get(i)
			if match(f) {
				return f
			}
			if f.Message() != nil {
				if g := walk(f.Message()); g != nil {
					return g
				}
			}
		}
		return nil
	}
	return walk(record)
}
