// Command gen-flatbuffers writes what the Go flatbuffers codec needs beyond flatc (go/gen.sh runs it):
//
//	gen-flatbuffers schema FBS   marks each proto3 `optional` scalar of the schema `flatc --proto`
//	                             wrote `= null` (flatc drops `optional`, so unset and 0 would read
//	                             the same), as rust/codecs/build.rs does;
//	gen-flatbuffers mapping OUT  writes go/gen/fbmap: per message a write function calling flatc's Go
//	                             builders, a read function filling the models from flatc's accessors,
//	                             and a lazy lookup of one dotted path over the accessors, i.e. the
//	                             code a Go application writes by hand against flatc's output.
//
// Everything is derived from the dataset descriptors; nobody edits the output.
package main

import (
	"fmt"
	"os"
	"strings"

	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "schema" && os.Args[1] != "mapping") {
		fmt.Fprintln(os.Stderr, "usage: gen-flatbuffers schema FBS | mapping OUT.go")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "schema" {
		err = markOptionals(os.Args[2])
	} else {
		var src []byte
		if src, err = mapping(); err == nil {
			err = os.WriteFile(os.Args[2], src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-flatbuffers:", err)
		os.Exit(1)
	}
}

// messages: every message the datasets reach, by full name.
func messages() map[protoreflect.FullName]protoreflect.MessageDescriptor {
	out := map[protoreflect.FullName]protoreflect.MessageDescriptor{}
	var walk func(m protoreflect.MessageDescriptor)
	walk = func(m protoreflect.MessageDescriptor) {
		if _, ok := out[m.FullName()]; ok {
			return
		}
		out[m.FullName()] = m
		for i := 0; i < m.Fields().Len(); i++ {
			if f := m.Fields().Get(i); f.Message() != nil {
				walk(f.Message())
			}
		}
	}
	for _, d := range datasets.All() {
		walk(d.List.Descriptor())
	}
	return out
}

func optionalScalar(f protoreflect.FieldDescriptor) bool {
	return f.HasOptionalKeyword() && f.Message() == nil && f.Kind() != protoreflect.StringKind && f.Kind() != protoreflect.BytesKind
}

func markOptionals(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	byName := map[string]protoreflect.MessageDescriptor{}
	want := 0
	for _, m := range messages() {
		byName[string(m.Name())] = m
		for i := 0; i < m.Fields().Len(); i++ {
			if optionalScalar(m.Fields().Get(i)) {
				want++
			}
		}
	}
	var out strings.Builder
	var table protoreflect.MessageDescriptor
	marked := 0
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		t := strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(t, "table "); ok {
			table = byName[strings.TrimSuffix(name, " {")]
		} else if t == "}" {
			table = nil
		}
		if name, _, ok := strings.Cut(t, ":"); ok && table != nil && strings.HasSuffix(t, ";") && !strings.Contains(t, "=") {
			if f := table.Fields().ByName(protoreflect.Name(name)); f != nil && optionalScalar(f) {
				out.WriteString("  " + strings.TrimSuffix(t, ";") + " = null;\n")
				marked++
				continue
			}
		}
		out.WriteString(line)
	}
	if marked != want {
		return fmt.Errorf("found %d of the %d optional scalar fields in flatc's schema %s", marked, want, path)
	}
	return os.WriteFile(path, []byte(out.String()), 0o644)
}
