package ubjson

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"
)

// maxDepth: containers nested deeper are refused instead of exhausting the stack.
const maxDepth = 128

// maxFree: elements of `$Z`/`$T`/`$F`/`$N` containers (no payload: the type says it all) one input
// may declare. Draft 12 lets 14 bytes declare 2^63 of them; every other element takes input bytes,
// so this bounds a decode's work and memory by the input's size (as the Rust codec does).
const maxFree = 1 << 16

// decoder reads one value; every length and count is checked against what the input holds before
// anything is allocated for it.
type decoder struct {
	in    []byte
	pos   int
	depth int
	free  int
}

func newDecoder(in []byte) *decoder { return &decoder{in: in, free: maxFree} }

func (d *decoder) errorf(f string, a ...any) error {
	return fmt.Errorf("ubjson: "+f, a...)
}

func (d *decoder) take(n int, what string) ([]byte, error) {
	if n < 0 || n > len(d.in)-d.pos {
		return nil, d.errorf("unexpected end of input reading %s at offset %d", what, d.pos)
	}
	b := d.in[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *decoder) skipNoops() {
	for d.pos < len(d.in) && d.in[d.pos] == 'N' {
		d.pos++
	}
}

func (d *decoder) marker(what string) (byte, error) {
	d.skipNoops()
	b, err := d.take(1, what)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// end checks that only no-ops follow the value.
func (d *decoder) end() error {
	d.skipNoops()
	if d.pos != len(d.in) {
		return d.errorf("%d bytes after the value at offset %d", len(d.in)-d.pos, d.pos)
	}
	return nil
}

// intOf reads the integer a marker announces; ok is false for a marker that is no integer.
func (d *decoder) intOf(m byte) (v int64, ok bool, err error) {
	var b []byte
	switch m {
	case 'i':
		b, err = d.take(1, "int8")
		if err == nil {
			v = int64(int8(b[0]))
		}
	case 'U':
		b, err = d.take(1, "uint8")
		if err == nil {
			v = int64(b[0])
		}
	case 'I':
		b, err = d.take(2, "int16")
		if err == nil {
			v = int64(int16(binary.BigEndian.Uint16(b)))
		}
	case 'l':
		b, err = d.take(4, "int32")
		if err == nil {
			v = int64(int32(binary.BigEndian.Uint32(b)))
		}
	case 'L':
		b, err = d.take(8, "int64")
		if err == nil {
			v = int64(binary.BigEndian.Uint64(b))
		}
	default:
		return 0, false, nil
	}
	return v, err == nil, err
}

// length reads a length or count: an integer, never negative; a length never past the input.
func (d *decoder) length(what string) (int, error) {
	at := d.pos
	m, err := d.marker(what)
	if err != nil {
		return 0, err
	}
	n, ok, err := d.intOf(m)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, d.errorf("%s at offset %d has marker %q, not an integer", what, at, m)
	}
	if n < 0 {
		return 0, d.errorf("negative %s %d at offset %d", what, n, at)
	}
	if n > int64(len(d.in)-d.pos) && what != "count" {
		return 0, d.errorf("%s %d at offset %d runs past the end of the input", what, n, at)
	}
	return int(n), nil
}

// strBody: a string's length and UTF-8 bytes (after `S` or `H`, or an object key).
func (d *decoder) strBody(what string) (string, error) {
	n, err := d.length(what)
	if err != nil {
		return "", err
	}
	at := d.pos
	b, err := d.take(n, what)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", d.errorf("%s at offset %d is not UTF-8", what, at)
	}
	return string(b), nil
}

// header: after `[` or `{`, an optional `$` type and `#` count (count -1: unsized).
func (d *decoder) header() (ty byte, count int, err error) {
	count = -1
	if d.pos < len(d.in) && d.in[d.pos] == '$' {
		d.pos++
		b, err := d.take(1, "container type")
		if err != nil {
			return 0, 0, err
		}
		ty = b[0]
		if d.pos >= len(d.in) || d.in[d.pos] != '#' {
			return 0, 0, d.errorf("container with a $ type needs a # count at offset %d", d.pos)
		}
	}
	if d.pos < len(d.in) && d.in[d.pos] == '#' {
		d.pos++
		if count, err = d.length("count"); err != nil {
			return 0, 0, err
		}
		switch ty {
		case 'Z', 'T', 'F', 'N':
			if d.free -= count; d.free < 0 {
				return 0, 0, d.errorf("count %d at offset %d takes the input past %d payload-less elements", count, d.pos, maxFree)
			}
		default:
			if count > len(d.in)-d.pos {
				return 0, 0, d.errorf("count %d at offset %d is more than the input holds", count, d.pos)
			}
		}
	}
	return ty, count, nil
}

