package conversion_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestNullSectionsRoundTrip converts claims and templates whose sections are
// JSON null, absent or empty A→B→A for every ordered pair of the six
// versions (group resource.k8s.io, which all of them serve) and requires A
// back exactly: the same decoded tree and the same JSON, so a null section
// does not come back as {} and no restore annotation is left over. An empty
// claim spec is {} in every version but v1alpha1 and v1alpha2, where it has
// the allocationMode their defaulting (and the CRD) writes.
func TestNullSectionsRoundTrip(t *testing.T) {
	const name = `"metadata":{"name":"c","namespace":"ns"}`
	reserved := `{"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}`
	cases := []struct {
		name, kind, sections string
	}{
		{"claim-spec-null", api.KindClaim, `"spec":null,"status":` + reserved},
		{"claim-spec-null-status-absent", api.KindClaim, `"spec":null`},
		{"claim-status-null", api.KindClaim, `"spec":{},"status":null`},
		{"claim-status-null-spec-absent", api.KindClaim, `"status":null`},
		{"claim-both-null", api.KindClaim, `"spec":null,"status":null`},
		{"claim-spec-absent", api.KindClaim, `"status":` + reserved},
		{"claim-status-absent", api.KindClaim, `"spec":{}`},
		{"claim-both-absent", api.KindClaim, ``},
		{"claim-both-empty", api.KindClaim, `"spec":{},"status":{}`},
		{"template-spec-spec-null", api.KindTemplate, `"spec":{"spec":null}`},
		{"template-spec-spec-null-with-metadata", api.KindTemplate, `"spec":{"metadata":{"labels":{"a":"b"}},"spec":null}`},
		{"template-spec-null", api.KindTemplate, `"spec":null`},
		{"template-spec-absent", api.KindTemplate, ``},
		{"template-spec-spec-absent", api.KindTemplate, `"spec":{"metadata":{}}`},
		{"template-spec-spec-empty", api.KindTemplate, `"spec":{"spec":{}}`},
	}
	for _, from := range api.ConversionVersions {
		for _, to := range api.ConversionVersions {
			if from == to {
				continue
			}
			for _, tc := range cases {
				t.Run(from+"-to-"+to+"/"+tc.name, func(t *testing.T) {
					object := func(version string) string {
						src := `{"apiVersion":"` + api.UpstreamGroup + "/" + version + `","kind":"` + tc.kind + `",` + name
						if tc.sections != "" {
							src += "," + emptySpecIn(version, tc.sections)
						}
						return src + "}"
					}
					src := object(from)
					for _, convert := range []struct {
						name string
						f    func(map[string]interface{}, string) (map[string]interface{}, error)
					}{{"Convert", conversion.Convert}, {"ConvertShared", conversion.ConvertShared}} {
						obj := decodeExact(t, src)
						mid, err := convert.f(obj, to)
						if err != nil {
							t.Fatalf("%s to %s: %v", convert.name, to, err)
						}
						midJSON := mustJSON(mid)
						// Null, absent and empty sections mean the same in every
						// version: the object in to is the object in from, with
						// no restore annotation.
						if want := object(to); !reflect.DeepEqual(decodeExact(t, want), mid) {
							t.Errorf("%s: %s→%s\n got %s\nwant %s", convert.name, from, to, midJSON, mustJSON(decodeExact(t, want)))
						}
						back, err := convert.f(decodeExact(t, midJSON), from)
						if err != nil {
							t.Fatalf("%s back to %s: %v\nintermediate: %s", convert.name, from, err, midJSON)
						}
						want := decodeExact(t, src)
						if got := mustJSON(back); !reflect.DeepEqual(want, back) || got != mustJSON(want) {
							t.Errorf("%s: %s→%s→%s\n got %s\nwant %s\nintermediate: %s", convert.name, from, to, from, got, mustJSON(want), midJSON)
						}
					}
				})
			}
		}
	}
}

// emptySpecIn returns sections with an empty claim spec as version has it:
// with allocationMode WaitForFirstConsumer in v1alpha1 and v1alpha2.
func emptySpecIn(version, sections string) string {
	if version != api.V1alpha1 && version != api.V1alpha2 {
		return sections
	}
	sections = strings.Replace(sections, `"spec":{"spec":{}}`, `"spec":{"spec":{"allocationMode":"WaitForFirstConsumer"}}`, 1)
	if strings.HasPrefix(sections, `"spec":{}`) {
		sections = `"spec":{"allocationMode":"WaitForFirstConsumer"}` + strings.TrimPrefix(sections, `"spec":{}`)
	}
	return sections
}

// decodeExact decodes a JSON object as the webhook and the CLI do (numbers
// as json.Number).
func decodeExact(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return obj
}
