package codecs

// codecs/fixtures.yaml's hostile inputs through every decode mode of every Go implementation of
// their format, as the worker's trial calls them (admission, then the mode's decode): each must be
// refused with the codec's own error, within caseLimit, allocating at most allowedAlloc in all. Where
// the file's knownFailing says a library legitimately accepts one, it must be accepted: a listed
// case that is refused after all fails too, so the list stays true.

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"codecbench/go/gen/catalogue"
	"codecbench/go/internal/datasets"
	"go.yaml.in/yaml/v3"
)

const (
	fixturesLanguage = "go"
	// One decode of a few KiB takes microseconds; the bound is loose because the 2-core machine
	// is shared with other suites (Rust's CASE_LIMIT).
	caseLimit = 2 * time.Second
	// Bytes one call may allocate in all (runtime.MemStats.TotalAlloc: Go cannot see the largest
	// block, which Rust caps): allocCap, plus allocPerByte per input byte, since a decoder may
	// build a token every few bytes it reads (encoding/xml allocates ~20 MB reading 100,000
	// nested elements of 300 KB before refusing them). A decode that sizes a buffer from a
	// declared 2^31 passes it at once.
	allocCap     = 16 << 20
	allocPerByte = 32
)

func allowedAlloc(payload []byte) uint64 { return allocCap + allocPerByte*uint64(len(payload)) }

type fixturesFile struct {
	Derived      []string             `yaml:"derived"`
	Formats      map[string][]fixture `yaml:"formats"`
	KnownFailing []knownFailing       `yaml:"knownFailing"`
}

type fixture struct {
	Name  string        `yaml:"name"`
	Kind  string        `yaml:"kind"`  // for readers of the file
	About string        `yaml:"about"` // likewise
	Input []fixturePart `yaml:"input"`
}

type fixturePart struct {
	Hex    *string `yaml:"hex"`
	Text   *string `yaml:"text"`
	Repeat *int    `yaml:"repeat"`
}

type knownFailing struct {
	Fixture        string   `yaml:"fixture"`
	Language       string   `yaml:"language"`
	Implementation string   `yaml:"implementation"`
	Modes          []string `yaml:"modes"`
	Reason         string   `yaml:"reason"`
}

func (k knownFailing) ours() bool { return k.Language == "" || k.Language == fixturesLanguage }

func (k knownFailing) covers(fixture, implementation, mode string) bool {
	return k.Fixture == fixture && k.ours() &&
		(k.Implementation == "" || k.Implementation == implementation) &&
		(k.Modes == nil || slices.Contains(k.Modes, mode))
}

// fixtureCase is one input decoded as dataset; fixture is "<format>/<name>" (a truncated vector's
// is "<format>/truncated of <file>": knownFailing names the kind, before " of ").
type fixtureCase struct {
	fixture, dataset string
	bytes            []byte
}

func readFixtures(t *testing.T) fixturesFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "..", "fixtures.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var f fixturesFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("codecs/fixtures.yaml: %v", err)
	}
	// yaml.v3 has no required fields: what Rust's serde requires is checked here.
	if f.Derived == nil || f.Formats == nil || f.KnownFailing == nil {
		t.Fatal("codecs/fixtures.yaml: derived, formats and knownFailing are required")
	}
	for format, fs := range f.Formats {
		for _, x := range fs {
			if x.Name == "" || x.Kind == "" || x.About == "" || len(x.Input) == 0 {
				t.Fatalf("codecs/fixtures.yaml: %s/%q needs a name, kind, about and input", format, x.Name)
			}
		}
	}
	for _, k := range f.KnownFailing {
		if k.Fixture == "" || k.Reason == "" {
			t.Fatalf("codecs/fixtures.yaml: a knownFailing entry needs a fixture and a reason: %+v", k)
		}
	}
	return f
}

func fixtureBytes(t *testing.T, fixture string, parts []fixturePart) []byte {
	t.Helper()
	var out []byte
	for _, p := range parts {
		var one []byte
		switch {
		case p.Hex != nil && p.Text == nil:
			var err error
			if one, err = hex.DecodeString(strings.Join(strings.Fields(*p.Hex), "")); err != nil {
				t.Fatalf("%s: %q: %v", fixture, *p.Hex, err)
			}
		case p.Text != nil && p.Hex == nil:
			one = []byte(*p.Text)
		default:
			t.Fatalf("%s: a part is either hex or text", fixture)
		}
		n := 1
		if p.Repeat != nil {
			n = *p.Repeat
		}
		out = append(out, bytes.Repeat(one, n)...)
	}
	return out
}

