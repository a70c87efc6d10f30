package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir is codecs/vectors, from go/internal/datasets.
var vectorsDir = filepath.Join("..", "..", "..", "codecs", "vectors")

func TestFingerprintsMatchTheHarnesss(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "fingerprints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct{ Message, Fingerprint string }
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if len(All()) != len(want) {
		t.Fatalf("found %d datasets in the descriptors, fingerprints.json has %d", len(All()), len(want))
	}
	for id, w := range want {
		d := Find(id)
		if d == nil {
			t.Fatalf("dataset %s not found by walking the descriptors", id)
		}
		if string(d.Record.FullName()) != w.Message || d.Fingerprint != w.Fingerprint {
			t.Errorf("%s: %s %s, want %s %s", id, d.Record.FullName(), d.Fingerprint, w.Message, w.Fingerprint)
		}
	}
}

func TestCanonicalVectorsParse(t *testing.T) {
	for _, d := range All() {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, d.ID+".pb"))
		if err != nil {
			t.Fatal(err)
		}
		if _, n, err := d.Parse(raw); err != nil || n != 3 {
			t.Errorf("%s: %d records, %v", d.ID, n, err)
		}
	}
	if _, _, err := Find("dummy").Parse([]byte{0xff, 0xff}); err == nil {
		t.Error("garbage parsed as a canonical blob")
	}
}
