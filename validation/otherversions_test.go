package validation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// viewFixtures are the webhook's testdata claims, each also as converted
// into every version (so with restore annotations) and with a deletion
// timestamp.
func viewFixtures(t *testing.T) map[string]map[string]interface{} {
	t.Helper()
	out := map[string]map[string]interface{}{}
	for _, v := range versions {
		data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "claim-"+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		o := obj(t, string(data))
		for _, to := range versions {
			c := mustConvert(t, o, to)
			out[v+"-as-"+to] = c
			deleted := deepCopyJSON(c)
			deleted["metadata"].(map[string]interface{})["deletionTimestamp"] = "2024-10-01T00:00:00Z"
			out[v+"-as-"+to+"-deleted"] = deleted
		}
	}
	return out
}

// The chained views are the views of a direct conversion.
func TestViewChainMatchesDirectConversion(t *testing.T) {
	requireConversion(t)
	skipCoveredConversions = false
	defer func() { skipCoveredConversions = true }()
	fixtures := viewFixtures(t)
	for name, o := range fixtures {
		old := deepCopyJSON(o)
		delete(old["status"].(map[string]interface{}), "reservedFor")
		tgt, err := parseObjectType(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, statusOnly := range []bool{false, true} {
			got := convertToOtherVersions(tgt, statusOnly, false, o, old)
			for _, version := range versions {
				if version == tgt.version {
					continue
				}
				var want [2]comparedParts
				for i, x := range []map[string]interface{}{o, old} {
					c, err := conversion.Convert(x, version)
					if err != nil {
						t.Fatalf("%s: converting to %s: %v", name, version, err)
					}
					if want[i], err = rulesFor[version].decodeParts(KindResourceClaim, c); err != nil {
						t.Fatal(err)
					}
				}
				pair := got[version]
				if pair.err != nil {
					t.Fatalf("%s to %s: %v", name, version, pair.err)
				}
				for i, v := range []comparedParts{pair.newParts, pair.oldParts} {
					if statusOnly {
						// Only what a status write compares is decoded.
						w := want[i]
						cmpView(t, name, version, statusOnly,
							[]interface{}{w.meta.DeletionTimestamp, w.allocation, w.status},
							[]interface{}{v.meta.DeletionTimestamp, v.allocation, v.status})
						continue
					}
					cmpView(t, name, version, statusOnly,
						[]interface{}{*want[i].meta, want[i].spec, want[i].allocation, want[i].status},
						[]interface{}{*v.meta, v.spec, v.allocation, v.status})
				}
			}
		}
	}
}

func cmpView(t *testing.T, name, version string, statusOnly bool, want, got []interface{}) {
	t.Helper()
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if diff := cmp.Diff(string(w), string(g)); diff != "" {
		t.Errorf("%s as %s (statusOnly %v): view (-direct +chained):\n%s", name, version, statusOnly, diff)
	}
}

// A version that cannot show the object reports the direct conversion's
// error, and a failed step leaves the versions beyond it without a view.
func TestViewChainConversionError(t *testing.T) {
	requireConversion(t)
	big := make([]interface{}, 32)
	for i := range big {
		big[i] = map[string]interface{}{"driverName": "gpu.example.com", "data": string(make([]byte, 16*1024))}
	}
	o := map[string]interface{}{
		"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
		"spec":     map[string]interface{}{"resourceClassName": "gpu.example.com"},
		"status": map[string]interface{}{"driverName": "gpu.example.com",
			"allocation": map[string]interface{}{"resourceHandles": big, "shareable": true}},
	}
	// Shown as v1alpha3, the claim cannot go back to v1alpha1 through v1alpha2.
	v3 := mustConvert(t, o, "v1alpha3")
	_, direct := conversion.Convert(v3, "v1alpha1")
	if direct == nil {
		t.Fatal("the claim was expected not to fit v1alpha1; the test no longer tests what it says")
	}
	got := convertToOtherVersions(objectType{group: GroupClaimbridge, version: "v1alpha3", kind: KindResourceClaim}, false, false, v3, v3)
	if got["v1alpha2"].err != nil {
		t.Errorf("v1alpha2: %v", got["v1alpha2"].err)
	}
	want := direct.Error() // once: the conversion error already names both versions
	if err := got["v1alpha1"].err; err == nil || err.Error() != want {
		t.Errorf("v1alpha1 error:\n got %v\nwant %s", err, want)
	}
}

// Skipping the v1alpha1 views of a v1alpha3 status write changes no
// verdict: every status write below, between every pair of statuses, gets
// the same findings with and without the shortcut, and the shortcut is
// taken for the claims created in v1alpha3.
func TestSkippedV1alpha1ViewsReportNothingNew(t *testing.T) {
	requireConversion(t)
	consumer := func(name string) interface{} {
		return map[string]interface{}{"resource": "pods", "name": name, "uid": "uid-" + name}
	}
	fixtures := viewFixtures(t)
	skipped := 0
	for _, origin := range versions {
		// Each claim as stored (v1alpha3) and deleted, with statuses made
		// from its own: with and without allocation, consumers and a
		// deallocation request.
		base := fixtures[origin+"-as-v1alpha3"]["status"].(map[string]interface{})
		var statuses []map[string]interface{}
		for _, rf := range [][]interface{}{nil, {consumer("a")}, {consumer("a"), consumer("b")}} {
			for _, dealloc := range []bool{false, true} {
				for _, allocated := range []bool{false, true} {
					s := deepCopyJSON(base)
					delete(s, "reservedFor")
					if rf != nil {
						s["reservedFor"] = rf
					}
					if dealloc {
						s["deallocationRequested"] = true
					}
					if !allocated {
						delete(s, "allocation")
					}
					statuses = append(statuses, s)
				}
			}
		}
		for _, name := range []string{origin + "-as-v1alpha3", origin + "-as-v1alpha3-deleted"} {
			o := fixtures[name]
			tgt, err := parseObjectType(o)
			if err != nil {
				t.Fatal(err)
			}
			for i, oldStatus := range statuses {
				for j, newStatus := range statuses {
					old, cur := deepCopyJSON(o), deepCopyJSON(o)
					old["status"], cur["status"] = oldStatus, newStatus
					req := Request{Operation: Update, SubResource: "status", Object: cur, OldObject: old}
					skipCoveredConversions = false
					want, errWant := Validate(req)
					skipCoveredConversions = true
					got, errGot := Validate(req)
					if diff := cmp.Diff(want.Errors, got.Errors); diff != "" || (errWant == nil) != (errGot == nil) {
						t.Errorf("%s, status %d → %d: findings (-all views +shortcut):\n%s\nerrors %v %v", name, i, j, diff, errWant, errGot)
					}
					if convertToOtherVersions(tgt, true, false, cur, old)["v1alpha1"].coveredBy != "" {
						skipped++
					}
				}
			}
		}
	}
	if skipped == 0 {
		t.Error("the shortcut was never taken; the test no longer tests what it says")
	}
}

// Which views a write skips: on a v1alpha3 status write of a status that
// surely fits, all of them without a v1alpha2 or v1alpha1 restore
// annotation, else the v1alpha1 ones when the v1alpha2 views carry no
// restore-v1alpha1; none on a main update, on a status write in another
// version, or of a status too large to be sure. (The tests above show that
// skipping changes no verdict; this one that each shortcut is taken.)
func TestStatusWriteSkipsViews(t *testing.T) {
	requireConversion(t)
	fixtures := viewFixtures(t)
	big := func(name string) map[string]interface{} {
		return annotate(deepCopyJSON(fixtures[name]), "example.com/big", strings.Repeat("x", 200*1024))
	}
	for name, sc := range map[string]struct {
		obj        map[string]interface{}
		statusOnly bool
		want       map[string]string // version: coveredBy
	}{
		"status-write-of-a-claim-created-in-v1alpha3": {
			obj: fixtures["v1alpha3-as-v1alpha3"], statusOnly: true,
			want: map[string]string{"v1alpha2": "v1alpha3", "v1alpha1": "v1alpha3"},
		},
		"status-write-of-a-claim-created-in-v1alpha2": {
			obj: fixtures["v1alpha2-as-v1alpha3"], statusOnly: true,
			want: map[string]string{"v1alpha2": "", "v1alpha1": "v1alpha2"},
		},
		"main-update-of-a-claim-created-in-v1alpha3": {
			obj: fixtures["v1alpha3-as-v1alpha3"], statusOnly: false,
			want: map[string]string{"v1alpha2": "", "v1alpha1": ""},
		},
		"main-update-of-a-claim-created-in-v1alpha2": {
			obj: fixtures["v1alpha2-as-v1alpha3"], statusOnly: false,
			want: map[string]string{"v1alpha2": "", "v1alpha1": ""},
		},
		"status-write-in-v1alpha2": {
			obj: fixtures["v1alpha3-as-v1alpha2"], statusOnly: true,
			want: map[string]string{"v1alpha3": "", "v1alpha1": ""},
		},
		"status-write-of-a-claim-created-in-v1alpha3-too-large-to-be-sure": {
			obj: big("v1alpha3-as-v1alpha3"), statusOnly: true,
			want: map[string]string{"v1alpha2": "", "v1alpha1": ""},
		},
		"status-write-of-a-claim-created-in-v1alpha2-too-large-to-be-sure": {
			obj: big("v1alpha2-as-v1alpha3"), statusOnly: true,
			want: map[string]string{"v1alpha2": "", "v1alpha1": ""},
		},
	} {
		t.Run(name, func(t *testing.T) {
			tgt, err := parseObjectType(sc.obj)
			if err != nil {
				t.Fatal(err)
			}
			old := deepCopyJSON(sc.obj)
			delete(old["status"].(map[string]interface{}), "reservedFor")
			got := map[string]string{}
			for version, pair := range convertToOtherVersions(tgt, sc.statusOnly, false, sc.obj, old) {
				got[version] = pair.coveredBy
			}
			if diff := cmp.Diff(sc.want, got); diff != "" {
				t.Errorf("views skipped for (-want +got):\n%s", diff)
			}
		})
	}
}

// The v1alpha3 status-write shortcut reasons about v1alpha1 and v1alpha2
// only: it is off as soon as another version is served, or one of them is
// not.
func TestOthersAreClassic(t *testing.T) {
	served := versions
	defer func() { versions = served }()
	for name, sc := range map[string]struct {
		versions []string
		want     bool
	}{
		"the-three-alpha-versions": {[]string{"v1alpha1", "v1alpha2", "v1alpha3"}, true},
		"a-newer-version-as-well":  {[]string{"v1alpha1", "v1alpha2", "v1alpha3", "v1beta1"}, false},
		"v1alpha1-not-served":      {[]string{"v1alpha2", "v1alpha3"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			versions = sc.versions
			if got := othersAreClassic(); got != sc.want {
				t.Errorf("othersAreClassic() = %v, want %v", got, sc.want)
			}
		})
	}
}
