package ubjson

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

type rec struct {
	ID    string   `json:"id"`
	N     int32    `json:"n"`
	Big   int64    `json:"big"`
	F     float32  `json:"f"`
	Tags  []string `json:"tags"`
	Raw   []byte   `json:"raw"`
	Note  *string  `json:"note,omitempty"`
	Flag  bool     `json:"flag"`
	Inner struct {
		X uint32 `json:"x"`
	} `json:"inner"`
}

// The Rust codec's choices: smallest integer markers, float64 for floats, unsized containers,
// bytes as an optimised uint8 array, an unset optional left out.
func TestEncodingChoices(t *testing.T) {
	r := rec{ID: "a", N: 300, Big: 1 << 40, F: 0.5, Tags: []string{}, Raw: []byte{1, 2}, Flag: true}
	r.Inner.X = 200
	got, err := Options{}.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	want := "{i\x02idSi\x01a" + "i\x01nI\x01\x2c" + "i\x03bigL\x00\x00\x01\x00\x00\x00\x00\x00" + "i\x01fD\x3f\xe0\x00\x00\x00\x00\x00\x00" +
		"i\x04tags[]" + "i\x03raw[$U#i\x02\x01\x02" + "i\x04flagT" + "i\x05inner{i\x01xU\xc8}}"
	if string(got) != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	var back rec
	if err := (Options{}).Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("%v: %+v", err, back)
	}
}

// Every Draft 12 form another writer may use reads to the same value: sized and typed containers,
// no-ops, chars, float32, high-precision numbers (tree), unknown keys skipped.
func TestReadsEveryDraft12Form(t *testing.T) {
	in := "N{#i\x04" + "i\x02idCa" + "i\x01nl\x00\x00\x01\x2c" + "i\x04tags[$S#i\x02i\x01xi\x01y" + "i\x05otherHi\x0212"
	var r rec
	if err := (Options{}).Unmarshal([]byte(in+"N"), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "a" || r.N != 300 || !reflect.DeepEqual(r.Tags, []string{"x", "y"}) {
		t.Errorf("%+v", r)
	}
	tree, err := Tree([]byte("[$d#i\x01\x3f\x80\x00\x00"))
	if err != nil || !reflect.DeepEqual(tree, []any{1.0}) {
		t.Errorf("%v %v", tree, err)
	}
	tree, err = Tree([]byte(in))
	if m, _ := tree.(map[string]any); err != nil || m["other"] != "12" || m["n"] != int64(300) {
		t.Errorf("%v %v", tree, err)
	}
}

// Hostile inputs are errors naming what is wrong, never allocations they do not pay for.
func TestRefusesWhatTheInputCannotHold(t *testing.T) {
	for in, want := range map[string]string{
		"[$Z#L\x7f\xff\xff\xff\xff\xff\xff\xff": "payload-less elements",
		"[#L\x00\x00\x00\x00\xff\xff\xff\xff":   "more than the input holds",
		"SL\x00\x00\x00\x00\xff\xff\xff\xff":    "runs past the end",
		strings.Repeat("[", 200):                "nested deeper than 128",
		"Si\x02\xff\xfe":                        "not UTF-8",
		"Si\x01a!":                              "bytes after the value",
		"[i\x01":                                "missing",
		"Q":                                     "unknown marker",
	} {
		_, err := Tree([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	var r rec
	if err := (Options{}).Unmarshal([]byte("{i\x01nL\x00\x00\x00\x01\x00\x00\x00\x00}"), &r); err == nil || !strings.Contains(err.Error(), "overflows int32") {
		t.Errorf("%v", err)
	}
	if _, err := (Options{}).Marshal(struct{ U uint64 }{1 << 63}); err == nil {
		t.Error("a uint64 above int64 was written")
	}
	if !bytes.Equal(must(Options{}.Marshal([]int64{-1, 255, -129})), []byte("[i\xffU\xffI\xff\x7f]")) {
		t.Error("smallest markers")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
