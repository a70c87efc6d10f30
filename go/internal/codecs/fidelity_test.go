package codecs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Go's testing.B as the yardstick for the Go cells of `make fidelity` (docs/fidelity.md), as
// criterion is for Rust and JMH for Java: the same calls a trial times (Encode of the models, the
// typed decode of the Rust producer's payload, codecs.Op), on the same data. Data: the canonical
// blob of (dataset, 1000 records, seed 1) and the Rust payloads, as the Rust fidelity bench writes
// them into $CODECBENCH_FIDELITY_DIR; both verified before timing. Without that folder the
// benchmark skips (`go test -bench .` alone has nothing to time). harness/codecbench/fidelity.py
// runs it with -count (each count one sample, as JMH's iterations) and -cpu 1 (a trial process is
// pinned to one CPU, so GOMAXPROCS is 1 there too).
var (
	fidelityDatasets = []string{"dummy", "numeric"}
	fidelityCodecs   = []string{"json", "bson", "protobuf"}
	fidelitySink     any
)

const fidelityCount, fidelitySeed = 1000, 1

func BenchmarkFidelity(b *testing.B) {
	dir := os.Getenv("CODECBENCH_FIDELITY_DIR")
	if dir == "" {
		b.Skip("CODECBENCH_FIDELITY_DIR is not set: the Rust fidelity bench writes the canonical blobs and payloads there (make fidelity)")
	}
	for _, dataset := range fidelityDatasets {
		stem := fmt.Sprintf("%s-%d-%d", dataset, fidelityCount, fidelitySeed)
		r := loadFile(b, dataset, filepath.Join(dir, stem+".pb"))
		if r.Count != fidelityCount {
			b.Fatalf("%s.pb holds %d records, not %d", stem, r.Count, fidelityCount)
		}
		for _, id := range fidelityCodecs {
			c := Find(id)
			// Verified before timing, as a trial does: our own payload reads back, and the Rust
			// payload decodes to the canonical records.
			own, err := c.Encode(r)
			if err == nil {
				err = Check(c, r, Typed, own, nil)
			}
			if err != nil {
				b.Fatalf("%s %s: our payload: %v", stem, id, err)
			}
			rust, err := os.ReadFile(filepath.Join(dir, stem+"."+id+".rust"))
			if err != nil {
				b.Fatal(err)
			}
			if err := Check(c, r, Typed, rust, nil); err != nil {
				b.Fatalf("%s %s: the Rust payload: %v", stem, id, err)
			}
			b.Run(dataset+"/"+id+"/encode", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					fidelitySink, _ = c.Encode(r)
				}
			})
			decode := Op(c, r, Typed, rust, nil)
			b.Run(dataset+"/"+id+"/decode-typed", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					fidelitySink, _ = decode()
				}
			})
		}
	}
}
