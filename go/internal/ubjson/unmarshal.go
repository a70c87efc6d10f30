package ubjson

import (
	"encoding"
	"math"
	"reflect"
)

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// Unmarshal reads a payload into the value `out` points at, by reflection (fields by their `json`
// names; keys the type does not have are skipped, as encoding/json does).
func (o Options) Unmarshal(payload []byte, out any) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return newDecoder(nil).errorf("Unmarshal needs a non-nil pointer, not %T", out)
	}
	d := newDecoder(payload)
	m, err := d.marker("value")
	if err != nil {
		return err
	}
	if err := d.into(m, v.Elem(), o.Bare); err != nil {
		return err
	}
	return d.end()
}

func (d *decoder) into(m byte, v reflect.Value, bare reflect.Type) error {
	t := v.Type()
	if v.Kind() == reflect.Pointer {
		if m == 'Z' {
			v.SetZero()
			return nil
		}
		p := reflect.New(t.Elem())
		if err := d.into(m, p.Elem(), bare); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		s, err := d.stringOf(m, t)
		if err != nil {
			return err
		}
		return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	switch v.Kind() {
	case reflect.Bool:
		if m != 'T' && m != 'F' {
			return d.mismatch(m, t)
		}
		v.SetBool(m == 'T')
		return nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		n, ok, err := d.intOf(m)
		if err != nil || !ok {
			return orMismatch(err, d, m, t)
		}
		if v.OverflowInt(n) {
			return d.errorf("%d at offset %d overflows %s", n, d.pos, t)
		}
		v.SetInt(n)
		return nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		n, ok, err := d.intOf(m)
		if err != nil || !ok {
			return orMismatch(err, d, m, t)
		}
		if n < 0 || v.OverflowUint(uint64(n)) {
			return d.errorf("%d at offset %d does not fit %s", n, d.pos, t)
		}
		v.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		f, ok, err := d.float(m)
		if !ok && err == nil {
			var n int64
			if n, ok, err = d.intOf(m); ok {
				f = float64(n)
			}
		}
		if err != nil || !ok {
			return orMismatch(err, d, m, t)
		}
		if v.Kind() == reflect.Float32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return d.errorf("%g at offset %d overflows float32", f, d.pos)
		}
		v.SetFloat(f)
		return nil
	case reflect.String:
		s, err := d.stringOf(m, t)
		if err != nil {
			return err
		}
		v.SetString(s)
		return nil
	case reflect.Slice:
		return d.slice(m, v, bare)
	case reflect.Struct:
		if t == bare {
			return d.slice(m, v.Field(0), bare)
		}
		return d.object(m, v, bare)
	}
	return d.errorf("cannot read into a %s", t)
}

func orMismatch(err error, d *decoder, m byte, t reflect.Type) error {
	if err != nil {
		return err
	}
	return d.mismatch(m, t)
}

func (d *decoder) mismatch(m byte, t reflect.Type) error {
	return d.errorf("marker %q at offset %d where a %s was expected", m, d.pos-1, t)
}

func (d *decoder) stringOf(m byte, t reflect.Type) (string, error) {
	switch m {
	case 'S':
		return d.strBody("string length")
	case 'C':
		return d.char()
	}
	return "", d.mismatch(m, t)
}

// slice: an array into a slice; []byte from an optimised array of uint8 (or any integer array).
func (d *decoder) slice(m byte, v reflect.Value, bare reflect.Type) error {
	if m != '[' {
		return d.mismatch(m, v.Type())
	}
	ty, left, err := d.open()
	if err != nil {
		return err
	}
	if ty == 'U' && v.Type().Elem().Kind() == reflect.Uint8 {
		b, err := d.take(left, "uint8 array")
		d.depth--
		v.SetBytes(append([]byte{}, b...))
		return err
	}
	n := 0
	if left > 0 {
		n = min(left, 1<<16) // a count says how many follow; capacity grows as they come
	}
	s := reflect.MakeSlice(v.Type(), 0, n)
	for i := 0; ; i++ {
		more, err := d.next(&left, ']')
		if err != nil {
			return err
		}
		if !more {
			break
		}
		em, err := d.elemMarker(ty)
		if err != nil {
			return err
		}
		s = reflect.Append(s, reflect.Zero(v.Type().Elem()))
		if err := d.into(em, s.Index(i), bare); err != nil {
			return err
		}
	}
	d.depth--
	v.Set(s)
	return nil
}

// object: an object into a struct, fields by name; unknown keys are read and dropped.
func (d *decoder) object(m byte, v reflect.Value, bare reflect.Type) error {
	if m != '{' {
		return d.mismatch(m, v.Type())
	}
	ty, left, err := d.open()
	if err != nil {
		return err
	}
	fs := fieldsOf(v.Type())
	for {
		more, err := d.next(&left, '}')
		if err != nil {
			return err
		}
		if !more {
			break
		}
		k, err := d.strBody("key length")
		if err != nil {
			return err
		}
		em, err := d.elemMarker(ty)
		if err != nil {
			return err
		}
		idx := -1
		for _, f := range fs {
			if f.name == k {
				idx = f.index
				break
			}
		}
		if idx < 0 {
			if _, err := d.tree(em); err != nil {
				return err
			}
			continue
		}
		if err := d.into(em, v.Field(idx), bare); err != nil {
			return err
		}
	}
	d.depth--
	return nil
}
