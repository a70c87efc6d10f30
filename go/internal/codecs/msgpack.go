package codecs

import (
	"bytes"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// Msgpack is vmihailenco/msgpack/v5 by reflection on the generated models (struct tags with the
// proto JSON names; enums and bare-list records through the models' EncodeMsgpack/DecodeMsgpack).
type Msgpack struct{}

func (Msgpack) Info() Info {
	return described("msgpack")
}

func (Msgpack) Encode(r *Records) ([]byte, error) { return msgpack.Marshal(r.Model) }

func (Msgpack) Decode(r *Records, mode string, payload []byte) (any, error) {
	switch mode {
	case Typed:
		m, err := NewModel(r.Dataset.ID)
		if err != nil {
			return nil, err
		}
		return m, msgpackWhole(payload, m)
	case Tree:
		var v any
		return v, msgpackWhole(payload, &v)
	}
	return nil, fmt.Errorf("msgpack offers no decode mode %q", mode)
}

// msgpackWhole decodes one value and refuses bytes after it.
func msgpackWhole(payload []byte, into any) error {
	r := bytes.NewReader(payload)
	dec := msgpack.NewDecoder(r)
	if err := dec.Decode(into); err != nil {
		return err
	}
	if r.Len() != 0 {
		return fmt.Errorf("%d bytes after the msgpack value", r.Len())
	}
	return nil
}

func (Msgpack) Verify(r *Records, mode string, decoded any) error {
	if mode == Tree {
		return verifyTree(r, decoded, msgpack.Marshal, msgpack.Unmarshal)
	}
	return verifyModels(r, decoded)
}

// Admit walks the payload once, untimed, before any decode of it (the trial does this): every
// declared length must fit in the bytes that follow. vmihailenco/msgpack allocates a str or bin's
// declared length before reading it, so a corrupt 4 GiB length would take the process down.
func (Msgpack) Admit(payload []byte) error {
	end, err := msgpackSkip(payload, 0, 0)
	if err != nil {
		return err
	}
	if end != len(payload) {
		return fmt.Errorf("%d bytes after the msgpack value", len(payload)-end)
	}
	return nil
}

const maxDepth = 512

// msgpackSkip returns the offset just past the value at `at`.
func msgpackSkip(b []byte, at, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("msgpack: nested deeper than %d", maxDepth)
	}
	if at >= len(b) {
		return 0, fmt.Errorf("msgpack: unexpected end at offset %d", at)
	}
	c := b[at]
	at++
	be := func(n int) (int, error) { // a big-endian length of n bytes
		if at+n > len(b) {
			return 0, fmt.Errorf("msgpack: unexpected end at offset %d", at)
		}
		v := 0
		for _, x := range b[at : at+n] {
			v = v<<8 | int(x)
		}
		at += n
		return v, nil
	}
	skip := func(n int) (int, error) {
		if n < 0 || n > len(b)-at {
			return 0, fmt.Errorf("msgpack: %d bytes declared at offset %d, %d follow", n, at, len(b)-at)
		}
		return at + n, nil
	}
	items := func(n int) (int, error) { // n values, each at least one byte
		if n > len(b)-at {
			return 0, fmt.Errorf("msgpack: %d items declared at offset %d, %d bytes follow", n, at, len(b)-at)
		}
		var err error
		for i := 0; i < n; i++ {
			if at, err = msgpackSkip(b, at, depth+1); err != nil {
				return 0, err
			}
		}
		return at, nil
	}
	lenThen := func(lenBytes int, then func(int) (int, error)) (int, error) {
		n, err := be(lenBytes)
		if err != nil {
			return 0, err
		}
		return then(n)
	}
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		return at, nil
	case c <= 0x8f:
		return items(2 * int(c&0x0f))
	case c <= 0x9f:
		return items(int(c & 0x0f))
	case c <= 0xbf:
		return skip(int(c & 0x1f))
	}
	switch c {
	case 0xc4, 0xd9:
		return lenThen(1, skip)
	case 0xc5, 0xda:
		return lenThen(2, skip)
	case 0xc6, 0xdb:
		return lenThen(4, skip)
	case 0xc7:
		return lenThen(1, func(n int) (int, error) { return skip(n + 1) })
	case 0xc8:
		return lenThen(2, func(n int) (int, error) { return skip(n + 1) })
	case 0xc9:
		return lenThen(4, func(n int) (int, error) { return skip(n + 1) })
	case 0xca:
		return skip(4)
	case 0xcb:
		return skip(8)
	case 0xcc, 0xd0:
		return skip(1)
	case 0xcd, 0xd1:
		return skip(2)
	case 0xce, 0xd2:
		return skip(4)
	case 0xcf, 0xd3:
		return skip(8)
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		return skip(1 + 1<<(c-0xd4))
	case 0xdc:
		return lenThen(2, items)
	case 0xdd:
		return lenThen(4, items)
	case 0xde:
		return lenThen(2, func(n int) (int, error) { return items(2 * n) })
	case 0xdf:
		return lenThen(4, func(n int) (int, error) { return items(2 * n) })
	}
	return 0, fmt.Errorf("msgpack: invalid type byte 0x%02x at offset %d", c, at-1)
}
