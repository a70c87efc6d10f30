package codecs

import (
	"encoding"
	"encoding/base64"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// LazyReader is a codec with a lazy mode: for every record of the payload it reads each of the
// lazy fields as a string (integers in decimal, bytes in base64, an enum by its name) without
// building the record, and hands it to the sink (proto/README.md "Decode modes").
type LazyReader interface {
	// ReadLazy calls sink(record, field index, value) for every record and field, in order.
	ReadLazy(r *Records, payload []byte, fields [][]string, sink func(rec, field int, v string)) error
}

// SplitFields turns dotted lazy-field paths into their parts (outside any timed region).
func SplitFields(fields []string) [][]string {
	out := make([][]string, len(fields))
	for i, f := range fields {
		out[i] = strings.Split(f, ".")
	}
	return out
}

// LazyExpected reads the lazy fields from the canonical models: [field][record] values.
func LazyExpected(r *Records, fields []string) ([][]string, error) {
	recs := reflect.ValueOf(r.Model).Elem().Field(0)
	out := make([][]string, len(fields))
	for fi, f := range fields {
		for i := 0; i < recs.Len(); i++ {
			v, err := lazyModelValue(recs.Index(i), strings.Split(f, "."), r.Dataset.BareList)
			if err != nil {
				return nil, fmt.Errorf("%s records have no lazy field %q: %w", r.Dataset.ID, f, err)
			}
			out[fi] = append(out[fi], v)
		}
	}
	return out, nil
}

func lazyModelValue(v reflect.Value, path []string, bare bool) (string, error) {
	if bare {
		idx, err := strconv.Atoi(path[0])
		cells := v.Field(0)
		if err != nil || idx < 0 || idx >= cells.Len() {
			return "", fmt.Errorf("no cell %s", path[0])
		}
		return lazyString(cells.Index(idx))
	}
	for _, p := range path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return "", fmt.Errorf("%s is unset", p)
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return "", fmt.Errorf("%s is not inside a message", p)
		}
		found := false
		for i := 0; i < v.NumField(); i++ {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); name == p {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return "", fmt.Errorf("no field %s", p)
		}
	}
	return lazyString(v)
}

func lazyString(v reflect.Value) (string, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", fmt.Errorf("unset")
		}
		v = v.Elem()
	}
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		return string(b), err
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 32), nil
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), nil
		}
	}
	return "", fmt.Errorf("a %s is not a lazy field", v.Type())
}

// Check decodes the payload in `mode` and compares it with the canonical records (untimed
// verification; lazy reads `lazyFields` and compares the values).
func Check(c Codec, r *Records, mode string, payload []byte, lazyFields []string) error {
	if err := Admit(c, payload); err != nil {
		return fmt.Errorf("decode failed: %w", err)
	}
	if mode != Lazy {
		got, err := c.Decode(r, mode, payload)
		if err != nil {
			return fmt.Errorf("decode failed: %w", err)
		}
		return c.Verify(r, mode, got)
	}
	lr, ok := c.(LazyReader)
	if !ok {
		return fmt.Errorf("codec %s has no lazy reader", c.Info().ID)
	}
	if len(lazyFields) == 0 {
		return fmt.Errorf("a lazy decode task must name its lazy_fields")
	}
	want, err := LazyExpected(r, lazyFields)
	if err != nil {
		return err
	}
	got := make([][]string, len(lazyFields))
	err = lr.ReadLazy(r, payload, SplitFields(lazyFields), func(_, f int, v string) { got[f] = append(got[f], v) })
	if err != nil {
		return fmt.Errorf("decode failed: %w", err)
	}
	for f, name := range lazyFields {
		if len(got[f]) != len(want[f]) {
			return fmt.Errorf("verification failed: lazy field %s: read %d values, expected %d", name, len(got[f]), len(want[f]))
		}
		for i := range want[f] {
			if got[f][i] != want[f][i] {
				return fmt.Errorf("verification failed: record %d lazy field %s: expected %q but read %q", i, name, want[f][i], got[f][i])
			}
		}
	}
	return nil
}

// Op is one timed decode in `mode`; lazy hands every value to a sink that touches it.
func Op(c Codec, r *Records, mode string, payload []byte, lazyFields []string) func() (any, error) {
	if mode != Lazy {
		return func() (any, error) { return c.Decode(r, mode, payload) }
	}
	lr, _ := c.(LazyReader)
	paths := SplitFields(lazyFields)
	return func() (any, error) {
		sink := 0
		err := lr.ReadLazy(r, payload, paths, func(_, _ int, v string) { sink += len(v) })
		return sink, err
	}
}
