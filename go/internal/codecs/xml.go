package codecs

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// XML is encoding/xml on the generated models (the `xml` struct tags: every field an element
// named by its proto JSON name, repeated fields unwrapped, enums by name through MarshalText),
// under one root <payload> (proto/README.md "Payloads").
type XML struct{}

var payloadStart = xml.StartElement{Name: xml.Name{Local: "payload"}}

func (XML) Info() Info {
	return described("xml")
}

// Refusal: encoding/xml writes a []byte as raw text, not the base64 the payload rules ask for.
func (XML) Refusal(d *datasets.Dataset) string {
	if f := datasets.FirstField(d.Record, func(f protoreflect.FieldDescriptor) bool { return f.Kind() == protoreflect.BytesKind }); f != nil {
		return fmt.Sprintf("xml: bytes field %s is not offered by the Go worker yet", f.FullName())
	}
	return ""
}

func (XML) Encode(r *Records) ([]byte, error) {
	var b bytes.Buffer
	enc := xml.NewEncoder(&b)
	if err := enc.EncodeElement(r.Model, payloadStart); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (XML) Decode(r *Records, mode string, payload []byte) (any, error) {
	if mode != Typed {
		return nil, fmt.Errorf("xml offers no decode mode %q", mode)
	}
	m, err := NewModel(r.Dataset.ID)
	if err != nil {
		return nil, err
	}
	dec := xml.NewDecoder(bytes.NewReader(payload))
	for {
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("no <payload> element")
			}
			return nil, err
		}
		if start, ok := tok.(xml.StartElement); ok {
			if start.Name.Local != "payload" {
				return nil, fmt.Errorf("the root element is <%s>, not <payload>", start.Name.Local)
			}
			if err := dec.DecodeElement(m, &start); err != nil {
				return nil, err
			}
			return m, nil
		}
	}
}

func (XML) Verify(r *Records, mode string, decoded any) error { return verifyModels(r, decoded) }
