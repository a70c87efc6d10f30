package codecs

import (
	"codecbench/go/internal/datasets"
	"codecbench/go/internal/usermodels"
)

// LoadUserDataset registers a user's dataset from its manifest (dataset.json) and builds its
// models; what they cannot carry becomes each schema-less codec's refusal (Refusal).
func LoadUserDataset(manifest string) (*datasets.Dataset, error) {
	d, err := datasets.LoadUser(manifest)
	if err != nil {
		return nil, err
	}
	usermodels.Build(d)
	return d, nil
}
