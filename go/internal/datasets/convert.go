package datasets

import (
	"fmt"
	"reflect"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// ToModel fills the model struct `dst` points at (a generated go/gen/models type) from a protobuf
// message, field by field through the models' `pb:"<number>"` tags. It runs outside any timed
// region (proto/README.md step 2: canonical records to the native model). Empty repeated fields
// become empty, not nil, slices: every field is written, an empty list as [].
func ToModel(msg protoreflect.Message, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("ToModel needs a pointer to a struct, got %T", dst)
	}
	return toStruct(msg, v.Elem())
}

func toStruct(msg protoreflect.Message, v reflect.Value) error {
	t := v.Type()
	fields := msg.Descriptor().Fields()
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("pb")
		n, err := strconv.Atoi(tag)
		if err != nil {
			return fmt.Errorf("%s.%s has no pb tag", t.Name(), t.Field(i).Name)
		}
		fd := fields.ByNumber(protoreflect.FieldNumber(n))
		if fd == nil {
			return fmt.Errorf("%s has no field %d (model %s)", msg.Descriptor().FullName(), n, t.Name())
		}
		out := v.Field(i)
		switch {
		case fd.IsList():
			list := msg.Get(fd).List()
			s := reflect.MakeSlice(out.Type(), list.Len(), list.Len())
			for j := 0; j < list.Len(); j++ {
				if err := toValue(fd, list.Get(j), s.Index(j)); err != nil {
					return err
				}
			}
			out.Set(s)
		case out.Kind() == reflect.Pointer:
			if msg.Has(fd) {
				p := reflect.New(out.Type().Elem())
				if err := toValue(fd, msg.Get(fd), p.Elem()); err != nil {
					return err
				}
				out.Set(p)
			}
		default:
			if err := toValue(fd, msg.Get(fd), out); err != nil {
				return err
			}
		}
	}
	return nil
}

func toValue(fd protoreflect.FieldDescriptor, val protoreflect.Value, out reflect.Value) error {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		return toStruct(val.Message(), out)
	case protoreflect.EnumKind:
		out.SetInt(int64(val.Enum()))
	case protoreflect.BoolKind:
		out.SetBool(val.Bool())
	case protoreflect.StringKind:
		out.SetString(val.String())
	case protoreflect.BytesKind:
		out.SetBytes(append([]byte{}, val.Bytes()...))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		out.SetFloat(val.Float())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		out.SetUint(val.Uint())
	default:
		out.SetInt(val.Int())
	}
	return nil
}

// FirstDifference names the first place two models differ ("record 3 field email: expected
// "a" but decoded "b""), or "" when they are equal. Floats compare exactly (they round-trip).
func FirstDifference(expected, got any) string {
	return diff(reflect.ValueOf(expected), reflect.ValueOf(got), "")
}

func diff(a, b reflect.Value, path string) string {
	if a.Kind() == reflect.Pointer && a.Type().Elem().Kind() == reflect.Struct && !a.IsNil() && !b.IsNil() {
		return diff(a.Elem(), b.Elem(), path)
	}
	switch a.Kind() {
	case reflect.Struct:
		if path == "" && a.NumField() == 1 && a.Type().Field(0).Name == "Records" {
			return diff(a.Field(0), b.Field(0), "")
		}
		for i := 0; i < a.NumField(); i++ {
			name := a.Type().Field(i).Tag.Get("json")
			if j := len(name); j > 0 {
				if k := indexByte(name, ','); k >= 0 {
					name = name[:k]
				}
			}
			if d := diff(a.Field(i), b.Field(i), join(path, "field "+name)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: expected %d items but decoded %d", orTop(path), a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			label := fmt.Sprintf("item %d", i)
			if path == "" && a.Type().Elem().Kind() == reflect.Struct {
				label = fmt.Sprintf("record %d", i)
			}
			if d := diff(a.Index(i), b.Index(i), join(path, label)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) || (a.Kind() == reflect.Float64 || a.Kind() == reflect.Float32) && a.Float() != b.Float() {
		return fmt.Sprintf("%s: expected %s but decoded %s", orTop(path), show(a), show(b))
	}
	return ""
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "unset"
		}
		v = v.Elem()
	}
	s := fmt.Sprintf("%#v", v.Interface())
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func join(path, s string) string {
	if path == "" {
		return s
	}
	return path + " " + s
}

func orTop(path string) string {
	if path == "" {
		return "records"
	}
	return path
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
