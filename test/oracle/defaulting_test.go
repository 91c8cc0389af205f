package oracle

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestDefaultingIsRelease131s: for v1alpha3 claims and templates whose
// requests leave out or set allocationMode and count in every valid way,
// the mode and count after the /default webhook's patch
// (conversion.DefaultsPatch) are what Kubernetes 1.31's own code — decoding with its
// defaulting, into the internal type — gives for the object as written.
func TestDefaultingIsRelease131s(t *testing.T) {
	modes := []string{"", `"allocationMode":"",`, `"allocationMode":"ExactCount",`}
	counts := []string{"", `"count":0,`, `"count":1,`, `"count":3,`}
	var requests []string
	for _, m := range modes {
		for _, c := range counts {
			requests = append(requests, "{"+m+c+`"deviceClassName":"gpu.example.com"`)
		}
	}
	requests = append(requests, `{"allocationMode":"All","deviceClassName":"gpu.example.com"`)
	var objs []map[string]interface{}
	for _, kind := range []string{api.KindClaim, api.KindTemplate} {
		var list []string
		for i, r := range requests {
			list = append(list, r+`,"name":"r`+strconv.Itoa(i)+`"}`)
		}
		spec := `{"devices":{"requests":[` + strings.Join(list, ",") + `]}}`
		if kind == api.KindTemplate {
			spec = `{"spec":` + spec + `}`
		}
		var obj map[string]interface{}
		doc := `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"` + kind + `","metadata":{"name":"defaults-` + strings.ToLower(kind) + `","namespace":"ns"},"spec":` + spec + `}`
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber() // as the webhook decodes
		if err := dec.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, obj)
	}
	verdicts := judge(t, objs)
	for i, obj := range objs {
		kind := obj["kind"].(string)
		if len(verdicts[i].errs) > 0 {
			t.Fatalf("%s: 1.31 rejects the input: %v", kind, verdicts[i].errs)
		}
		patched := deepCopy(obj).(map[string]interface{})
		if err := conversion.ApplyPatch(patched, conversion.DefaultsPatch(patched, api.V1alpha3, kind)); err != nil {
			t.Fatal(err)
		}
		spec := patched["spec"].(map[string]interface{})
		if kind == api.KindTemplate {
			spec = spec["spec"].(map[string]interface{})
		}
		for j, r := range spec["devices"].(map[string]interface{})["requests"].([]interface{}) {
			req := r.(map[string]interface{})
			count := int64(0)
			if c, ok := req["count"]; ok {
				count = toInt64(t, c)
			}
			got := fmt.Sprintf("mode=%v count=%d", req["allocationMode"], count)
			fact := verdicts[i].facts[fmt.Sprintf("request[%d]", j)]
			if !strings.Contains(fact, " "+got+" ") {
				t.Errorf("%s request %d (%s}): patched %s; 1.31: %s", kind, j, requests[j], got, fact)
			}
		}
	}
}

func toInt64(t *testing.T, v interface{}) int64 {
	t.Helper()
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	t.Fatalf("count %v (%T)", v, v)
	return 0
}
