package codecs

import (
	"fmt"

	"github.com/bytedance/sonic"
)

// JSONSonic is a third implementation of the json format (codec id "json/sonic"): bytedance/sonic,
// a JIT and SIMD JSON library that Go services pick for speed, with its default configuration
// (what sonic.Marshal and sonic.Unmarshal use) on the generated models JSON uses. The tree reads
// numbers as json.Number, as JSON's tree does, so 64-bit integers keep every digit.
type JSONSonic struct{}

var sonicTree = sonic.Config{UseNumber: true}.Froze()

func (JSONSonic) Info() Info {
	return described("json/sonic")
}

func (JSONSonic) Encode(r *Records) ([]byte, error) { return sonic.Marshal(r.Model) }

func (JSONSonic) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		return m, sonic.Unmarshal(payload, m)
	case Tree:
		var v any
		err := sonicTree.Unmarshal(payload, &v)
		return v, err
	}
	return nil, fmt.Errorf("json/sonic offers no decode mode %q", mode)
}

func (JSONSonic) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		return verifyTree(r, decoded, sonic.Marshal, sonic.Unmarshal)
	}
	return verifyModels(r, decoded)
}
