package naming

import (
	"reflect"
	"testing"
)

func TestCamelAndTags(t *testing.T) {
	for in, want := range map[string]string{"owner_id": "OwnerId", "cars": "Cars", "a_b_c": "ABC", "x1_y": "X1Y"} {
		if got := Camel(in); got != want {
			t.Errorf("Camel(%q) = %q, want %q", in, got, want)
		}
	}
	tag := reflect.StructTag(Tags("ownerId", 3, true))
	for _, key := range []string{"json", "msgpack", "cbor", "bson", "xml"} {
		if got := tag.Get(key); got != "ownerId,omitempty" {
			t.Errorf("%s tag %q", key, got)
		}
	}
	if tag.Get("pb") != "3" || reflect.StructTag(Tags("cars", 1, false)).Get("json") != "cars" {
		t.Errorf("tags %q", tag)
	}
}
