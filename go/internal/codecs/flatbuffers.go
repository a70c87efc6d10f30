package codecs

import (
	"fmt"

	"codecbench/go/gen/fbmap"
	"codecbench/go/internal/datasets"
	flatbuffers "github.com/google/flatbuffers/go"
)

// Flatbuffers is github.com/google/flatbuffers/go (v25.12.19) on flatc 25.12.19's Go for the schema
// `flatc --proto` makes of datasets.proto (the schema Rust, Java and the browser use: field k of a
// table is the message's k-th field, enums by number, proto3 `optional` scalars `= null`). The
// payload is the dataset's *Dataset table as the root, no file identifier. go/gen/fbmap, generated
// from the descriptors, calls flatc's builders and accessors: the code an application writes.
type Flatbuffers struct{}

func (Flatbuffers) Info() Info {
	return described("flatbuffers")
}

// Refusal: the tables are flatc's of datasets.proto, so a user's schema has none (as in Rust).
func (Flatbuffers) Refusal(d *datasets.Dataset) string {
	if _, ok := fbmap.Datasets[d.ID]; !ok || d.User {
		return fmt.Sprintf("flatbuffers: a user's schema (%s) is not offered: the Go tables are flatc's, generated from datasets.proto at build time", d.Record.FullName())
	}
	return ""
}

func (Flatbuffers) mapping(r *Records) (fbmap.Dataset, error) {
	m, ok := fbmap.Datasets[r.Dataset.ID]
	if !ok || r.Dataset.User {
		return m, fmt.Errorf("flatbuffers has no tables for dataset %q", r.Dataset.ID)
	}
	return m, nil
}

func (c Flatbuffers) Encode(r *Records) ([]byte, error) {
	m, err := c.mapping(r)
	if err != nil {
		return nil, err
	}
	b := flatbuffers.NewBuilder(1024)
	b.Finish(m.Encode(b, r.Model))
	return b.FinishedBytes(), nil
}

func (c Flatbuffers) Decode(r *Records, mode string, payload []byte) (any, error) {
	if mode != Typed {
		return nil, fmt.Errorf("flatbuffers offers no decode mode %q here (lazy reads fields in place)", mode)
	}
	m, err := c.mapping(r)
	if err != nil {
		return nil, err
	}
	if err := verifyFlatbuffer(payload, r.Dataset.List.Descriptor()); err != nil {
		return nil, err
	}
	list, err := NewModel(r.Dataset.ID)
	if err != nil {
		return nil, err
	}
	m.Decode(payload, list)
	return list, nil
}

func (Flatbuffers) Verify(r *Records, _ string, decoded any) error { return verifyModels(r, decoded) }

// ReadLazy verifies the buffer, then reads each path of every record through the accessors.
func (c Flatbuffers) ReadLazy(r *Records, payload []byte, fields [][]string, sink func(rec, field int, v string)) error {
	m, err := c.mapping(r)
	if err != nil {
		return err
	}
	if err := verifyFlatbuffer(payload, r.Dataset.List.Descriptor()); err != nil {
		return err
	}
	return m.Lazy(payload, fields, sink)
}
