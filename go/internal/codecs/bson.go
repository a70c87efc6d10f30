package codecs

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"codecbench/go/internal/datasets"
	"go.mongodb.org/mongo-driver/v2/bson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// BSON is go.mongodb.org/mongo-driver/v2/bson on the generated models: one document
// {"records": [...]}, int32 as 0x10, int64 and uint32 as 0x12, float and double as 0x01, bytes as
// binary subtype 0x00, enums as their name (the models' MarshalBSONValue); byte-identical to every
// other language's (the catalogue marks bson deterministic).
type BSON struct{}

func (BSON) Info() Info {
	return described("bson")
}

// Refusal: BSON has no unsigned 64-bit integer (proto/README.md "Payloads").
func (BSON) Refusal(d *datasets.Dataset) string {
	if f := datasets.FirstField(d.Record, func(f protoreflect.FieldDescriptor) bool {
		return f.Kind() == protoreflect.Uint64Kind || f.Kind() == protoreflect.Fixed64Kind
	}); f != nil {
		return fmt.Sprintf("bson: uint64 field %s is not offered", f.FullName())
	}
	return ""
}

// Admit validates the raw document once, untimed: bson.Raw's lookups trust the lengths inside.
func (BSON) Admit(payload []byte) error { return bson.Raw(payload).Validate() }

// ReadLazy reads the fields through bson.Raw, without building a record.
func (BSON) ReadLazy(r *Records, payload []byte, fields [][]string, sink func(rec, field int, v string)) error {
	recs, err := bson.Raw(payload).LookupErr("records")
	if err != nil {
		return fmt.Errorf("no records array: %w", err)
	}
	arr, ok := recs.ArrayOK()
	if !ok {
		return fmt.Errorf("records is BSON type %s, not an array", recs.Type)
	}
	values, err := arr.Values()
	if err != nil {
		return err
	}
	for i, rec := range values {
		for f, path := range fields {
			var v bson.RawValue
			if r.Dataset.BareList {
				row, ok := rec.ArrayOK()
				if !ok {
					return fmt.Errorf("record %d is not an array", i)
				}
				idx, err := strconv.ParseUint(path[0], 10, 32)
				if err != nil {
					return fmt.Errorf("a matrix lazy field is a cell index, not %q", path[0])
				}
				if v, err = row.IndexErr(uint(idx)); err != nil {
					return fmt.Errorf("record %d cell %d: %w", i, idx, err)
				}
			} else {
				doc, ok := rec.DocumentOK()
				if !ok {
					return fmt.Errorf("record %d is not a document", i)
				}
				if v, err = doc.LookupErr(path...); err != nil {
					return fmt.Errorf("record %d field %s: %w", i, strings.Join(path, "."), err)
				}
			}
			s, err := bsonString(v)
			if err != nil {
				return fmt.Errorf("record %d field %s: %w", i, strings.Join(path, "."), err)
			}
			sink(i, f, s)
		}
	}
	return nil
}

// bsonString: a lazy value as a string (integers in decimal, binary in base64).
func bsonString(v bson.RawValue) (string, error) {
	switch v.Type {
	case bson.TypeString:
		return v.StringValue(), nil
	case bson.TypeInt32:
		return strconv.FormatInt(int64(v.Int32()), 10), nil
	case bson.TypeInt64:
		return strconv.FormatInt(v.Int64(), 10), nil
	case bson.TypeDouble:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64), nil
	case bson.TypeBoolean:
		return strconv.FormatBool(v.Boolean()), nil
	case bson.TypeBinary:
		_, b := v.Binary()
		return base64.StdEncoding.EncodeToString(b), nil
	}
	return "", fmt.Errorf("BSON type %s is not a lazy field's", v.Type)
}

func (BSON) Encode(r *Records) ([]byte, error) { return bson.Marshal(r.Model) }

func (BSON) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		return m, bson.Unmarshal(payload, m)
	case Tree:
		var d bson.D
		return d, bson.Unmarshal(payload, &d)
	}
	return nil, fmt.Errorf("bson offers no decode mode %q", mode)
}

func (BSON) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		b, err := bson.Marshal(decoded)
		if err != nil {
			return fmt.Errorf("verification failed: the tree cannot be written back: %w", err)
		}
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return err
		}
		if err := bson.Unmarshal(b, m); err != nil {
			return fmt.Errorf("verification failed: the tree does not hold %s records: %w", r.Dataset.ID, err)
		}
		decoded = m
	}
	return verifyModels(r, decoded)
}
