// Command gen-catalogue writes the Go worker's codec table (go/gen/catalogue, git-ignored) from
// codecs/catalogue.yaml, the one place a codec's descriptive facts live: each codec's media type,
// whether it is deterministic, and its `go` implementation's library, version source, modes, notes
// and timed regions. The codecs announce from it (internal/codecs.described), which fills in the
// versions, `{version:NAME}` included, from the binary's build info at run time. Read strictly: a
// key the other readers (Catalogue.java,
// rust/codecs/build/catalogue.rs, web/tools/catalogue.ts, harness/codecbench/catalogue.py) do not
// know is an error. gen.sh runs it; nobody edits its output.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"regexp"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

type implementation struct {
	Library      string   `yaml:"library"`
	Package      string   `yaml:"package"`
	Version      string   `yaml:"version"`
	Modes        []string `yaml:"modes"`
	Notes        string   `yaml:"notes"`
	TimedRegions []region `yaml:"timedRegions"`
}

// region is one timed region (results.proto TimedRegion).
type region struct {
	Operation string   `yaml:"operation"`
	Contains  []string `yaml:"contains"`
	Note      string   `yaml:"note"`
}

type entry struct {
	ID              string                    `yaml:"id"`
	MediaType       string                    `yaml:"mediaType"`
	Spec            string                    `yaml:"spec"`
	Deterministic   bool                      `yaml:"deterministic"`
	FileExtension   string                    `yaml:"fileExtension"`
	Implementations map[string]implementation `yaml:"implementations"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen-catalogue CATALOGUE.yaml OUT.go")
		os.Exit(2)
	}
	src, err := generate(os.Args[1])
	if err == nil {
		err = os.WriteFile(os.Args[2], src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-catalogue:", err)
		os.Exit(1)
	}
}

// parse reads a catalogue strictly: unknown keys, a codec listed twice, a go entry without library
// or modes, or whose timed regions are not regionOperations(modes), are errors naming the codec. It returns the entries with a go implementation,
// and every format's golden-vector file extension.
func parse(text []byte) ([]entry, map[string]string, error) {
	var file struct {
		Codecs []entry `yaml:"codecs"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		return nil, nil, fmt.Errorf("codecs/catalogue.yaml: %s%w", codecAt(text, err), err)
	}
	seen := map[string]bool{}
	extensions := map[string]string{}
	var out []entry
	for _, e := range file.Codecs {
		if e.ID == "" || e.MediaType == "" {
			return nil, nil, fmt.Errorf("codecs/catalogue.yaml: an entry lacks id or mediaType")
		}
		if seen[e.ID] {
			return nil, nil, fmt.Errorf("codecs/catalogue.yaml: codec %s is listed twice", e.ID)
		}
		seen[e.ID] = true
		if e.FileExtension != "" {
			extensions[e.ID] = e.FileExtension
		}
		if g, ok := e.Implementations["go"]; ok {
			if g.Library == "" || len(g.Modes) == 0 {
				return nil, nil, fmt.Errorf("codecs/catalogue.yaml: %s's go implementation lacks library or modes", e.ID)
			}
			if err := checkRegions(g); err != nil {
				return nil, nil, fmt.Errorf("codecs/catalogue.yaml: %s's go implementation: %w", e.ID, err)
			}
			out = append(out, e)
		}
	}
	return out, extensions, nil
}

var errorLine = regexp.MustCompile(`line (\d+):`)

// codecAt is "codec ID: " for the entry holding the first line yaml's error names, so a stray key
// is reported by codec as the other mistakes are; "" when there is none.
func codecAt(text []byte, err error) string {
	m := errorLine.FindStringSubmatch(err.Error())
	var doc yaml.Node
	if m == nil || yaml.Unmarshal(text, &doc) != nil || len(doc.Content) == 0 {
		return ""
	}
	line, _ := strconv.Atoi(m[1])
	root, id := doc.Content[0], ""
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "codecs" {
			continue
		}
		for _, c := range root.Content[i+1].Content {
			for j := 0; c.Line <= line && j+1 < len(c.Content); j += 2 {
				if c.Content[j].Value == "id" {
					id = c.Content[j+1].Value
				}
			}
		}
	}
	if id == "" {
		return ""
	}
	return "codec " + id + ": "
}

// regionOperations are the operations an implementation's timed regions cover, in order: encode,
// then one per decode mode, "encode streaming" just before "streaming" (harness/codecbench/catalogue.py).
func regionOperations(modes []string) []string {
	ops := []string{"encode"}
	for _, m := range modes {
		if m == "streaming" {
			ops = append(ops, "encode streaming")
		}
		ops = append(ops, m)
	}
	return ops
}

func checkRegions(g implementation) error {
	var ops []string
	for _, r := range g.TimedRegions {
		if r.Operation == "" || len(r.Contains) == 0 {
			return fmt.Errorf("a timed region lacks operation or contains: %+v", r)
		}
		ops = append(ops, r.Operation)
	}
	if want := regionOperations(g.Modes); !slices.Equal(ops, want) {
		return fmt.Errorf("timed regions %v should be %v, one for encode and one per decode mode, in order", ops, want)
	}
	return nil
}

func generate(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	entries, extensions, err := parse(text)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go/cmd/gen-catalogue from codecs/catalogue.yaml. DO NOT EDIT.\n\n")
	b.WriteString("// Package catalogue is the codecs/catalogue.yaml entries with a Go implementation.\n")
	b.WriteString("package catalogue\n\n")
	b.WriteString("// Listed is one codec's entry, with its go implementation.\n")
	b.WriteString("// Notes and region notes may hold {version:NAME}, the version of package NAME in the binary.\n")
	b.WriteString("type Listed struct {\n\tID, MediaType, Library, Package, Version, Notes string\n\tModes []string\n\tRegions []Region\n\tDeterministic bool\n}\n\n")
	b.WriteString("// Region is one timed region's declared boundary (results.proto TimedRegion).\n")
	b.WriteString("type Region struct {\n\tOperation string\n\tContains []string\n\tNote string\n}\n\n")
	b.WriteString("// Go lists them in the catalogue's order.\nvar Go = []Listed{\n")
	for _, e := range entries {
		g := e.Implementations["go"]
		fmt.Fprintf(&b, "\t{ID: %q, MediaType: %q, Library: %q, Package: %q, Version: %q, Notes: %q, Modes: %#v, Deterministic: %t, Regions: []Region{\n",
			e.ID, e.MediaType, g.Library, g.Package, g.Version, g.Notes, g.Modes, e.Deterministic)
		for _, r := range g.TimedRegions {
			fmt.Fprintf(&b, "\t\t{Operation: %q, Contains: %#v, Note: %q},\n", r.Operation, r.Contains, r.Note)
		}
		b.WriteString("\t}},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// FileExtensions are each format's golden-vector file extensions (<dataset>.<language>.<ext>).\n")
	fmt.Fprintf(&b, "var FileExtensions = %#v\n", extensions)
	return format.Source(b.Bytes())
}
