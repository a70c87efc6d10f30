package codecs

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"codecbench/go/gen/catalogue"
	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var vectorsDir = filepath.Join("..", "..", "..", "codecs", "vectors")

// The languages whose vectors every Go codec must read.
var languages = []string{"rust", "java", "browser", "go"}

func golden(t *testing.T, dataset string) *Records {
	t.Helper()
	return loadFile(t, dataset, filepath.Join(vectorsDir, dataset+".pb"))
}

// loadFile reads a canonical blob of dataset from path into Records.
func loadFile(tb testing.TB, dataset, path string) *Records {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := Load(dataset, raw)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return r
}

func TestEveryCodecRoundTripsEveryDatasetInEveryMode(t *testing.T) {
	for _, c := range Registry() {
		for _, d := range datasets.All() {
			r := golden(t, d.ID)
			payload, err := c.Encode(r)
			if err != nil {
				t.Fatalf("%s %s: encode: %v", c.Info().ID, d.ID, err)
			}
			for _, mode := range c.Info().Modes {
				if err := Check(c, r, mode, payload, d.LazyFields); err != nil {
					t.Errorf("%s %s %s: %v", c.Info().ID, d.ID, mode, err)
				}
			}
		}
	}
}

// Every other language's vectors decode to the golden records in every mode; deterministic codecs
// (protobuf) re-encode to the same bytes.
func TestGoldenVectorsOfEveryLanguage(t *testing.T) {
	deterministic := map[string]bool{}
	for _, l := range catalogue.Go {
		deterministic[l.ID] = l.Deterministic
	}
	for _, c := range Registry() {
		// Every implementation of a format reads every language's vectors of the format.
		id := Format(c.Info().ID)
		for _, d := range datasets.All() {
			r := golden(t, d.ID)
			own, err := c.Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, lang := range languages {
				path := filepath.Join(vectorsDir, VectorFile(d.ID, id, lang))
				payload, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				for _, mode := range c.Info().Modes {
					if err := Check(c, r, mode, payload, d.LazyFields); err != nil {
						t.Errorf("%s %s: %v", path, mode, err)
					}
				}
				if deterministic[id] && !bytes.Equal(own, payload) {
					t.Errorf("%s: Go writes %d bytes that differ from this vector's %d", path, len(own), len(payload))
				}
			}
		}
	}
}

// A payload whose one record differs is refused, naming the record and the field.
func TestVerificationNamesTheFirstDifference(t *testing.T) {
	r := golden(t, "dummy")
	for _, c := range Registry() {
		changed := golden(t, "dummy")
		list := changed.Proto.ProtoReflect()
		rec := list.Get(list.Descriptor().Fields().ByNumber(1)).List().Get(1).Message()
		rec.Set(rec.Descriptor().Fields().ByName("email"), protoreflect.ValueOfString("someone@else.org"))
		changed, err := Load("dummy", mustMarshal(t, changed.Proto))
		if err != nil {
			t.Fatal(err)
		}
		payload, err := c.Encode(changed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(r, Typed, payload)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Verify(r, Typed, got)
		if err == nil || !strings.HasPrefix(err.Error(), "verification failed: record 1 field email: ") || !strings.Contains(err.Error(), "someone@else.org") {
			t.Errorf("%s: %v", c.Info().ID, err)
		}
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Corrupt payloads (truncated, bit-flipped, random) give an error or, at worst, different records:
// never a panic. About 10^4 cases per codec over every dataset's records and every mode. (Half a
// vector, which must be refused, is fixtures_test.go's `truncated`.)
func TestCorruptPayloadsAreErrorsNotPanics(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := 0
	for _, c := range Registry() {
		if only := os.Getenv("CODEC"); only != "" && only != c.Info().ID {
			continue
		}
		for _, d := range datasets.All() {
			r := golden(t, d.ID)
			payload, _ := c.Encode(r)
			for _, mode := range c.Info().Modes {
				for i := 0; i < 10_000/(len(datasets.All())*len(c.Info().Modes))+1; i++ {
					bad := mutate(rng, payload)
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Fatalf("%s %s %s panicked on %d bytes: %v", c.Info().ID, d.ID, mode, len(bad), p)
							}
						}()
						_ = Check(c, r, mode, bad, d.LazyFields)
					}()
					cases++
				}
				if err := Admit(c, payload); err != nil {
					t.Errorf("%s %s: its own payload is not admitted: %v", c.Info().ID, d.ID, err)
				}
			}
		}
	}
	t.Logf("%d corrupt payloads", cases)
}

