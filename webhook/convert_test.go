package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/internal/jsontree"
)

var versions = []string{"v1alpha1", "v1alpha2", "v1alpha3"}

// checkContract asserts what the apiserver requires of a successful
// ConversionReview response.
func checkContract(t *testing.T, reviewVersion, uid, desired string, in [][]byte, body []byte) {
	t.Helper()
	var out struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Response   struct {
			UID              string                   `json:"uid"`
			ConvertedObjects []map[string]interface{} `json:"convertedObjects"`
			Result           metav1.Status            `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if out.APIVersion != reviewVersion || out.Kind != "ConversionReview" {
		t.Errorf("review %s %s, want ConversionReview %s", out.Kind, out.APIVersion, reviewVersion)
	}
	if out.Response.UID != uid {
		t.Errorf("uid %q, want %q", out.Response.UID, uid)
	}
	if out.Response.Result.Status != metav1.StatusSuccess {
		t.Fatalf("result %+v, want Success", out.Response.Result)
	}
	if len(out.Response.ConvertedObjects) != len(in) {
		t.Fatalf("%d converted objects, want %d", len(out.Response.ConvertedObjects), len(in))
	}
	for i, got := range out.Response.ConvertedObjects {
		var orig map[string]interface{}
		if err := json.Unmarshal(in[i], &orig); err != nil {
			t.Fatal(err)
		}
		if got["apiVersion"] != desired {
			t.Errorf("objects[%d].apiVersion %v, want %s", i, got["apiVersion"], desired)
		}
		if got["kind"] != orig["kind"] {
			t.Errorf("objects[%d].kind %v, want %v", i, got["kind"], orig["kind"])
		}
		gm, om := got["metadata"].(map[string]interface{}), orig["metadata"].(map[string]interface{})
		for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "finalizers"} {
			if gb, ob := mustJSON(gm[k]), mustJSON(om[k]); gb != ob {
				t.Errorf("objects[%d].metadata.%s %s, want %s", i, k, gb, ob)
			}
		}
	}
}

func mustJSON(v interface{}) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestConvertHandlerSuccess(t *testing.T) {
	h := newTestConvertHandler(fakeConvert)
	in := [][]byte{fixture(t, "v1alpha1"), fixture(t, "v1alpha2"), fixture(t, "v1alpha3"), withName(t, fixture(t, "v1alpha1"), "second")}
	for _, rv := range []string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"} {
		for _, v := range versions {
			t.Run(rv+"-to-"+v, func(t *testing.T) {
				desired := api.Group + "/" + v
				rec := post(h, conversionReview(rv, "uid-1", desired, in...))
				if rec.Code != http.StatusOK {
					t.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("content type %q", ct)
				}
				checkContract(t, rv, "uid-1", desired, in, rec.Body.Bytes())
				out := decodeConversionResponse(t, rec)
				var last map[string]interface{}
				_ = json.Unmarshal(out.Response.ConvertedObjects[3].Raw, &last)
				if name := last["metadata"].(map[string]interface{})["name"]; name != "second" {
					t.Errorf("order not kept: last object is %v", name)
				}
			})
		}
	}
}

func TestConvertHandlerEmptyObjects(t *testing.T) {
	out := decodeConversionResponse(t, post(newTestConvertHandler(fakeConvert), conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1")))
	if out.Response.Result.Status != metav1.StatusSuccess || len(out.Response.ConvertedObjects) != 0 {
		t.Errorf("got %+v", out.Response)
	}
}

func TestConvertHandlerFailures(t *testing.T) {
	claim := fixture(t, "v1alpha1")
	mutateResult := func(f func(map[string]interface{})) ConvertFunc {
		return func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
			out, _ := fakeConvert(obj, to)
			md := maps.Clone(out["metadata"].(map[string]interface{}))
			out["metadata"] = md
			f(out)
			return out, nil
		}
	}
	withRestoreData := bytes.Replace(claim, []byte(`"annotations":{`), []byte(`"annotations":{"claimbridge.dev/restore-v1alpha2":"{}",`), 1)
	if bytes.Equal(withRestoreData, claim) {
		t.Fatal("the fixture has no annotations to add restore data to")
	}
	tests := map[string]struct {
		convert ConvertFunc
		desired string
		objects [][]byte
		want    []string // substrings of result.message
	}{
		"unknown-desired-group":   {desired: "resource.k8s.io/v1alpha3", objects: [][]byte{claim}, want: []string{`desiredAPIVersion "resource.k8s.io/v1alpha3"`}},
		"unknown-desired-version": {desired: api.Group + "/v1", objects: [][]byte{claim}, want: []string{`desiredAPIVersion "resource.claimbridge.dev/v1" is not served: want resource.claimbridge.dev/v1alpha1, v1alpha2 or v1alpha3`}},
		// The GA versions are targets of claimbridge convert for
		// resource.k8s.io only; the CRD never serves them.
		"ga-desired-v1beta1": {desired: api.Group + "/v1beta1", objects: [][]byte{claim}, want: []string{`desiredAPIVersion "resource.claimbridge.dev/v1beta1" is not served`}},
		"ga-desired-v1beta2": {desired: api.Group + "/v1beta2", objects: [][]byte{claim}, want: []string{`desiredAPIVersion "resource.claimbridge.dev/v1beta2" is not served`}},
		"unknown-kind": {desired: api.Group + "/v1alpha3", objects: [][]byte{claim, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`)},
			want: []string{`objects[1] Pod ns/p: unsupported apiVersion "v1" or kind "Pod": want resource.claimbridge.dev ResourceClaim or ResourceClaimTemplate`}},
		"list-kind":     {desired: api.Group + "/v1alpha3", objects: [][]byte{[]byte(`{"apiVersion":"` + api.Group + `/v1alpha1","kind":"ResourceClaimList","items":[]}`)}, want: []string{"objects[0] ResourceClaimList"}},
		"not-an-object": {desired: api.Group + "/v1alpha3", objects: [][]byte{claim, []byte(`[1,2]`)}, want: []string{"objects[1] is not a JSON object"}},
		"null-object":   {desired: api.Group + "/v1alpha3", objects: [][]byte{[]byte(`null`)}, want: []string{"objects[0] is empty"}},
		"converter-error": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: func(map[string]interface{}, string) (map[string]interface{}, error) { return nil, errors.New("boom") },
			want:    []string{"objects[0] ResourceClaim team-a/gpu-claim (uid 5b0c3b5e-7f0e-4a55-9f4c-3f3f1c2a9e01)", "boom"}},
		"converter-panic": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: func(map[string]interface{}, string) (map[string]interface{}, error) { panic("kaboom") },
			want:    []string{"team-a/gpu-claim", "converter panicked: kaboom"}},
		"converter-nil": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: func(map[string]interface{}, string) (map[string]interface{}, error) { return nil, nil },
			want:    []string{"no object"}},
		"wrong-apiversion": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) { o["apiVersion"] = api.Group + "/v1alpha3" }),
			want:    []string{`apiVersion "resource.claimbridge.dev/v1alpha3"`}},
		"changed-name": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) { o["metadata"].(map[string]interface{})["name"] = "other" }),
			want: []string{"objects[0] ResourceClaim team-a/gpu-claim (uid 5b0c3b5e-7f0e-4a55-9f4c-3f3f1c2a9e01): converted from resource.claimbridge.dev/v1alpha1 to resource.claimbridge.dev/v1alpha2: " +
				"converter changed the identity to ResourceClaim team-a/other (uid 5b0c3b5e-7f0e-4a55-9f4c-3f3f1c2a9e01)"}},
		"changed-kind": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) { o["kind"] = "ResourceClaimTemplate" }),
			want:    []string{"changed the identity"}},
		"changed-metadata": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) { o["metadata"].(map[string]interface{})["resourceVersion"] = "1" }),
			want:    []string{"changed metadata other than labels and annotations"}},
		// A conversion that nests deeper than its input (restore data comes
		// back as objects) must not store what no review could carry back:
		// --max-json-depth 1000 less 3 for the review.
		"result-too-deep": {desired: api.Group + "/v1alpha2", objects: [][]byte{withRestoreData},
			convert: mutateResult(func(o map[string]interface{}) {
				var deep interface{} = "x"
				for i := 0; i < 997; i++ {
					deep = map[string]interface{}{"a": deep}
				}
				o["spec"] = deep
			}),
			want: []string{"objects[0] converted to resource.claimbridge.dev/v1alpha2: the result nests deeper than a review may carry (--max-json-depth 1000, of which the review takes 3)"}},
		"non-string-annotation": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) {
				o["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{"a": json.Number("1")}
			}),
			want: []string{"metadata.annotations that has a non-string value"}},
		"non-string-label": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) {
				o["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"app": true}
			}),
			want: []string{`metadata.labels that has a non-string value at "app"`}},
		"labels-not-an-object": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) { o["metadata"].(map[string]interface{})["labels"] = "app=trainer" }),
			want:    []string{"metadata.labels that is not an object"}},
		// An object without metadata (TestConvertHandlerObjectWithoutMetadata)
		// may come back without, but not with metadata of another type.
		"metadata-not-an-object": {desired: api.Group + "/v1alpha2", objects: [][]byte{[]byte(`{"apiVersion":"` + api.Group + `/v1alpha1","kind":"ResourceClaim","spec":{}}`)},
			convert: func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
				out, _ := fakeConvert(obj, to)
				out["metadata"] = "m"
				return out, nil
			},
			want: []string{"objects[0] ResourceClaim (unnamed): converted from resource.claimbridge.dev/v1alpha1 to resource.claimbridge.dev/v1alpha2: converter returned metadata that is not an object"}},
		"unencodable-result": {desired: api.Group + "/v1alpha2", objects: [][]byte{claim},
			convert: mutateResult(func(o map[string]interface{}) { o["spec"] = math.NaN() }),
			want:    []string{"objects[0] ResourceClaim team-a/gpu-claim (uid 5b0c3b5e-7f0e-4a55-9f4c-3f3f1c2a9e01): encoding converted object: json: unsupported value: NaN"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			convert := tc.convert
			if convert == nil {
				convert = fakeConvert
			}
			h := newTestConvertHandler(convert)
			rec := post(h, conversionReview("apiextensions.k8s.io/v1", "uid-f", tc.desired, tc.objects...))
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			out := decodeConversionResponse(t, rec)
			switch name {
			case "list-kind":
				// An object of a served version but another kind is counted
				// by its version, not by its whole apiVersion (which made
				// every such object "unknown").
				if got := value(t, h.metrics.conversions.WithLabelValues("v1alpha1", "v1alpha3", "unsupported")); got != 1 {
					t.Errorf("unsupported conversions from v1alpha1: %v, want 1 (the list)", got)
				}
			case "unknown-kind":
				if got := value(t, h.metrics.conversions.WithLabelValues("unknown", "v1alpha3", "unsupported")); got != 1 {
					t.Errorf("unsupported conversions from unknown: %v, want 1 (the Pod)", got)
				}
			case "converter-error", "unencodable-result":
				if got := value(t, h.metrics.conversions.WithLabelValues("v1alpha1", "v1alpha2", "failure")); got != 1 {
					t.Errorf("failed conversions from v1alpha1 to v1alpha2: %v, want 1", got)
				}
			case "converter-panic":
				if got := value(t, h.metrics.panics.WithLabelValues("/convert")); got != 1 {
					t.Errorf("panics on /convert: %v, want 1", got)
				}
			}
			r := out.Response
			if r.UID != "uid-f" || r.Result.Status != metav1.StatusFailure || len(r.ConvertedObjects) != 0 {
				t.Fatalf("got %+v, want Failure for uid-f with no objects", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Result.Message, w) {
					t.Errorf("message %q does not contain %q", r.Result.Message, w)
				}
			}
		})
	}
}

