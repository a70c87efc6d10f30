package codecs

import (
	"bufio"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"codecbench/go/internal/datasets"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// examples/orders/order.proto as `protoc --include_imports --descriptor_set_out` writes it, and a
// second file with what the models do not carry (a map, a oneof).
const userSchemas = `
file {
  name: "order.proto" package: "acme.shop.v1" syntax: "proto3"
  enum_type { name: "OrderStatus" value { name: "ORDER_STATUS_UNSPECIFIED" number: 0 } value { name: "ORDER_STATUS_OPEN" number: 1 }
    value { name: "ORDER_STATUS_PAID" number: 2 } value { name: "ORDER_STATUS_SHIPPED" number: 3 } }
  message_type { name: "OrderLine"
    field { name: "sku" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "sku" }
    field { name: "title" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "title" }
    field { name: "quantity" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "quantity" }
    field { name: "unit_price_cents" number: 4 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "unitPriceCents" } }
  message_type { name: "Order"
    field { name: "order_id" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "orderId" }
    field { name: "customer_email" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "customerEmail" }
    field { name: "placed_at_ms" number: 3 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "placedAtMs" }
    field { name: "status" number: 4 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".acme.shop.v1.OrderStatus" json_name: "status" }
    field { name: "lines" number: 5 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".acme.shop.v1.OrderLine" json_name: "lines" }
    field { name: "total_cents" number: 6 label: LABEL_OPTIONAL type: TYPE_INT64 json_name: "totalCents" }
    field { name: "coupon" number: 7 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "coupon" oneof_index: 0 proto3_optional: true }
    field { name: "shipping_country" number: 8 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "shippingCountry" }
    oneof_decl { name: "_coupon" } }
}
file {
  name: "tagged.proto" package: "zz.v1" syntax: "proto3" dependency: "order.proto"
  message_type { name: "Tagged"
    field { name: "id" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "id" }
    field { name: "status" number: 2 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".acme.shop.v1.OrderStatus" json_name: "status" }
    field { name: "counts" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".zz.v1.Tagged.CountsEntry" json_name: "counts" }
    nested_type { name: "CountsEntry" options { map_entry: true }
      field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "key" }
      field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "value" } } }
}`

// userDataset writes a manifest and its descriptor set into a temporary folder and loads it.
func userDataset(t *testing.T, id, message, fieldNames string, lazy ...string) *datasets.Dataset {
	t.Helper()
	var set descriptorpb.FileDescriptorSet
	if err := prototext.Unmarshal([]byte(userSchemas), &set); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw, _ := proto.Marshal(&set)
	if err := os.WriteFile(filepath.Join(dir, "descriptors.binpb"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	lazyJSON := `[]`
	if len(lazy) > 0 {
		lazyJSON = `["` + strings.Join(lazy, `", "`) + `"]`
	}
	manifest := filepath.Join(dir, "dataset.json")
	_ = os.WriteFile(manifest, []byte(`{"id": "`+id+`", "message": "`+message+`", "descriptorSet": "descriptors.binpb", "fieldNames": "`+fieldNames+`", "lazyFields": `+lazyJSON+`}`), 0o644)
	d, err := LoadUserDataset(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// blobOf reads NDJSON records (proto3 JSON) into the records blob control would hand out.
func blobOf(t *testing.T, d *datasets.Dataset, lines []string) []byte {
	t.Helper()
	list := d.List.New()
	recs := list.Mutable(d.List.Descriptor().Fields().ByNumber(1)).List()
	for _, line := range lines {
		rec := dynamicpb.NewMessage(d.Record)
		if err := protojson.Unmarshal([]byte(line), rec); err != nil {
			t.Fatal(err)
		}
		recs.Append(protoreflect.ValueOfMessage(rec))
	}
	return mustMarshal(t, list.Interface())
}

func orders(t *testing.T) []string {
	f, err := os.Open(filepath.Join("..", "..", "..", "examples", "orders", "orders.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < 40 {
		out = append(out, sc.Text())
	}
	return out
}

// examples/orders through every codec in every mode (json names and .proto names), verified like a
// built-in; corrupt payloads are errors, never panics.
func TestUserDatasetRunsEveryCodecInEveryMode(t *testing.T) {
	for _, names := range []string{"json", "proto"} {
		d := userDataset(t, "orders-"+names, "acme.shop.v1.Order", names, "status")
		r, err := Load(d.ID, blobOf(t, d, orders(t)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Count != 40 {
			t.Fatalf("%d records", r.Count)
		}
		for _, c := range Registry() {
			// flatbuffers' tables are flatc's of datasets.proto: a user's schema has none (as in Rust).
			if why := Refusal(c, d); (why != "") != (c.Info().ID == "flatbuffers") {
				t.Errorf("%s refuses orders: %q", c.Info().ID, why)
			}
			if Refusal(c, d) != "" {
				continue
			}
			payload, err := c.Encode(r)
			if err != nil {
				t.Fatalf("%s: %v", c.Info().ID, err)
			}
			for _, mode := range c.Info().Modes {
				lazy := []string{"orderId", "status", "placedAtMs"}
				if names == "proto" {
					lazy = []string{"order_id", "status", "placed_at_ms"}
				}
				if err := Check(c, r, mode, payload, lazy); err != nil {
					t.Errorf("%s %s %s: %v", names, c.Info().ID, mode, err)
				}
			}
			// The json payload names fields as the manifest says and enums by their value names.
			if c.Info().ID == "json" && (!strings.Contains(string(payload), map[string]string{"json": `"customerEmail":`, "proto": `"customer_email":`}[names]) || !strings.Contains(string(payload), `"status":"ORDER_STATUS_`)) {
				t.Errorf("fieldNames %s: %.200s", names, payload)
			}
		}
	}
}

// What the models cannot carry is each schema-less codec's refusal, naming the field; protobuf
// (dynamicpb) carries it.
func TestUserDatasetRefusalsNameTheField(t *testing.T) {
	d := userDataset(t, "tagged", "zz.v1.Tagged", "json")
	for _, c := range Registry() {
		why := Refusal(c, d)
		if c.Info().ID == "flatbuffers" {
			continue // refuses every user schema (TestUserDatasetRunsEveryCodecInEveryMode)
		}
		if c.Info().ID == "protobuf" {
			if why != "" {
				t.Errorf("protobuf refuses: %s", why)
			}
			continue
		}
		if why != c.Info().ID+": map field zz.v1.Tagged.counts is not offered" {
			t.Errorf("%s: %q", c.Info().ID, why)
		}
	}
	r, err := Load(d.ID, blobOf(t, d, []string{`{"id": "a", "status": "ORDER_STATUS_PAID", "counts": {"x": 1}}`, `{"id": "b"}`}))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := Protobuf{}.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(Protobuf{}, r, Typed, payload, nil); err != nil {
		t.Error(err)
	}
}

// A payload of a user dataset that differs in one record names it, as for a built-in; corrupt
// payloads are errors, never panics (2·10^3 cases per codec, about a second).
func TestUserDatasetVerificationAndCorruptPayloads(t *testing.T) {
	d := userDataset(t, "orders-bad", "acme.shop.v1.Order", "json")
	lines := orders(t)[:10]
	r, _ := Load(d.ID, blobOf(t, d, lines))
	changed := append([]string{}, lines...)
	changed[3] = strings.Replace(changed[3], `"orderId": "`, `"orderId": "X`, 1)
	other, err := Load(d.ID, blobOf(t, d, changed))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	for _, c := range Registry() {
		if Refusal(c, d) != "" {
			continue
		}
		payload, err := c.Encode(other)
		if err != nil {
			t.Fatal(err)
		}
		err = Check(c, r, Typed, payload, nil)
		if err == nil || !strings.Contains(err.Error(), "record 3") {
			t.Errorf("%s: %v", c.Info().ID, err)
		}
		for i := 0; i < 2000; i++ {
			bad := mutate(rng, payload)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s panicked on %d bytes: %v", c.Info().ID, len(bad), p)
					}
				}()
				_ = Check(c, r, Typed, bad, nil)
			}()
		}
	}
}
