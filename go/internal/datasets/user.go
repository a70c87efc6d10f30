package datasets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
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

var (
	usersMu sync.Mutex
	users   []*Dataset
)

// LoadUser reads a user's dataset from its manifest and registers it, so Find returns it. Its list
// message (`repeated <Record> records = 1`, the records blob's shape) is declared beside the
// user's files and is a dynamicpb type: Go compiles no code from a schema at run time.
func LoadUser(path string) (*Dataset, error) {
	m, md, err := UserSchema(path)
	if err != nil {
		return nil, err
	}
	if m.FieldNames != "json" && m.FieldNames != "proto" {
		return nil, fmt.Errorf("%s: fieldNames is %q, not json or proto", path, m.FieldNames)
	}
	if Find(m.ID) != nil {
		return nil, fmt.Errorf("%s: a dataset %q is already carried by this worker", path, m.ID)
	}
	list, err := userList(md)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &Dataset{ID: m.ID, Record: md, List: list, LazyFields: m.LazyFields, Fingerprint: Fingerprint(md), User: true, FieldNames: m.FieldNames}
	usersMu.Lock()
	users = append(users, d)
	usersMu.Unlock()
	return d, nil
}

func userList(record protoreflect.MessageDescriptor) (protoreflect.MessageType, error) {
	files := &protoregistry.Files{}
	if err := addWithImports(files, record.ParentFile()); err != nil {
		return nil, err
	}
	file := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("codecbench_user_list/" + string(record.FullName()) + ".proto"),
		Package:    proto.String("codecbench_user_list"),
		Dependency: []string{record.ParentFile().Path()},
		Syntax:     proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("List"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("records"), JsonName: proto.String("records"), Number: proto.Int32(1),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String("." + string(record.FullName())),
			}},
		}},
	}
	fd, err := protodesc.NewFile(file, files)
	if err != nil {
		return nil, fmt.Errorf("declaring the list message of %s: %w", record.FullName(), err)
	}
	return dynamicpb.NewMessageType(fd.Messages().Get(0)), nil
}

func addWithImports(files *protoregistry.Files, f protoreflect.FileDescriptor) error {
	if _, err := files.FindFileByPath(f.Path()); err == nil {
		return nil
	}
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		if err := addWithImports(files, imps.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	return files.RegisterFile(f)
}
