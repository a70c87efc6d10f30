package codecs

import (
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
)

// JSONv2 is a second implementation of the json format (codec id "json/v2"): the encoding/json/v2
// proposal's reference implementation, github.com/go-json-experiment/json, on the same generated
// models and struct tags as JSON. Not the standard library's GOEXPERIMENT=jsonv2 build: that
// experiment also moves encoding/json (v1) onto the v2 engine, which would change what the json
// codec measures in the same binary.
type JSONv2 struct{}

func (JSONv2) Info() Info {
	return described("json/v2")
}

func (JSONv2) Encode(r *Records) ([]byte, error) { return jsonv2.Marshal(r.Model) }

func (JSONv2) Decode(r *Records, mode string, payload []byte) (any, error) {
	if mode != Typed {
		return nil, fmt.Errorf("json/v2 offers no decode mode %q", mode)
	}
	m, err := NewModel(r.Dataset.ID)
	if err != nil {
		return nil, err
	}
	if err := jsonv2.Unmarshal(payload, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (JSONv2) Verify(r *Records, _ string, decoded any) error { return verifyModels(r, decoded) }
