package usermodels

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A user's enum must be a named type with methods (written by name, as the built-ins' generated
// enums are), and reflect cannot declare methods at run time. So each enum of a user's schema
// takes one of a fixed set of types declared here, Enum[[k]byte]: the k-th slot, whose methods read
// the k-th table. The slots are compiled in; a process carries at most len(slotTypes) user enums.
type slot interface {
	[0]byte | [1]byte | [2]byte | [3]byte | [4]byte | [5]byte | [6]byte | [7]byte |
		[8]byte | [9]byte | [10]byte | [11]byte | [12]byte | [13]byte | [14]byte | [15]byte |
		[16]byte | [17]byte | [18]byte | [19]byte | [20]byte | [21]byte | [22]byte | [23]byte |
		[24]byte | [25]byte | [26]byte | [27]byte | [28]byte | [29]byte | [30]byte | [31]byte
}

var slotTypes = [...]reflect.Type{
	reflect.TypeFor[Enum[[0]byte]](), reflect.TypeFor[Enum[[1]byte]](), reflect.TypeFor[Enum[[2]byte]](), reflect.TypeFor[Enum[[3]byte]](),
	reflect.TypeFor[Enum[[4]byte]](), reflect.TypeFor[Enum[[5]byte]](), reflect.TypeFor[Enum[[6]byte]](), reflect.TypeFor[Enum[[7]byte]](),
	reflect.TypeFor[Enum[[8]byte]](), reflect.TypeFor[Enum[[9]byte]](), reflect.TypeFor[Enum[[10]byte]](), reflect.TypeFor[Enum[[11]byte]](),
	reflect.TypeFor[Enum[[12]byte]](), reflect.TypeFor[Enum[[13]byte]](), reflect.TypeFor[Enum[[14]byte]](), reflect.TypeFor[Enum[[15]byte]](),
	reflect.TypeFor[Enum[[16]byte]](), reflect.TypeFor[Enum[[17]byte]](), reflect.TypeFor[Enum[[18]byte]](), reflect.TypeFor[Enum[[19]byte]](),
	reflect.TypeFor[Enum[[20]byte]](), reflect.TypeFor[Enum[[21]byte]](), reflect.TypeFor[Enum[[22]byte]](), reflect.TypeFor[Enum[[23]byte]](),
	reflect.TypeFor[Enum[[24]byte]](), reflect.TypeFor[Enum[[25]byte]](), reflect.TypeFor[Enum[[26]byte]](), reflect.TypeFor[Enum[[27]byte]](),
	reflect.TypeFor[Enum[[28]byte]](), reflect.TypeFor[Enum[[29]byte]](), reflect.TypeFor[Enum[[30]byte]](), reflect.TypeFor[Enum[[31]byte]](),
}

// enumTable is one enum's names by number and numbers by name (a generated switch's lookups).
type enumTable struct {
	full    protoreflect.FullName
	names   map[int32]string
	numbers map[string]int32
}

var (
	enumMu    sync.Mutex
	tables    [len(slotTypes)]*enumTable
	slotsUsed = map[protoreflect.FullName]int{}
)

// enumType is the model type of a user's enum: a slot taken for it (once per process).
func enumType(e protoreflect.EnumDescriptor) (reflect.Type, error) {
	enumMu.Lock()
	defer enumMu.Unlock()
	if k, ok := slotsUsed[e.FullName()]; ok {
		return slotTypes[k], nil
	}
	k := len(slotsUsed)
	if k == len(slotTypes) {
		return nil, fmt.Errorf("enum %s is one more than the %d enums the Go worker carries across its user datasets", e.FullName(), len(slotTypes))
	}
	t := &enumTable{full: e.FullName(), names: map[int32]string{}, numbers: map[string]int32{}}
	vs := e.Values()
	for i := 0; i < vs.Len(); i++ {
		v := vs.Get(i)
		if _, dup := t.names[int32(v.Number())]; !dup { // an alias: the first name is the one written
			t.names[int32(v.Number())] = string(v.Name())
		}
		t.numbers[string(v.Name())] = int32(v.Number())
	}
	tables[k], slotsUsed[e.FullName()] = t, k
	return slotTypes[k], nil
}

// Enum is a user's enum in the models, written as its value name.
type Enum[S slot] int32

func (Enum[S]) table() *enumTable {
	var s S
	return tables[len(s)]
}

// MarshalText writes the value's name.
func (e Enum[S]) MarshalText() ([]byte, error) {
	t := e.table()
	if name, ok := t.names[int32(e)]; ok {
		return []byte(name), nil
	}
	return nil, fmt.Errorf("%s has no value %d", t.full, int32(e))
}

// UnmarshalText reads a value's name.
func (e *Enum[S]) UnmarshalText(b []byte) error {
	t := e.table()
	if n, ok := t.numbers[string(b)]; ok {
		*e = Enum[S](n)
		return nil
	}
	return fmt.Errorf("%s has no value named %q", t.full, b)
}

// EncodeMsgpack writes the name as a string (msgpack writes a TextMarshaler as bin).
func (e Enum[S]) EncodeMsgpack(enc *msgpack.Encoder) error {
	name, err := e.MarshalText()
	if err != nil {
		return err
	}
	return enc.EncodeString(string(name))
}

// DecodeMsgpack reads a value's name.
func (e *Enum[S]) DecodeMsgpack(dec *msgpack.Decoder) error {
	s, err := dec.DecodeString()
	if err != nil {
		return err
	}
	return e.UnmarshalText([]byte(s))
}

// MarshalBSONValue writes the value's name as a BSON string.
func (e Enum[S]) MarshalBSONValue() (byte, []byte, error) {
	name, err := e.MarshalText()
	if err != nil {
		return 0, nil, err
	}
	t, b, err := bson.MarshalValue(string(name))
	return byte(t), b, err
}

// UnmarshalBSONValue reads a value's name from a BSON string.
func (e *Enum[S]) UnmarshalBSONValue(t byte, b []byte) error {
	if bson.Type(t) != bson.TypeString {
		return fmt.Errorf("%s: a BSON string expected, not type 0x%02x", e.table().full, t)
	}
	var s string
	if err := bson.UnmarshalValue(bson.TypeString, b, &s); err != nil {
		return err
	}
	return e.UnmarshalText([]byte(s))
}
