package validation

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// sameVerdictFromJSON fails t unless a status write given as JSON (as the
// webhook holds it) gets exactly the verdict of the same write given as the
// trees the JSON decodes to; it reports whether the JSON alone decided it,
// and whether the write is invalid.
func sameVerdictFromJSON(t *testing.T, data, oldData []byte) (decided, invalid bool) {
	t.Helper()
	fromJSON := Request{Operation: Update, SubResource: "status", ObjectJSON: data, OldObjectJSON: oldData}
	got, gotErr := Validate(fromJSON)
	fromTrees := Request{Operation: Update, SubResource: "status"}
	want, wantErr := Response{}, error(nil)
	if fromTrees.Object, wantErr = api.DecodeObject(data); wantErr == nil {
		if fromTrees.OldObject, wantErr = api.DecodeObject(oldData); wantErr == nil {
			want, wantErr = Validate(fromTrees)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" || (gotErr == nil) != (wantErr == nil) || gotErr != nil && !bytes.Contains([]byte(gotErr.Error()), []byte(wantErr.Error())) {
		t.Errorf("status write\n%s\nover\n%s\n(-trees +JSON):\n%s\nerrors: %v, %v", data, oldData, diff, wantErr, gotErr)
	}
	_, decided = storageStatusFromJSON(fromJSON)
	return decided, len(got.Errors) > 0
}

// TestStatusFromJSON: every status write of the view fixtures (each version,
// with and without restore data, deleted or not, statuses that pass and
// fail) gets from its JSON the verdict its trees get through every version.
// The storage version's writes without other restore data are decided from
// the JSON alone; the others by the trees.
func TestStatusFromJSON(t *testing.T) {
	requireConversion(t)
	decided, trees, invalid := 0, 0, 0
	for _, base := range viewFixtures(t) {
		for _, newStatus := range statusVariants(base) {
			for _, oldStatus := range statusVariants(base) {
				fromJSON, bad := sameVerdictFromJSON(t, mustAppendJSON(t, withStatus(base, newStatus)), mustAppendJSON(t, withStatus(base, oldStatus)))
				if fromJSON {
					decided++
				} else {
					trees++
				}
				if bad {
					invalid++
				}
			}
		}
	}
	if decided == 0 || trees == 0 || invalid == 0 {
		t.Errorf("%d writes decided from JSON, %d by the trees, %d invalid: the test no longer covers each", decided, trees, invalid)
	}
}

// FuzzStatusFromJSON: for any status JSON, new and old, of the v1alpha3
// test claim, deleted or not, the verdict from the JSON is the trees'. The
// status is spliced in as bytes: duplicate keys, unknown fields and escapes
// reach both paths as the webhook receives them.
func FuzzStatusFromJSON(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "claim-v1alpha3.json"))
	if err != nil {
		f.Fatal(err)
	}
	base := obj(f, string(data))
	status := mustAppendJSON(f, base["status"])
	delete(base, "status")
	f.Add(status, status, false)
	f.Add(status, []byte(`{}`), false)
	f.Add([]byte(`{"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}`), status, true)
	f.Add([]byte(`{"reservedFor":[],"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}`), status, false)
	f.Add([]byte(`{"allocation":{"devices":{"results":[]}}}`), []byte(`{"allocation":{"devices":{}}}`), false)
	f.Add([]byte(`{"unknown":1}`), status, false)
	f.Add([]byte(`null`), status, false)
	// The claim without its status, live and deleted, as JSON: built once,
	// not for each input.
	var heads [2][]byte
	for i, deleted := range []bool{false, true} {
		o := deepCopyJSON(base)
		if deleted {
			o["metadata"].(map[string]interface{})["deletionTimestamp"] = "2024-10-01T00:00:00Z"
		}
		head := mustAppendJSON(f, o)
		heads[i] = append(head[:len(head)-1:len(head)-1], `,"status":`...)
	}
	objectJSON := func(status []byte, deleted bool) []byte {
		head := heads[0]
		if deleted {
			head = heads[1]
		}
		return append(append(append(make([]byte, 0, len(head)+len(status)+1), head...), status...), '}')
	}
	f.Fuzz(func(t *testing.T, newStatus, oldStatus []byte, deleted bool) {
		sameVerdictFromJSON(t, objectJSON(newStatus, false), objectJSON(oldStatus, deleted))
	})
}

// TestStatusFromJSONParameters: opaque parameters that differ from the
// stored ones only as JSON text (spacing, key order, escapes, invalid
// UTF-8, which the trees hold as U+FFFD) get the trees' verdict from the
// JSON: the write that keeps the allocation passes, the one that changes
// it fails alike, both decided from the JSON alone.
func TestStatusFromJSONParameters(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "claim-v1alpha3.json"))
	if err != nil {
		t.Fatal(err)
	}
	base := obj(t, string(data))
	status := mustAppendJSON(t, base["status"])
	delete(base, "status")
	head := mustAppendJSON(t, base)
	objectJSON := func(status []byte) []byte {
		return append(append(append(bytes.Clone(head[:len(head)-1]), `,"status":`...), status...), '}')
	}
	for name, edit := range map[string][2]string{
		"spacing":       {`"sharing":{`, `"sharing": {`},
		"key-order":     {`"apiVersion":"gpu.example.com/v1","kind":"GpuConfig"`, `"kind":"GpuConfig","apiVersion":"gpu.example.com/v1"`},
		"duplicate-key": {`"kind":"GpuConfig"`, `"kind":"Other","kind":"GpuConfig"`},
		"escape":        {`"TimeSlicing"`, `"Time\u0053licing"`},
		"invalid-utf8":  {`"strategy"`, "\"s\x9a\x9atrategy\""},
	} {
		t.Run(name, func(t *testing.T) {
			kept := bytes.Replace(status, []byte(edit[0]), []byte(edit[1]), 1)
			if bytes.Equal(kept, status) {
				t.Fatalf("%q is not in the status", edit[0])
			}
			changed := bytes.Replace(kept, []byte(`"driver":"gpu.example.com","pool"`), []byte(`"driver":"gpu.exxmple.com","pool"`), 1)
			for _, write := range []struct {
				status  []byte
				invalid bool
			}{{kept, name == "invalid-utf8"}, {changed, true}} {
				decided, invalid := sameVerdictFromJSON(t, objectJSON(write.status), objectJSON(status))
				if !decided || invalid != write.invalid {
					t.Errorf("%s: decided from the JSON %v, invalid %v; want true, %v", write.status, decided, invalid, write.invalid)
				}
			}
		})
	}
}
