package codecs

import (
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// CBOR is fxamacker/cbor/v2 on the generated models (struct tags with the proto JSON names; enums
// as text strings through their MarshalText/UnmarshalText, bare-list records through the models'
// MarshalCBOR/UnmarshalCBOR).
type CBOR struct{}

var (
	cborEnc = mustEnc(cbor.EncOptions{TextMarshaler: cbor.TextMarshalerTextString})
	cborDec = mustDec(cbor.DecOptions{TextUnmarshaler: cbor.TextUnmarshalerTextString})
)

func mustEnc(o cbor.EncOptions) cbor.EncMode {
	m, err := o.EncMode()
	if err != nil {
		panic(err)
	}
	return m
}

func mustDec(o cbor.DecOptions) cbor.DecMode {
	m, err := o.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}

func (CBOR) Info() Info {
	return described("cbor")
}

func (CBOR) Encode(r *Records) ([]byte, error) { return cborEnc.Marshal(r.Model) }

func (CBOR) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		return m, cborDec.Unmarshal(payload, m)
	case Tree:
		var v any
		return v, cborDec.Unmarshal(payload, &v)
	}
	return nil, fmt.Errorf("cbor offers no decode mode %q", mode)
}

func (CBOR) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		return verifyTree(r, decoded, cborEnc.Marshal, cborDec.Unmarshal)
	}
	return verifyModels(r, decoded)
}
