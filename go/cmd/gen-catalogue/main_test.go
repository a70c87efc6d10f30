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
	if r := entries[0].Implementations["go"].TimedRegions; len(r) != 3 || r[2].Operation != "tree" || r[2].Note == "" {
		t.Fatalf("json's go regions %+v", r)
	}
	if extensions["json"] != "json" || extensions["protobuf"] != "binpb" || extensions["json/v2"] != "" {
		t.Fatalf("file extensions %v", extensions)
	}
}

func TestMistakesAreRefusedByName(t *testing.T) {
	entry := func(impl string) string {
		return "codecs:\n  - id: x\n    mediaType: application/x\n    implementations:\n      go: " + impl + "\n"
	}
	const regions = "timedRegions: [{operation: encode, contains: [serialize]}, {operation: typed, contains: [parse]}]"
	ok := "{library: l, modes: [typed], " + regions + "}"
	for _, c := range []struct{ text, want string }{
		{entry(ok) + strings.Replace(strings.TrimPrefix(entry("{library: l, modes: [typed], mode: [tree]}"), "codecs:\n"), "id: x", "id: y", 1), "codec y: yaml: unmarshal errors:\n  line 9: field mode not found"},
		{entry("{library: l, modes: [typed], " + strings.Replace(regions, "[parse]", "[parse], notes: n", 1) + "}"), "codec x: yaml: unmarshal errors:\n  line 5: field notes not found in type main.region"},
		{entry("{library: l, modes: [typed, tree], " + regions + "}"), "x's go implementation: timed regions [encode typed] should be [encode typed tree]"},
		{entry("{library: l, modes: [typed], timedRegions: [{operation: typed, contains: [parse]}, {operation: encode, contains: [serialize]}]}"), "x's go implementation: timed regions [typed encode] should be [encode typed]"},
		{entry("{library: l, modes: [typed, streaming], " + strings.Replace(regions, "]}]", "]}, {operation: streaming, contains: [parse]}]", 1) + "}"), "should be [encode typed encode streaming streaming]"},
		{entry("{library: l, modes: [typed], timedRegions: [{operation: encode, contains: []}, {operation: typed, contains: [parse]}]}"), "x's go implementation: a timed region lacks operation or contains"},
		{strings.Replace(entry(ok), "mediaType", "mediatype", 1), "field mediatype not found"},
		{entry(ok) + strings.TrimPrefix(entry(ok), "codecs:\n"), "codec x is listed twice"},
		{entry("{library: l}"), "x's go implementation lacks library or modes"},
		{entry("{library: l, modes: [typed]}"), "x's go implementation: timed regions [] should be [encode typed]"},
	} {
		_, _, err := parse([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}
