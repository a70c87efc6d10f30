package datasets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Manifest is a user dataset's dataset.json (proto/README.md "A user's dataset").
type Manifest struct {
	ID            string   `json:"id"`
	Message       string   `json:"message"`
	DescriptorSet string   `json:"descriptorSet"`
	FieldNames    string   `json:"fieldNames"`
	LazyFields    []string `json:"lazyFields"`
	Fingerprint   string   `json:"fingerprint"`
}

// UserSchema reads a manifest and its descriptor set and returns the manifest and the record
// message's descriptor, whose fingerprint this worker computes itself.
func UserSchema(path string) (*Manifest, protoreflect.MessageDescriptor, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: not a dataset manifest: %w", path, err)
	}
	if m.FieldNames == "" {
		m.FieldNames = "json"
	}
	setBytes, err := os.ReadFile(filepath.Join(filepath.Dir(path), m.DescriptorSet))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(setBytes, &set); err != nil {
		return nil, nil, fmt.Errorf("%s: not a FileDescriptorSet: %w", m.DescriptorSet, err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.DescriptorSet, err)
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(m.Message))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: no message %s: %w", m.DescriptorSet, m.Message, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %s is not a message", m.DescriptorSet, m.Message)
	}
	return &m, md, nil
}
