package codecs

import (
	"fmt"
	"os"
	"path/filepath"

	"codecbench/go/gen/catalogue"
	"codecbench/go/internal/datasets"
)

// WriteVectors writes `<dataset>.go.<ext>` (the format's catalogue fileExtension) into dir for every format and every dataset whose
// golden records (`<dataset>.pb`, written by the harness) are there: the Go worker's vectors,
// which every other language's tests decode. A format's vector is its reference implementation's
// (the codec whose id is the format); another implementation (json/v2) reads every language's
// vectors of its format in the tests. It returns how many files it wrote.
func WriteVectors(dir string) (int, error) {
	n := 0
	for _, d := range datasets.All() {
		raw, err := os.ReadFile(filepath.Join(dir, d.ID+".pb"))
		if err != nil {
			return n, err
		}
		r, err := Load(d.ID, raw)
		if err != nil {
			return n, fmt.Errorf("%s.pb: %w", d.ID, err)
		}
		for _, c := range Registry() {
			if Refusal(c, d) != "" || Format(c.Info().ID) != c.Info().ID {
				continue
			}
			payload, err := c.Encode(r)
			if err != nil {
				return n, fmt.Errorf("%s %s: %w", d.ID, c.Info().ID, err)
			}
			if err := os.WriteFile(filepath.Join(dir, VectorFile(d.ID, c.Info().ID, "go")), payload, 0o644); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// VectorFile is a golden vector's file name: `<dataset>.<language>.<ext>` of the codec's format,
// so tools read owners.go.json as JSON.
func VectorFile(dataset, codec, language string) string {
	ext, ok := catalogue.FileExtensions[Format(codec)]
	if !ok {
		panic("codecs/catalogue.yaml gives format " + Format(codec) + " no fileExtension")
	}
	return dataset + "." + language + "." + ext
}
