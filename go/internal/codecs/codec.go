// Package codecs holds the Go worker's codecs: one file each behind the Codec interface, and the
// registry the worker announces (proto/README.md "The worker protocol", codecs/ADDING_A_CODEC.md).
package codecs

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"codecbench/go/gen/catalogue"
	"codecbench/go/gen/models"
	"codecbench/go/internal/datasets"
	"codecbench/go/internal/usermodels"
	"google.golang.org/protobuf/proto"
)

// Decode modes (DESIGN.md rule 6).
const (
	Typed = "typed"
	Tree  = "tree"
	Lazy  = "lazy"
)

// Region is one timed region's declared boundary (results.proto TimedRegion).
type Region = catalogue.Region

// Info is what the worker announces for a codec (CodecInfo).
type Info struct {
	ID, MediaType, Library, LibraryVersion, Notes string
	Modes                                         []string
	Regions                                       []Region
}

// Records are a trial's canonical records in every form a codec takes: the dataset's protobuf list
// message (the protoc-gen-go structs) and the generated models (go/gen/models), both built from the
// canonical blob outside any timed region.
type Records struct {
	Dataset *datasets.Dataset
	Proto   proto.Message
	Model   any
	Count   int
}

// Load parses a canonical blob of `dataset` into Records.
func Load(dataset string, canonical []byte) (*Records, error) {
	d := datasets.Find(dataset)
	if d == nil {
		return nil, fmt.Errorf("this worker has no dataset %q", dataset)
	}
	msg, n, err := d.Parse(canonical)
	if err != nil {
		return nil, err
	}
	r := &Records{Dataset: d, Proto: msg, Count: n}
	if d.User && usermodels.Refusal(d.ID) != "" {
		return r, nil // a schema the models do not carry: only protobuf runs it, on the messages
	}
	if r.Model, err = NewModel(dataset); err != nil {
		return nil, err
	}
	if err := datasets.ToModel(msg.ProtoReflect(), r.Model); err != nil {
		return nil, fmt.Errorf("building the %s models: %w", dataset, err)
	}
	return r, nil
}

// NewModel is an empty list of the dataset's models (`*models.<Record>List`, or a user dataset's
// models built at load, usermodels).
func NewModel(dataset string) (any, error) {
	if mk, ok := models.New[dataset]; ok {
		return mk(), nil
	}
	if m, ok := usermodels.New(dataset); ok {
		return m, nil
	}
	if why := usermodels.Refusal(dataset); why != "" {
		return nil, fmt.Errorf("no Go models for dataset %q: %s", dataset, why)
	}
	return nil, fmt.Errorf("no Go models for dataset %q", dataset)
}

// Codec encodes and decodes a trial's records. Every method returns an error for bad input,
// never panics on it.
type Codec interface {
	Info() Info
	// Encode writes the records (the application's objects) as a payload.
	Encode(r *Records) ([]byte, error)
	// Decode reads a payload in `mode` (one of Info().Modes): typed returns the records' models,
	// tree the library's generic document.
	Decode(r *Records, mode string, payload []byte) (any, error)
	// Verify compares what Decode returned with the canonical records, naming the first
	// difference ("record 3 field email: ..."); nil when equal.
	Verify(r *Records, mode string, decoded any) error
}

// Admitter is a codec that must check a payload once, untimed, before decoding it: what its
// library would not survive (a declared length it allocates before reading).
type Admitter interface {
	Admit(payload []byte) error
}

// Admit runs the codec's admission check, if it has one.
func Admit(c Codec, payload []byte) error {
	if a, ok := c.(Admitter); ok {
		return a.Admit(payload)
	}
	return nil
}

// Refuser is a codec that cannot carry some schema feature; Refusal names the first such field
// of a dataset ("bson: uint64 field X is not offered"), or "" when it carries the dataset.
type Refuser interface {
	Refusal(d *datasets.Dataset) string
}

// Refusal is the codec's refusal of a dataset, "" when there is none. Every codec but protobuf
// (dynamicpb carries every schema) needs a user dataset's models.
func Refusal(c Codec, d *datasets.Dataset) string {
	if d.User && c.Info().ID != "protobuf" {
		if why := usermodels.Refusal(d.ID); why != "" {
			return c.Info().ID + ": " + why
		}
	}
	if r, ok := c.(Refuser); ok {
		return r.Refusal(d)
	}
	return ""
}

// Registry lists every codec of the Go worker, in announcement order.
func Registry() []Codec {
	return []Codec{JSON{}, BSON{}, Protobuf{}, UBJSON{}, Msgpack{}, CBOR{}, XML{}, Flatbuffers{}, JSONv2{}, JSONSonic{}}
}

// Format is the format a codec id implements: "json" for "json" and "json/v2" (results.proto
// CodecInfo.id). Payloads of one format are one wire: every implementation of it reads the others'.
func Format(id string) string {
	if i := strings.IndexByte(id, '/'); i >= 0 {
		return id[:i]
	}
	return id
}

