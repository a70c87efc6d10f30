package codecs

import (
	"encoding/binary"
	"strings"
	"testing"

	fb "codecbench/go/gen/flat/codecbench/v1"
	flatbuffers "github.com/google/flatbuffers/go"
)

// The checks flatc's Go accessors lack: without them these payloads panic or read gigabytes.
func TestFlatbufferVerifierRefusesWhatTheAccessorsWouldNotSurvive(t *testing.T) {
	r := golden(t, "dummy")
	good, err := Flatbuffers{}.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	root := r.Dataset.List.Descriptor()
	if err := verifyFlatbuffer(good, root); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte{}, good...)
	binary.LittleEndian.PutUint32(bad, uint32(len(bad)+8)) // the root offset past the end
	if err := verifyFlatbuffer(bad, root); err == nil || !strings.Contains(err.Error(), "outside the buffer") {
		t.Errorf("root: %v", err)
	}
	// One record's table shared by 2000 slots of the records vector: a few KiB that would read
	// as 2000 records, each string visited again.
	b := flatbuffers.NewBuilder(0)
	id, name := b.CreateString("x"), b.CreateString("y")
	fb.DummyRecordStart(b)
	fb.DummyRecordAddId(b, id)
	fb.DummyRecordAddName(b, name)
	rec := fb.DummyRecordEnd(b)
	fb.DummyDatasetStartRecordsVector(b, 2000)
	for i := 0; i < 2000; i++ {
		b.PrependUOffsetT(rec)
	}
	vec := b.EndVector(2000)
	fb.DummyDatasetStart(b)
	fb.DummyDatasetAddRecords(b, vec)
	b.Finish(fb.DummyDatasetEnd(b))
	if err := verifyFlatbuffer(b.FinishedBytes(), root); err == nil || !strings.Contains(err.Error(), "more objects than the payload's size allows") {
		t.Errorf("shared tables: %v", err)
	}
	// Cut inside the first string written (the builder writes back to front, so it ends the
	// buffer): its length runs past the end, and flatc's accessor would slice out of range.
	if err := verifyFlatbuffer(good[:len(good)-8], root); err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("cut: %v", err)
	}
	func() {
		defer func() { _ = recover() }()
		fb.GetRootAsDummyDataset(bad, 0).RecordsLength()
		t.Error("flatc's accessor read a root offset past the end without panicking: the verifier may be redundant")
	}()
}
