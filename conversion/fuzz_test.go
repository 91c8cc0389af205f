package conversion_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// FuzzConvertRoundTrip feeds arbitrary JSON to Convert: it must never panic,
// fail only for objects it cannot represent, and give every object it
// converts back exactly. Run with: go test ./conversion -fuzz FuzzConvertRoundTrip
func FuzzConvertRoundTrip(f *testing.F) {
	for vi, version := range api.ConversionVersions {
		filler := newFiller(int64(9000 + vi))
		for i := 0; i < 4; i++ {
			f.Add([]byte(mustJSON(randomObject(f, filler, version, i == 3))), uint8(i+vi))
		}
	}
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","spec":{"resourceClassName":"c"}}`), uint8(2))
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":null,"status":{"allocation":{}}}`), uint8(0))
	// Malformed: refused with a *MalformedError, never a panic.
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","spec":"x"}`), uint8(2))
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","status":{"reservedFor":{},"allocation":{"resourceHandles":{"a":1}}}}`), uint8(0))
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","status":{"allocation":{"devices":{"results":[1],"config":"x"}}}}`), uint8(1))
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaimTemplate","spec":{"spec":[]}}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, target uint8) {
		obj, group, from, ok := fuzzObject(data)
		if !ok {
			return
		}
		to := api.ConversionVersions[int(target)%len(api.ConversionVersions)]
		converted, _, err := conversion.ConvertWithWarnings(obj, to)
		if group == api.Group && isGA(to) {
			if err == nil || !strings.Contains(err.Error(), "is not served by group") {
				t.Fatalf("%s/%s to %s: want a refusal, got %v", group, from, to, err)
			}
			return
		}
		var malformed *conversion.MalformedError
		if errors.As(err, &malformed) {
			return
		}
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "is not an object") && !strings.Contains(msg, "above the limit") {
				t.Fatalf("unexpected error for %s: %v", data, err)
			}
			return
		}
		back, err := conversion.Convert(converted, from)
		if err != nil {
			t.Fatalf("converting back: %v\n%s", err, mustJSON(converted))
		}
		if diff := cmp.Diff(obj, back, treeComparer); diff != "" {
			t.Fatalf("%s→%s→%s changed the object (-want +got):\n%s", from, to, from, diff)
		}
	})
}

// fuzzObject decodes a fuzzer's input into a claim or template (not a
// list) without restore annotations: those are applied by design, so an
// object that carries foreign ones, itself or in a list's items, is not
// expected back unchanged.
func fuzzObject(data []byte) (obj map[string]interface{}, group, from string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, "", "", false
	}
	group, from, kind, err := conversion.Identify(obj)
	if err != nil || strings.HasSuffix(kind, "List") || hasRestoreAnnotation(obj) {
		return nil, "", "", false
	}
	return obj, group, from, true
}

func hasRestoreAnnotation(obj map[string]interface{}) bool {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	for k := range ann {
		if strings.HasPrefix(k, api.AnnotationPrefix+"restore-") {
			return true
		}
	}
	return false
}
