package codecs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSON is encoding/json on the generated models (struct tags with the proto JSON names).
type JSON struct{}

func (JSON) Info() Info {
	return described("json")
}

func (JSON) Encode(r *Records) ([]byte, error) { return json.Marshal(r.Model) }

func (JSON) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(payload, m); err != nil {
			return nil, err
		}
		return m, nil
	case Tree:
		return jsonTree(payload)
	}
	return nil, fmt.Errorf("json offers no decode mode %q", mode)
}

func jsonTree(payload []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

func (JSON) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		return verifyTree(r, decoded, json.Marshal, json.Unmarshal)
	}
	return verifyModels(r, decoded)
}