func TestConvertHandlerDeadline(t *testing.T) {
	h := newTestConvertHandler(fakeConvert)
	h.timeout = -1 // already expired
	out := decodeConversionResponse(t, post(h, conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3"))))
	if out.Response.Result.Status != metav1.StatusFailure || !strings.Contains(out.Response.Result.Message, "deadline") {
		t.Errorf("got %+v", out.Response.Result)
	}
}

// TestConvertContract runs the real conversion.Convert through the handler
// and checks the apiserver's contract, with two objects per review (the
// second converted into the same response after the first).
func TestConvertContract(t *testing.T) {
	h := newTestConvertHandler(defaultConverter)
	for _, from := range versions {
		for _, to := range versions {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				in := [][]byte{fixture(t, from), withName(t, fixture(t, from), "copy")}
				desired := api.Group + "/" + to
				rec := post(h, conversionReview("apiextensions.k8s.io/v1", "uid-c", desired, in...))
				out := decodeConversionResponse(t, rec)
				if out.Response.Result.Status != "Success" {
					t.Fatalf("conversion failed: %s", out.Response.Result.Message)
				}
				checkContract(t, "apiextensions.k8s.io/v1", "uid-c", desired, in, rec.Body.Bytes())
			})
		}
	}
}

// TestConvertRecycledMaps converts claims of every version and shape to
// every version, in turns and from several goroutines, through one handler,
// whose reviews decode into maps earlier reviews gave back
// (jsontree.Recycler): every answer must be the conversion of its own
// object, with nothing left from another.
func TestConvertRecycledMaps(t *testing.T) {
	var objects [][]byte
	for _, d := range testdataObjects(t, "*.yaml") {
		d.object["apiVersion"] = strings.Replace(d.object["apiVersion"].(string), conversion.UpstreamGroup, api.Group, 1)
		raw, err := json.Marshal(d.object)
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, raw)
	}
	if len(objects) < 20 {
		t.Fatalf("only %d objects in conversion/testdata", len(objects))
	}
	type job struct {
		body []byte
		want []byte
	}
	var jobs []job
	for _, raw := range objects {
		for _, v := range versions {
			obj, err := decodeObject(raw)
			if err != nil {
				t.Fatal(err)
			}
			out, err := conversion.Convert(obj, v)
			if err != nil {
				continue // the converter refuses it: not this test's concern
			}
			// An object without metadata is answered with an empty one
			// (TestConvertHandlerObjectWithoutMetadata).
			want, err := jsontree.Append(nil, ensureMetadata(out), true)
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{conversionReview("apiextensions.k8s.io/v1", "uid-r", api.Group+"/"+v, raw), want})
		}
	}
	h := newTestConvertHandler(defaultConverter)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for i := range jobs {
					j := jobs[(i*7+g*13+round)%len(jobs)]
					var out apiextensionsv1.ConversionReview
					if err := json.Unmarshal(post(h, j.body).Body.Bytes(), &out); err != nil || out.Response == nil {
						t.Errorf("review %s: answer does not decode: %v", j.body, err)
						return
					}
					if out.Response.Result.Status != metav1.StatusSuccess || len(out.Response.ConvertedObjects) != 1 {
						t.Errorf("review %s: %+v", j.body, out.Response.Result)
						return
					}
					if got := out.Response.ConvertedObjects[0].Raw; !bytes.Equal(got, j.want) {
						t.Errorf("review %s:\ngot  %s\nwant %s", j.body, got, j.want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestConvertHandlerObjectWithoutMetadata: kube-apiserver sends objects
// without metadata (server-side apply by a field manager that applied
// through another version before: the pruned object), and refuses an
// answer without a metadata object ("missing metadata in converted
// object"), which conversion, keeping an absent metadata absent, gave. The
// answer has an empty one, and the restore annotations conversion adds; the
// request's object is not changed.
func TestConvertHandlerObjectWithoutMetadata(t *testing.T) {
	h := newTestConvertHandler(defaultConverter)
	for _, c := range []struct {
		name, in, desired string
		wantMeta          map[string]interface{}
	}{
		{"nothing to keep", `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","status":{"reservedFor":[{"resource":"pods","name":"p","uid":"1"}]}}`,
			"v1alpha3", map[string]interface{}{}},
		{"null metadata", `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":null}`,
			"v1alpha2", map[string]interface{}{}},
		{"restore annotation", `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","spec":{"resourceClassName":"gpu.example.com","allocationMode":"Immediate"}}`,
			"v1alpha3", map[string]interface{}{"annotations": map[string]interface{}{
				"claimbridge.dev/restore-v1alpha2": `{"spec":{"base":"c08a10c498a5d40d","patch":[{"op":"replace","path":"/spec/allocationMode","value":"Immediate"}]},"created":"metadata"}`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := post(h, conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/"+c.desired, []byte(c.in)))
			out := decodeConversionResponse(t, rec)
			if out.Response.Result.Status != metav1.StatusSuccess || len(out.Response.ConvertedObjects) != 1 {
				t.Fatalf("got %+v", out.Response)
			}
			var got map[string]interface{}
			if err := json.Unmarshal(out.Response.ConvertedObjects[0].Raw, &got); err != nil {
				t.Fatal(err)
			}
			meta, ok := got["metadata"].(map[string]interface{})
			if !ok {
				t.Fatalf("converted object has no metadata object: %s", out.Response.ConvertedObjects[0].Raw)
			}
			if diff := cmp.Diff(c.wantMeta, meta); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConvertHandlerClientGone: a review whose client has gone converts no
// object and fails, naming the first object not converted.
func TestConvertHandlerClientGone(t *testing.T) {
	var calls atomic.Int64
	h := newTestConvertHandler(func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		calls.Add(1)
		return fakeConvert(obj, to)
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3")))).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out := decodeConversionResponse(t, rec)
	want := "objects[0] and later not converted to resource.claimbridge.dev/v1alpha1: context canceled"
	if out.Response.Result.Status != metav1.StatusFailure || out.Response.Result.Message != want {
		t.Errorf("got %+v, want Failure %q", out.Response.Result, want)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the converter ran %d times, want 0", n)
	}
}

// TestConvertHandlerAllowsLabelAndAnnotationChanges: a converter may change
// the labels and annotations (the apiserver keeps them from the answer).
func TestConvertHandlerAllowsLabelAndAnnotationChanges(t *testing.T) {
	h := newTestConvertHandler(func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		out, _ := fakeConvert(obj, to)
		md := maps.Clone(out["metadata"].(map[string]interface{}))
		md["labels"] = map[string]interface{}{"app": "converted"}
		md["annotations"] = map[string]interface{}{"example.com/note": "converted"}
		out["metadata"] = md
		return out, nil
	})
	out := decodeConversionResponse(t, post(h, conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha2", fixture(t, "v1alpha1"))))
	if out.Response.Result.Status != metav1.StatusSuccess || len(out.Response.ConvertedObjects) != 1 {
		t.Fatalf("got %+v, want Success with one object", out.Response)
	}
	var got struct {
		Metadata struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out.Response.ConvertedObjects[0].Raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Metadata.Labels["app"] != "converted" || got.Metadata.Annotations["example.com/note"] != "converted" {
		t.Errorf("metadata %+v, want the converter's labels and annotations", got.Metadata)
	}
}

// TestDecodeObject: one JSON object, numbers as json.Number; anything else
// is refused with what it is.
func TestDecodeObject(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want map[string]interface{}
		err  string
	}{
		{raw: `{"a":1}`, want: map[string]interface{}{"a": json.Number("1")}},
		{raw: " {} \n", want: map[string]interface{}{}},
		{raw: ``, err: "is empty"},
		{raw: " \t", err: "is empty"},
		{raw: ` null `, err: "is empty"},
		{raw: `[1]`, err: "is not a JSON object: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{raw: `{"a":`, err: "is not a JSON object: unexpected EOF"},
		{raw: `{} {}`, err: "has data after the JSON object"},
		{raw: `{"a":1} x`, err: "has data after the JSON object"},
		{raw: `null {}`, err: "has data after the JSON object"},
	} {
		got, err := decodeObject([]byte(tc.raw))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: got %v, error %v; want error %q", tc.raw, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, error %v; want %#v", tc.raw, got, err, tc.want)
		}
	}
}