// Find returns the codec with that id, or nil.
func Find(id string) Codec {
	for _, c := range Registry() {
		if c.Info().ID == id {
			return c
		}
	}
	return nil
}

// HasMode says whether the codec offers a decode mode.
func HasMode(c Codec, mode string) bool {
	for _, m := range c.Info().Modes {
		if m == mode {
			return true
		}
	}
	return false
}

// described is codec id's Info, all from its codecs/catalogue.yaml entry (go/gen/catalogue): no
// Go codec has anything only its code knows at run time. The versions are this binary's; an entry
// this binary cannot describe is a build mistake, so it panics.
func described(id string) Info {
	for _, l := range catalogue.Go {
		if l.ID == id {
			bi, ok := buildInfo()
			if !ok {
				bi = &debug.BuildInfo{} // not a module build: only the Go release is known
			}
			info, err := describe(l, bi)
			if err != nil {
				panic(err)
			}
			return info
		}
	}
	panic("codec " + id + " has no go implementation in codecs/catalogue.yaml")
}

// describe is an entry's Info with the versions `bi` records: the library's is the catalogue's
// `version:` where it states one, else that of the library's package (or `package:`); a
// `{version:NAME}` in a note is that of package NAME, which must be in the build.
func describe(l catalogue.Listed, bi *debug.BuildInfo) (Info, error) {
	info := Info{ID: l.ID, MediaType: l.MediaType, Library: l.Library, Modes: l.Modes,
		LibraryVersion: cmp.Or(l.Version, versionIn(bi, cmp.Or(l.Package, l.Library)))}
	var err error
	if info.Notes, err = withVersions(l.Notes, bi); err != nil {
		return Info{}, fmt.Errorf("codec %s's notes: %w", l.ID, err)
	}
	for _, r := range l.Regions {
		if r.Note, err = withVersions(r.Note, bi); err != nil {
			return Info{}, fmt.Errorf("codec %s's %s region: %w", l.ID, r.Operation, err)
		}
		info.Regions = append(info.Regions, r)
	}
	return info, nil
}

// withVersions replaces each `{version:NAME}` in text with the version `bi` records for NAME.
func withVersions(text string, bi *debug.BuildInfo) (string, error) {
	var out strings.Builder
	for {
		before, after, found := strings.Cut(text, "{version:")
		out.WriteString(before)
		if !found {
			return out.String(), nil
		}
		name, rest, closed := strings.Cut(after, "}")
		if !closed || name == "" {
			return "", fmt.Errorf("an unclosed or empty {version:} in %q", text)
		}
		v := versionIn(bi, name)
		if v == "unknown" {
			return "", fmt.Errorf("{version:%s}: %s is in none of this binary's modules", name, name)
		}
		out.WriteString(v)
		text = rest
	}
}

// buildInfo is this binary's build info, parsed once: every Info() call resolves versions.
var buildInfo = sync.OnceValues(debug.ReadBuildInfo)

// versionIn is the version `bi` records for the module providing pkg: this module's own, the Go
// release for the standard library, else the longest dependency path holding the package.
// (A test binary's build info lists no dependencies, golang/go#33976: the worker's does.)
func versionIn(bi *debug.BuildInfo, pkg string) string {
	if pkg == bi.Main.Path || strings.HasPrefix(pkg, bi.Main.Path+"/") {
		return bi.Main.Path + " " + bi.Main.Version // this module's own (codecbench/go/internal/ubjson)
	}
	if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
		return runtime.Version() // the standard library
	}
	best, version := "", "unknown"
	for _, d := range bi.Deps {
		if (pkg == d.Path || strings.HasPrefix(pkg, d.Path+"/")) && len(d.Path) > len(best) {
			best, version = d.Path, d.Version
			if d.Replace != nil {
				version = d.Replace.Version
			}
		}
	}
	return version
}

// verifyModels compares decoded models with the canonical ones.
func verifyModels(r *Records, decoded any) error {
	if d := datasets.FirstDifference(r.Model, decoded); d != "" {
		return fmt.Errorf("verification failed: %s", d)
	}
	return nil
}

// verifyTree verifies a schema-less codec's tree outside timing: the tree written again with the
// codec's own library and read into the models, which verifyModels compares with the canonical ones.
func verifyTree(r *Records, tree any, marshal func(any) ([]byte, error), unmarshal func([]byte, any) error) error {
	b, err := marshal(tree)
	if err != nil {
		return fmt.Errorf("verification failed: the tree cannot be written back: %w", err)
	}
	m, err := NewModel(r.Dataset.ID)
	if err != nil {
		return err
	}
	if err := unmarshal(b, m); err != nil {
		return fmt.Errorf("verification failed: the tree does not hold %s records: %w", r.Dataset.ID, err)
	}
	return verifyModels(r, m)
}

// safely turns a panic inside a library into an error, so bad input can never kill the worker.
func safely[T any](what string, f func() (T, error)) (out T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked: %v", what, p)
		}
	}()
	return f()
}
