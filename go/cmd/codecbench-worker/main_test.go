package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// A control that never answers: the worker backs off and gives up after its reconnect window
// (connect-go reports the refused connection on the stream's first read, not as an attachment).
func TestAnUnreachableControlIsGivenUpAfterTheReconnectWindow(t *testing.T) {
	start := time.Now()
	err := run(args{control: "http://127.0.0.1:9", name: "t", reconnectTimeout: time.Second})
	if err == nil || !strings.HasPrefix(err.Error(), "cannot reach control at http://127.0.0.1:9 for 1s: ") {
		t.Fatalf("%v", err)
	}
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("gave up after %s", took)
	}
}

// A user's dataset is announced with the fingerprint of its own descriptors and offered like the
// built-in of the same schema: the same refusals, and flatbuffers' (its tables are the built-ins').
func TestUserDatasetsAreAnnouncedWithTheirFingerprintAndOffered(t *testing.T) {
	if _, err := userDatasetInfos([]string{"/nonexistent/dataset.json"}); err == nil {
		t.Error("a missing manifest was accepted")
	}
	manifest := userManifest(t, "mine", "codecbench.v1.DummyRecord")
	infos, err := userDatasetInfos([]string{manifest})
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].GetId() != "mine" || infos[0].GetFingerprint() != datasets.Find("dummy").Fingerprint {
		t.Fatalf("%v", infos)
	}
	builtin := datasetInfo(datasets.Find("dummy")).GetRefused()
	// flatbuffers' tables are flatc's of datasets.proto: it refuses every user schema.
	got := []*pb.Refusal{}
	for _, r := range infos[0].GetRefused() {
		if r.GetCodec() != "flatbuffers" {
			got = append(got, r)
		} else if !strings.HasPrefix(r.GetReason(), "flatbuffers: a user's schema (codecbench.v1.DummyRecord) is not offered") {
			t.Errorf("%v", r)
		}
	}
	if len(got) != len(builtin) {
		t.Fatalf("refused %v, the built-in %v", got, builtin)
	}
	for i := range got {
		if got[i].GetCodec() != builtin[i].GetCodec() || got[i].GetReason() != builtin[i].GetReason() {
			t.Errorf("refused %v, the built-in %v", got[i], builtin[i])
		}
	}
	if _, err := userDatasetInfos([]string{manifest}); err == nil || !strings.Contains(err.Error(), `a dataset "mine" is already carried`) {
		t.Errorf("the same dataset twice: %v", err)
	}
}

// userManifest writes a user's dataset of one of datasets.proto's records, as `run --local` would
// (protoc --include_imports' descriptor set and the manifest), and returns the manifest's path.
func userManifest(t *testing.T, id, message string) string {
	t.Helper()
	dir := t.TempDir()
	var set descriptorpb.FileDescriptorSet
	for _, fd := range []protoreflect.FileDescriptor{descriptorpb.File_google_protobuf_descriptor_proto, pb.File_codecbench_v1_dataset_options_proto, pb.File_codecbench_v1_datasets_proto} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	raw, _ := proto.Marshal(&set)
	_ = os.WriteFile(filepath.Join(dir, "descriptors.binpb"), raw, 0o644)
	manifest := filepath.Join(dir, "dataset.json")
	_ = os.WriteFile(manifest, []byte(`{"id": "`+id+`", "message": "`+message+`", "descriptorSet": "descriptors.binpb", "fieldNames": "json"}`), 0o644)
	return manifest
}