// open enters a container (depth-checked) and reads its header.
func (d *decoder) open() (byte, int, error) {
	if d.depth++; d.depth > maxDepth {
		return 0, 0, d.errorf("containers nested deeper than %d", maxDepth)
	}
	return d.header()
}

// next says whether another element of a container follows, consuming an unsized one's close
// marker; `left` counts down a sized one.
func (d *decoder) next(left *int, close byte) (bool, error) {
	if *left >= 0 {
		if *left == 0 {
			return false, nil
		}
		*left--
		return true, nil
	}
	d.skipNoops()
	if d.pos >= len(d.in) {
		return false, d.errorf("unexpected end of input: %q missing", close)
	}
	if d.in[d.pos] == close {
		d.pos++
		return false, nil
	}
	return true, nil
}

// elemMarker: the marker of a container's next element (implied by a `$` type).
func (d *decoder) elemMarker(ty byte) (byte, error) {
	if ty != 0 {
		return ty, nil
	}
	return d.marker("value")
}

func (d *decoder) float(m byte) (float64, bool, error) {
	switch m {
	case 'd':
		b, err := d.take(4, "float32")
		if err != nil {
			return 0, false, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), true, nil
	case 'D':
		b, err := d.take(8, "float64")
		if err != nil {
			return 0, false, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b)), true, nil
	}
	return 0, false, nil
}

// Tree reads a payload into Go's generic values: nil, bool, int64, float64, string (S, C, H),
// []byte (an optimised array of uint8), []any, map[string]any.
func Tree(payload []byte) (any, error) {
	d := newDecoder(payload)
	m, err := d.marker("value")
	if err != nil {
		return nil, err
	}
	v, err := d.tree(m)
	if err != nil {
		return nil, err
	}
	return v, d.end()
}

func (d *decoder) tree(m byte) (any, error) {
	if v, ok, err := d.intOf(m); ok || err != nil {
		return v, err
	}
	if v, ok, err := d.float(m); ok || err != nil {
		return v, err
	}
	switch m {
	case 'Z':
		return nil, nil
	case 'T', 'F':
		return m == 'T', nil
	case 'C':
		return d.char()
	case 'S':
		return d.strBody("string length")
	case 'H':
		return d.strBody("high-precision number length")
	case '[':
		ty, left, err := d.open()
		if err != nil {
			return nil, err
		}
		if ty == 'U' {
			b, err := d.take(left, "uint8 array")
			d.depth--
			return append([]byte{}, b...), err
		}
		out := []any{}
		for {
			more, err := d.next(&left, ']')
			if err != nil || !more {
				d.depth--
				return out, err
			}
			em, err := d.elemMarker(ty)
			if err != nil {
				return nil, err
			}
			v, err := d.tree(em)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	case '{':
		ty, left, err := d.open()
		if err != nil {
			return nil, err
		}
		out := map[string]any{}
		for {
			more, err := d.next(&left, '}')
			if err != nil || !more {
				d.depth--
				return out, err
			}
			k, err := d.strBody("key length")
			if err != nil {
				return nil, err
			}
			em, err := d.elemMarker(ty)
			if err != nil {
				return nil, err
			}
			if out[k], err = d.tree(em); err != nil {
				return nil, err
			}
		}
	}
	return nil, d.errorf("unknown marker %q (0x%02x) at offset %d", m, m, d.pos-1)
}

func (d *decoder) char() (string, error) {
	b, err := d.take(1, "char")
	if err != nil {
		return "", err
	}
	if b[0] >= 0x80 {
		return "", d.errorf("char 0x%02x at offset %d is not ASCII", b[0], d.pos-1)
	}
	return string(b), nil
}
