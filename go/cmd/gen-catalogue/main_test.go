package main

import (
	"os"
	"strings"
	"testing"
)

func TestTheRepositorysCatalogueParses(t *testing.T) {
	text, err := os.ReadFile("../../../codecs/catalogue.yaml")
	if err != nil {
		t.Fatal(err)
	}
	entries, extensions, err := parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 || entries[0].ID != "json" {
		t.Fatalf("first go entry %v", entries)
	}
	if extensions["json"] != "json" || extensions["protobuf"] != "binpb" || extensions["json/v2"] != "" {
		t.Fatalf("file extensions %v", extensions)
	}
}

func TestMistakesAreRefusedByName(t *testing.T) {
	entry := func(impl string) string {
		return "codecs:\n  - id: x\n    mediaType: application/x\n    implementations:\n      go: " + impl + "\n"
	}
	for _, c := range []struct{ text, want string }{
		{entry("{library: l, modes: [typed], mode: [tree]}"), "field mode not found"},
		{strings.Replace(entry("{library: l, modes: [typed]}"), "mediaType", "mediatype", 1), "field mediatype not found"},
		{entry("{library: l, modes: [typed]}") + strings.TrimPrefix(entry("{library: l, modes: [typed]}"), "codecs:\n"), "codec x is listed twice"},
		{entry("{library: l}"), "x's go implementation lacks library or modes"},
	} {
		_, _, err := parse([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}
