package codecs

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"codecbench/go/gen/catalogue"
)

// A test binary's build info lists no dependencies (golang/go#33976), so the tests describe the
// codecs with the modules go.mod requires, which the worker's build info lists.
func TestMain(m *testing.M) {
	text, err := os.ReadFile("../../go.mod")
	if err != nil {
		panic(err)
	}
	bi := &debug.BuildInfo{Main: debug.Module{Path: "codecbench/go", Version: "(devel)"}}
	block := false
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "require" && len(f) > 1 && f[1] == "(":
			block = true
		case block && len(f) > 0 && f[0] == ")":
			block = false
		case block && len(f) >= 2:
			bi.Deps = append(bi.Deps, &debug.Module{Path: f[0], Version: f[1]})
		case len(f) >= 3 && f[0] == "require":
			bi.Deps = append(bi.Deps, &debug.Module{Path: f[1], Version: f[2]})
		}
	}
	buildInfo = func() (*debug.BuildInfo, bool) { return bi, true }
	os.Exit(m.Run())
}

// The registry is exactly the catalogue's Go implementations, each announcing its entry.
func TestRegistryIsTheCatalogue(t *testing.T) {
	var listed, offered []string
	for _, l := range catalogue.Go {
		listed = append(listed, l.ID)
	}
	for _, c := range Registry() {
		info := c.Info()
		offered = append(offered, info.ID)
		i := slices.IndexFunc(catalogue.Go, func(l catalogue.Listed) bool { return l.ID == info.ID })
		if i < 0 {
			t.Fatalf("%s is offered but not in the catalogue", info.ID)
		}
		l := catalogue.Go[i]
		// No Go entry has a {version:NAME} today: its notes and regions are the catalogue's as written.
		if info.Notes != l.Notes || !slices.EqualFunc(info.Regions, l.Regions, sameRegion) || len(info.Regions) != len(info.Modes)+1 {
			t.Errorf("%s announces notes %q and regions %+v; the catalogue says %q and %+v", info.ID, info.Notes, info.Regions, l.Notes, l.Regions)
		}
		if info.MediaType != l.MediaType || info.Library != l.Library || !slices.Equal(info.Modes, l.Modes) || info.LibraryVersion == "" || info.LibraryVersion == "unknown" {
			t.Errorf("%s announces %q %q %v %q; the catalogue says %q %q %v", info.ID, info.MediaType, info.Library, info.Modes, info.LibraryVersion, l.MediaType, l.Library, l.Modes)
		}
	}
	slices.Sort(listed)
	slices.Sort(offered)
	if !slices.Equal(listed, offered) {
		t.Errorf("catalogue lists %v for go; the registry offers %v", listed, offered)
	}
}

func sameRegion(a, b Region) bool {
	return a.Operation == b.Operation && slices.Equal(a.Contains, b.Contains) && a.Note == b.Note
}

// The lookup is checked on a build info written here; harness/tests/test_go_worker.py checks the
// worker's own announcements.
func TestPackageVersionsComeFromTheBuild(t *testing.T) {
	bi := &debug.BuildInfo{
		Main: debug.Module{Path: "codecbench/go", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "google.golang.org/protobuf", Version: "v1.36.12"},
			{Path: "go.mongodb.org/mongo-driver/v2", Version: "v2.10.0"},
			{Path: "go.mongodb.org/mongo-driver/v2/bson", Version: "v9.9.9", Replace: &debug.Module{Version: "v2.10.1"}},
			{Path: "github.com/google/flatbuffers", Version: "v25.12.19+incompatible"},
		},
	}
	for pkg, want := range map[string]string{
		"encoding/json":                       runtime.Version(),
		"google.golang.org/protobuf":          "v1.36.12",
		"github.com/google/flatbuffers/go":    "v25.12.19+incompatible",
		"go.mongodb.org/mongo-driver/v2/bson": "v2.10.1", // the longest module path, replaced
		"go.mongodb.org/mongo-driver/v2/x":    "v2.10.0",
		"codecbench/go/internal/ubjson":       "codecbench/go (devel)",
		"example.com/not/a/dependency":        "unknown",
		"google.golang.org/protobufx":         "unknown", // a path prefix, not a module's package
	} {
		if got := versionIn(bi, pkg); got != want {
			t.Errorf("%s: %q, want %q", pkg, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a codec id the catalogue lacks must panic")
		}
	}()
	described("no-such-codec")
}

// `{version:NAME}` in notes and region notes is NAME's version in the build; a NAME the build does
// not hold, or a placeholder left open, is an error naming the codec.
func TestVersionPlaceholders(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "codecbench/go", Version: "(devel)"},
		Deps: []*debug.Module{{Path: "github.com/x448/float16", Version: "v0.8.4"}}}
	l := catalogue.Listed{ID: "cbor", Library: "github.com/fxamacker/cbor/v2", Modes: []string{Typed},
		Notes:   "on float16 {version:github.com/x448/float16} ({version:unicode/utf8})",
		Regions: []Region{{Operation: "encode", Contains: []string{"serialize"}}, {Operation: Typed, Contains: []string{"parse"}, Note: "{version:github.com/x448/float16}"}}}
	info, err := describe(l, bi)
	if err != nil {
		t.Fatal(err)
	}
	if want := "on float16 v0.8.4 (" + runtime.Version() + ")"; info.Notes != want || info.Regions[1].Note != "v0.8.4" || info.LibraryVersion != "unknown" {
		t.Errorf("notes %q, regions %+v, library %q", info.Notes, info.Regions, info.LibraryVersion)
	}
	if l.Regions[1].Note != "{version:github.com/x448/float16}" {
		t.Errorf("describe changed the catalogue's table: %+v", l.Regions)
	}
	for _, c := range []struct{ notes, note, want string }{
		{"on {version:example.com/absent} here", "", "codec cbor's notes: {version:example.com/absent}: example.com/absent is in none of this binary's modules"},
		{"", "{version:example.com/absent}", "codec cbor's typed region: {version:example.com/absent}"},
		{"{version:github.com/x448/float16", "", "codec cbor's notes: an unclosed or empty {version:}"},
		{"{version:}", "", "codec cbor's notes: an unclosed or empty {version:}"},
	} {
		bad := l
		bad.Notes, bad.Regions = c.notes, slices.Clone(l.Regions)
		bad.Regions[1].Note = c.note
		if _, err := describe(bad, bi); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q / %q: got %v, want %q", c.notes, c.note, err, c.want)
		}
	}
}

// Every Go entry's placeholders resolve in this build (the worker would panic announcing it otherwise).
func TestTheCataloguesVersionsResolve(t *testing.T) {
	bi, _ := buildInfo()
	for _, l := range catalogue.Go {
		if _, err := describe(l, bi); err != nil {
			t.Error(err)
		}
	}
}
