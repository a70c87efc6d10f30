package codecs

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// verifyFlatbuffer checks a whole buffer against the dataset's tables before any accessor reads it.
// The Go FlatBuffers runtime (v25.12.19) has no verifier and flatc generates none for Go, and its
// accessors index the buffer unchecked (a bad offset panics or reads another object), so these are
// the checks the C++/Rust verifiers make: every table's vtable, every field inside its table,
// every offset, string (UTF-8, NUL-terminated) and vector inside the buffer, nesting at most 64
// deep, and at most one object visited per 4 bytes of payload, so shared offsets cannot make a
// few KiB read as gigabytes of records. Field k of a table is the k-th field of the message
// (flatc --proto declares them in .proto order).
func verifyFlatbuffer(buf []byte, root protoreflect.MessageDescriptor) error {
	v := &fbVerifier{buf: buf, budget: len(buf)/4 + 1}
	if len(buf) < 8 {
		return fmt.Errorf("flatbuffers: %d bytes is no buffer", len(buf))
	}
	pos, err := v.target(0)
	if err != nil {
		return fmt.Errorf("flatbuffers: root: %w", err)
	}
	return v.table(pos, root, 0)
}

type fbVerifier struct {
	buf    []byte
	budget int
}

func (v *fbVerifier) u32(at uint64) (uint64, error) {
	if at+4 > uint64(len(v.buf)) {
		return 0, fmt.Errorf("offset %d past the end (%d bytes)", at, len(v.buf))
	}
	return uint64(binary.LittleEndian.Uint32(v.buf[at:])), nil
}

// target follows the uoffset stored at `at`.
func (v *fbVerifier) target(at uint64) (uint64, error) {
	off, err := v.u32(at)
	if err != nil {
		return 0, err
	}
	if off == 0 || at+off >= uint64(len(v.buf)) {
		return 0, fmt.Errorf("offset at %d points to %d, outside the buffer", at, at+off)
	}
	return at + off, nil
}

func (v *fbVerifier) spend(what string, at uint64) error {
	if v.budget--; v.budget < 0 {
		return fmt.Errorf("%s at %d: more objects than the payload's size allows", what, at)
	}
	return nil
}

func (v *fbVerifier) table(pos uint64, m protoreflect.MessageDescriptor, depth int) error {
	if depth > 64 {
		return fmt.Errorf("flatbuffers: tables nested deeper than 64 at %d", pos)
	}
	if err := v.spend("table "+string(m.Name()), pos); err != nil {
		return err
	}
	soff, err := v.u32(pos)
	if err != nil {
		return fmt.Errorf("flatbuffers: table %s: %w", m.Name(), err)
	}
	vt := int64(pos) - int64(int32(uint32(soff)))
	if vt < 0 || vt+4 > int64(len(v.buf)) {
		return fmt.Errorf("flatbuffers: table %s at %d: vtable at %d outside the buffer", m.Name(), pos, vt)
	}
	vtLen := uint64(binary.LittleEndian.Uint16(v.buf[vt:]))
	objLen := uint64(binary.LittleEndian.Uint16(v.buf[vt+2:]))
	if vtLen < 4 || vtLen%2 != 0 || uint64(vt)+vtLen > uint64(len(v.buf)) || objLen < 4 || pos+objLen > uint64(len(v.buf)) {
		return fmt.Errorf("flatbuffers: table %s at %d: vtable (%d bytes) or object (%d bytes) outside the buffer", m.Name(), pos, vtLen, objLen)
	}
	fs := m.Fields()
	for k := 0; k < fs.Len(); k++ {
		slot := uint64(4 + 2*k)
		if slot+2 > vtLen {
			break
		}
		fo := uint64(binary.LittleEndian.Uint16(v.buf[uint64(vt)+slot:]))
		if fo == 0 {
			continue // absent
		}
		f := fs.Get(k)
		size := fbFieldSize(f)
		if fo < 4 || fo+size > objLen {
			return fmt.Errorf("flatbuffers: %s.%s: field at %d is outside its table", m.Name(), f.Name(), fo)
		}
		if err := v.field(pos+fo, f, depth); err != nil {
			return fmt.Errorf("flatbuffers: %s.%s: %w", m.Name(), f.Name(), err)
		}
	}
	return nil
}

// fbFieldSize is the bytes a field takes inside its table: a scalar's width, else a uoffset.
func fbFieldSize(f protoreflect.FieldDescriptor) uint64 {
	if f.IsList() || f.Message() != nil || f.Kind() == protoreflect.StringKind || f.Kind() == protoreflect.BytesKind {
		return 4
	}
	size, _ := fbScalarSize(f)
	return size
}

func fbScalarSize(f protoreflect.FieldDescriptor) (uint64, bool) {
	switch f.Kind() {
	case protoreflect.BoolKind:
		return 1, true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind, protoreflect.DoubleKind:
		return 8, true
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return 4, false
	}
	return 4, true
}

// field checks what a field's offset leads to (scalars are inside the table, checked above).
func (v *fbVerifier) field(at uint64, f protoreflect.FieldDescriptor, depth int) error {
	size, scalar := fbScalarSize(f)
	switch {
	case f.IsList():
		vec, n, err := v.vector(at, size)
		if err != nil {
			return err
		}
		if scalar {
			return nil
		}
		for i := uint64(0); i < n; i++ {
			if err := v.element(vec+4+4*i, f, depth); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	case scalar:
		return nil
	}
	return v.element(at, f, depth)
}

// element checks one string, bytes or table a uoffset at `at` leads to.
func (v *fbVerifier) element(at uint64, f protoreflect.FieldDescriptor, depth int) error {
	switch f.Kind() {
	case protoreflect.StringKind:
		s, n, err := v.vector(at, 1)
		if err != nil {
			return err
		}
		if s+4+n >= uint64(len(v.buf)) || v.buf[s+4+n] != 0 {
			return fmt.Errorf("string at %d has no terminating NUL", s)
		}
		if !utf8.Valid(v.buf[s+4 : s+4+n]) {
			return fmt.Errorf("string at %d is not UTF-8", s)
		}
		return nil
	case protoreflect.BytesKind:
		_, _, err := v.vector(at, 1)
		return err
	}
	pos, err := v.target(at)
	if err != nil {
		return err
	}
	return v.table(pos, f.Message(), depth+1)
}

// vector follows the uoffset at `at` to a vector of `elem`-byte items and checks it fits.
func (v *fbVerifier) vector(at, elem uint64) (uint64, uint64, error) {
	vec, err := v.target(at)
	if err != nil {
		return 0, 0, err
	}
	if err := v.spend("vector", vec); err != nil {
		return 0, 0, err
	}
	n, err := v.u32(vec)
	if err != nil {
		return 0, 0, err
	}
	if vec+4+n*elem > uint64(len(v.buf)) {
		return 0, 0, fmt.Errorf("vector at %d of %d items runs past the end", vec, n)
	}
	return vec, n, nil
}