// fixtureCases is every case of the file by format: its own inputs for each dataset, and the
// derived ones from every language's golden vectors of the format.
func fixtureCases(t *testing.T, f fixturesFile) map[string][]fixtureCase {
	t.Helper()
	byFormat := map[string][]fixtureCase{}
	for format, fs := range f.Formats {
		for _, x := range fs {
			name := format + "/" + x.Name
			b := fixtureBytes(t, name, x.Input)
			for _, d := range datasets.All() {
				byFormat[format] = append(byFormat[format], fixtureCase{name, d.ID, b})
			}
		}
	}
	formatOf := map[string]string{}
	for format, ext := range catalogue.FileExtensions {
		formatOf[ext] = format
	}
	entries, err := os.ReadDir(vectorsDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, name := range names {
		parts := strings.Split(name, ".")
		if len(parts) != 3 { // <dataset>.pb is the canonical records, no format's vector
			continue
		}
		dataset, format := parts[0], formatOf[parts[2]]
		if format == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(vectorsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, derived := range f.Derived {
			switch derived {
			case "truncated":
				byFormat[format] = append(byFormat[format], fixtureCase{format + "/truncated of " + name, dataset, b[:len(b)/2]})
			case "empty": // one per dataset, whichever language's vector brought it
				if !slices.ContainsFunc(byFormat[format], func(c fixtureCase) bool { return c.fixture == format+"/empty" && c.dataset == dataset }) {
					byFormat[format] = append(byFormat[format], fixtureCase{format + "/empty", dataset, []byte{}})
				}
			default:
				t.Fatalf("codecs/fixtures.yaml: unknown derived input %q", derived)
			}
		}
	}
	return byFormat
}

// decodeAsTrial is the trial's untimed decode (Check) without the comparison with the canonical
// records: admission, then the mode's decode. accepted says the decode returned records; a decode
// that returned is then verified too (its error ignored: verification refusing what the library
// accepted is still an acceptance), so a panic or hang there counts as well.
func decodeAsTrial(c Codec, r *Records, mode string, payload []byte) (accepted bool, err error) {
	if err := Admit(c, payload); err != nil {
		return false, err
	}
	if mode == Lazy {
		lr, ok := c.(LazyReader)
		if !ok {
			return false, fmt.Errorf("test: codec %s has no lazy reader", c.Info().ID)
		}
		sink := 0
		err := lr.ReadLazy(r, payload, SplitFields(r.Dataset.LazyFields), func(_, _ int, v string) { sink += len(v) })
		return err == nil, err
	}
	got, err := c.Decode(r, mode, payload)
	if err != nil {
		return false, err
	}
	_ = c.Verify(r, mode, got)
	return true, nil
}

// callBounded runs one decode in a goroutine: problem is a panic, an empty error message, a call
// past caseLimit (hung: the goroutine is abandoned) or an allocation past allowedAlloc.
func callBounded(c Codec, r *Records, mode string, payload []byte) (accepted bool, err error, problem string, hung bool) {
	type result struct {
		accepted bool
		err      error
		panicked any
	}
	done := make(chan result, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panicked: p}
			}
		}()
		a, e := decodeAsTrial(c, r, mode, payload)
		done <- result{accepted: a, err: e}
	}()
	timer := time.NewTimer(caseLimit)
	defer timer.Stop()
	var got result
	select {
	case got = <-done:
	case <-timer.C:
		return false, nil, fmt.Sprintf("no answer within %v", caseLimit), true
	}
	runtime.ReadMemStats(&after)
	switch {
	case got.panicked != nil:
		problem = fmt.Sprintf("panicked: %v", got.panicked)
	case got.err != nil && got.err.Error() == "":
		problem = "failed with an empty message"
	case after.TotalAlloc-before.TotalAlloc > allowedAlloc(payload):
		problem = fmt.Sprintf("allocated %d bytes (cap %d)", after.TotalAlloc-before.TotalAlloc, allowedAlloc(payload))
	}
	return got.accepted, got.err, problem, false
}

func TestEveryFixtureIsRefusedByEveryImplementationOfItsFormat(t *testing.T) {
	file := readFixtures(t)
	cases := fixtureCases(t, file)
	records := map[string]*Records{}
	for _, d := range datasets.All() {
		records[d.ID] = golden(t, d.ID)
	}
	var failures []string
	knownUsed := make([]bool, len(file.KnownFailing))
	for _, c := range Registry() {
		id := c.Info().ID
		calls := 0
		for _, cs := range cases[Format(id)] {
			r := records[cs.dataset]
			if r == nil {
				t.Fatalf("%s: no built-in dataset %q", cs.fixture, cs.dataset)
			}
			if Refusal(c, r.Dataset) != "" {
				continue // the worker never plans a dataset its codec refuses
			}
			fixture, _, _ := strings.Cut(cs.fixture, " of ")
			for _, mode := range c.Info().Modes {
				calls++
				what := fmt.Sprintf("%s %s %s as %s", id, mode, cs.fixture, cs.dataset)
				known := slices.IndexFunc(file.KnownFailing, func(k knownFailing) bool { return k.covers(fixture, id, mode) })
				if known >= 0 {
					knownUsed[known] = true
				}
				accepted, err, problem, hung := callBounded(c, r, mode, cs.bytes)
				switch {
				case problem != "":
					failures = append(failures, fmt.Sprintf("%s: %s; input %x", what, problem, cs.bytes[:min(len(cs.bytes), 64)]))
				case accepted && known < 0:
					failures = append(failures, what+": accepted")
				case !accepted && known >= 0:
					failures = append(failures, fmt.Sprintf("%s: refused (%v) though knownFailing lists it as accepted: remove it from knownFailing", what, err))
				}
				if hung { // its goroutine still runs: later timings and allocations would be wrong
					t.Fatalf("%d fixture cases broke the contract, the last one hung:\n  %s", len(failures), strings.Join(failures, "\n  "))
				}
			}
		}
		t.Logf("fixtures %s: %d decode calls", id, calls)
	}
	for i, k := range file.KnownFailing {
		if !k.ours() || knownUsed[i] {
			continue
		}
		for _, c := range Registry() {
			if (k.Implementation == "" || k.Implementation == c.Info().ID) && strings.HasPrefix(k.Fixture, Format(c.Info().ID)+"/") {
				failures = append(failures, fmt.Sprintf("knownFailing %s matches no case here", k.Fixture))
				break
			}
		}
	}
	if len(failures) > 0 {
		t.Fatalf("%d fixture cases broke the contract:\n  %s", len(failures), strings.Join(failures, "\n  "))
	}
}
