// Package ubjson is UBJSON (Draft 12, https://ubjson.org/) for the Go worker, written here: the one
// Go library (github.com/jmank88/ubjson) is not served by the module proxy (it lists no version),
// and the format is small; Rust, the browser and Node write their own too. Like encoding/json it
// maps Go values by reflection: struct fields by their `json` tag names (the models' proto JSON
// names), encoding.TextMarshaler values as strings (enums by name), []byte as UBJSON's binary form.
//
// Encoding choices (other writers choose differently; readers compare values, not bytes), those of
// the Rust codec: integers take the smallest marker that holds them (i, U, I, l, L), floats are
// always float64 (D), containers are unsized ([ ] and { }), bytes are `[$U#<n><bytes>`.
package ubjson

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Options: Bare is a struct type written as the plain array of its one field (a bare_list record).
type Options struct {
	Bare reflect.Type
}

// Marshal writes v as UBJSON.
func (o Options) Marshal(v any) ([]byte, error) {
	e := &encoder{out: make([]byte, 0, 256), bare: o.Bare}
	if err := e.value(reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return e.out, nil
}

type encoder struct {
	out  []byte
	bare reflect.Type
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

func (e *encoder) int(v int64) {
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		e.out = append(e.out, 'i', byte(int8(v)))
	case v >= 0 && v <= math.MaxUint8:
		e.out = append(e.out, 'U', byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		e.out = binary.BigEndian.AppendUint16(append(e.out, 'I'), uint16(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e.out = binary.BigEndian.AppendUint32(append(e.out, 'l'), uint32(v))
	default:
		e.out = binary.BigEndian.AppendUint64(append(e.out, 'L'), uint64(v))
	}
}

// str: a string's length and bytes (object keys have no `S` marker).
func (e *encoder) str(s string) {
	e.int(int64(len(s)))
	e.out = append(e.out, s...)
}

func (e *encoder) value(v reflect.Value) error {
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			e.out = append(e.out, 'Z')
			return nil
		}
		if v.Type().Implements(textMarshaler) && v.Kind() == reflect.Pointer {
			return e.text(v)
		}
		return e.value(v.Elem())
	}
	if v.Type().Implements(textMarshaler) {
		return e.text(v)
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.out = append(e.out, 'T')
		} else {
			e.out = append(e.out, 'F')
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.int(v.Int())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		e.int(int64(v.Uint()))
	case reflect.Uint, reflect.Uint64:
		// UBJSON has no unsigned 64-bit integer (the codec refuses uint64 fields).
		if v.Uint() > math.MaxInt64 {
			return fmt.Errorf("ubjson: %d does not fit UBJSON's int64", v.Uint())
		}
		e.int(int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		e.out = binary.BigEndian.AppendUint64(append(e.out, 'D'), math.Float64bits(v.Float()))
	case reflect.String:
		e.out = append(e.out, 'S')
		e.str(v.String())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			e.out = append(e.out, '[', '$', 'U', '#')
			e.int(int64(v.Len()))
			e.out = append(e.out, v.Bytes()...)
			return nil
		}
		return e.array(v)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("ubjson: a map keyed by %s: object keys are strings", v.Type().Key())
		}
		e.out = append(e.out, '{')
		for _, k := range v.MapKeys() {
			e.str(k.String())
			if err := e.value(v.MapIndex(k)); err != nil {
				return err
			}
		}
		e.out = append(e.out, '}')
	case reflect.Struct:
		if v.Type() == e.bare {
			return e.array(v.Field(0))
		}
		e.out = append(e.out, '{')
		for _, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			if f.omitEmpty && fv.IsNil() {
				continue
			}
			e.str(f.name)
			if err := e.value(fv); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		e.out = append(e.out, '}')
	default:
		return fmt.Errorf("ubjson: cannot write a %s", v.Type())
	}
	return nil
}

func (e *encoder) array(v reflect.Value) error {
	e.out = append(e.out, '[')
	for i := 0; i < v.Len(); i++ {
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	e.out = append(e.out, ']')
	return nil
}

func (e *encoder) text(v reflect.Value) error {
	b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
	if err != nil {
		return err
	}
	e.out = append(e.out, 'S')
	e.str(string(b))
	return nil
}

// field is a struct field as UBJSON names it.
type field struct {
	name      string
	index     int
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type -> []field

// fieldsOf: the exported fields with a `json` name, in declaration order (cached per type).
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, field{name: name, index: i, omitEmpty: opts == "omitempty" && sf.Type.Kind() == reflect.Pointer})
	}
	fieldCache.Store(t, fs)
	return fs
}
