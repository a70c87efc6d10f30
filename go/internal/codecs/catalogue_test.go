package codecs

import (
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"codecbench/go/gen/catalogue"
)

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
		if info.MediaType != l.MediaType || info.Library != l.Library || !slices.Equal(info.Modes, l.Modes) || info.LibraryVersion == "" {
			t.Errorf("%s announces %q %q %v %q; the catalogue says %q %q %v", info.ID, info.MediaType, info.Library, info.Modes, info.LibraryVersion, l.MediaType, l.Library, l.Modes)
		}
	}
	slices.Sort(listed)
	slices.Sort(offered)
	if !slices.Equal(listed, offered) {
		t.Errorf("catalogue lists %v for go; the registry offers %v", listed, offered)
	}
}

// A test binary's build info has no dependencies (golang/go#33976), so the lookup is checked on
// one written here; harness/tests/test_go_worker.py checks the worker's own announcements.
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
	described("no-such-codec", Info{})
}
