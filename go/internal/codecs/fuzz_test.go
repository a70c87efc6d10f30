package codecs

import (
	"os"
	"path/filepath"
	"testing"

	"codecbench/go/internal/datasets"
)

// FuzzDecode: any bytes, given to any codec in any mode on any dataset, pass or fail the untimed
// check (admission, decode, verification) with an error: never a panic, never an allocation the
// payload does not justify. `go test` runs the seeds (every codec's payload of every dataset);
// `make fuzz` runs the fuzzer (FUZZ_CASES inputs).
func FuzzDecode(f *testing.F) {
	codecs, sets := Registry(), datasets.All()
	records := make([]*Records, len(sets))
	for di, d := range sets {
		raw, err := os.ReadFile(filepath.Join(vectorsDir, d.ID+".pb"))
		if err != nil {
			f.Fatal(err)
		}
		if records[di], err = Load(d.ID, raw); err != nil {
			f.Fatal(err)
		}
		for ci, c := range codecs {
			payload, err := c.Encode(records[di])
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(ci), uint8(di), payload)
		}
	}
	f.Fuzz(func(t *testing.T, ci, di uint8, payload []byte) {
		c, r := codecs[int(ci)%len(codecs)], records[int(di)%len(records)]
		for _, mode := range c.Info().Modes {
			_ = Check(c, r, mode, payload, r.Dataset.LazyFields)
		}
	})
}