func mutate(rng *rand.Rand, payload []byte) []byte {
	b := append([]byte{}, payload...)
	switch rng.Intn(4) {
	case 0:
		return b[:rng.Intn(len(b)+1)]
	case 1:
		for n := 1 + rng.Intn(4); n > 0; n-- {
			b[rng.Intn(len(b))] ^= byte(1 << rng.Intn(8))
		}
	case 2:
		b[rng.Intn(len(b))] = byte(rng.Intn(256))
	default:
		b = make([]byte, rng.Intn(64))
		rng.Read(b)
	}
	return b
}

func TestBSONRefusesUint64Fields(t *testing.T) {
	for _, d := range datasets.All() {
		if why := Refusal(BSON{}, d); why != "" {
			t.Errorf("%s: %s", d.ID, why)
		}
	}
	// results.proto's Measurement has uint64 fields: no BSON form.
	m := &datasets.Dataset{ID: "m", Record: (&pb.Measurement{}).ProtoReflect().Descriptor()}
	if why := Refusal(BSON{}, m); why != "bson: uint64 field codecbench.v1.Measurement.payload_bytes is not offered" {
		t.Errorf("%q", why)
	}
	if why := Refusal(JSON{}, m); why != "" {
		t.Errorf("json refuses: %q", why)
	}
}

// A lazy read names the record and field whose value differs.
func TestLazyVerificationNamesTheRecordAndField(t *testing.T) {
	r := golden(t, "docs")
	changed := golden(t, "docs")
	list := changed.Proto.ProtoReflect()
	rec := list.Get(list.Descriptor().Fields().ByNumber(1)).List().Get(2).Message()
	del := rec.Mutable(rec.Descriptor().Fields().ByName("delivery")).Message()
	del.Set(del.Descriptor().Fields().ByName("company"), protoreflect.ValueOfString("Elsewhere Ltd"))
	changed, _ = Load("docs", mustMarshal(t, changed.Proto))
	payload, err := BSON{}.Encode(changed)
	if err != nil {
		t.Fatal(err)
	}
	err = Check(BSON{}, r, Lazy, payload, r.Dataset.LazyFields)
	if err == nil || !strings.HasPrefix(err.Error(), "verification failed: record 2 lazy field delivery.company: ") || !strings.Contains(err.Error(), "Elsewhere Ltd") {
		t.Errorf("%v", err)
	}
	if err := Check(BSON{}, r, Lazy, payload, []string{"nosuch"}); err == nil || !strings.Contains(err.Error(), `docs records have no lazy field "nosuch"`) {
		t.Errorf("%v", err)
	}
}

// Go's committed vectors are what its codecs write now (make vectors rewrites them).
func TestOwnVectorsAreFresh(t *testing.T) {
	dir := t.TempDir()
	for _, d := range datasets.All() {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, d.ID+".pb"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d.ID+".pb"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var formats []string // a vector per format: its reference implementation's (WriteVectors)
	for _, c := range Registry() {
		if Format(c.Info().ID) == c.Info().ID {
			formats = append(formats, c.Info().ID)
		}
	}
	n, err := WriteVectors(dir)
	if err != nil || n != len(datasets.All())*len(formats) {
		t.Fatalf("%d vectors of %d formats, %v", n, len(formats), err)
	}
	for _, d := range datasets.All() {
		for _, format := range formats {
			name := VectorFile(d.ID, format, "go")
			fresh, _ := os.ReadFile(filepath.Join(dir, name))
			committed, err := os.ReadFile(filepath.Join(vectorsDir, name))
			if err != nil || !bytes.Equal(fresh, committed) {
				t.Errorf("%s differs from what Go writes now (%v): run go/bin/codecbench-go-worker vectors codecs/vectors and commit it", name, err)
			}
		}
	}
}
