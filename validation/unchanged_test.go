package validation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// The shortcuts of unchanged.go change no verdict: every update below — of
// every fixture claim in every version it can be shown in (with its restore
// annotations, without them, deleted), through the main resource (labels,
// finalizers, an annotation, a restore annotation, the spec) and through the
// status (reservations, duplicates, deallocation requests, the allocation
// kept, removed, changed, made unshareable) — gets the same findings and
// warnings with the shortcuts as with every view computed, and both paths
// are taken.
func TestUnchangedShortcutsReportNothingNew(t *testing.T) {
	requireConversion(t)
	consumer := func(name string) interface{} {
		return map[string]interface{}{"resource": "pods", "name": name, "uid": "uid-" + name}
	}
	taken, notTaken, nativeFacts, convertedFacts := 0, 0, 0, 0
	check := func(name string, req Request) {
		t.Helper()
		checkShortcutsAgree(t, name, req)
		var except []string
		if req.SubResource == "status" {
			except = statusCommonFields
			req.Object = prepareForStatusUpdate(req.Object, req.OldObject)
		} else {
			req.Object = prepareForUpdate(req.Object, req.OldObject, KindResourceClaim)
		}
		if sameConversionInput(req.Object, req.OldObject, except...) {
			if req.SubResource == "status" {
				// The derived old views are the computed ones.
				tgt, err := parseObjectType(req.Object)
				if err != nil {
					t.Fatal(err)
				}
				skipCoveredConversions, skipFactConversion = false, false
				full, converted := convertToOtherVersions(tgt, true, false, req.Object, req.OldObject), convertToOtherVersions(tgt, true, true, req.Object, req.OldObject)
				skipFactConversion = true
				native := convertToOtherVersions(tgt, true, true, req.Object, req.OldObject)
				skipCoveredConversions = true
				if _, ok := pairsFromOwnStatusFacts(tgt, req.Object, req.OldObject); ok {
					nativeFacts++
				} else {
					convertedFacts++
				}
				// What the status checks read of them (statusFacts).
				facts := func(v comparedParts) string {
					return fmt.Sprintf("%+v deleted=%v", v.status, v.meta != nil && v.meta.DeletionTimestamp != nil)
				}
				for version, pair := range full {
					for how, derived := range map[string]map[string]convertedPair{"converted": converted, "native": native} {
						d := derived[version]
						if fmt.Sprint(pair.err) != fmt.Sprint(d.err) || (pair.err == nil &&
							(facts(pair.newParts) != facts(d.newParts) || facts(pair.oldParts) != facts(d.oldParts) ||
								!reflect.DeepEqual(pair.newParts.allocation, pair.oldParts.allocation))) {
							t.Errorf("%s: the %s derived %s views differ from the computed ones:\n%+v\n%+v", name, how, version, pair, d)
						}
					}
				}
			}
			taken++
		} else {
			notTaken++
		}
	}
	for name, fixture := range viewFixtures(t) {
		for _, strip := range []bool{false, true} {
			if strip && strings.HasSuffix(name, "-deleted") {
				continue
			}
			o := fixture
			if strip {
				o = stripRestore(o)
			}
			name := fmt.Sprintf("%s (restore annotations stripped: %v)", name, strip)
			version := o["apiVersion"].(string)[len(GroupClaimbridge)+1:]

			mains := map[string]func(m map[string]interface{}){
				"label":      func(m map[string]interface{}) { meta(m)["labels"] = map[string]interface{}{"bench": "updated"} },
				"finalizer":  func(m map[string]interface{}) { meta(m)["finalizers"] = []interface{}{"example.com/f"} },
				"annotation": func(m map[string]interface{}) { annotationsOf(m)["example.com/x"] = "y" },
				"restore annotation": func(m map[string]interface{}) {
					annotationsOf(m)[conversion.RestoreAnnotation("v1alpha3")] = `{"spec":{"base":"x","patch":[]}}`
				},
				"spec": func(m map[string]interface{}) {
					spec := m["spec"].(map[string]interface{})
					if version == "v1alpha3" {
						spec["devices"] = map[string]interface{}{}
					} else {
						spec["resourceClassName"] = "other.example.com"
					}
				},
				"status sent": func(m map[string]interface{}) { delete(m, "status") },
			}
			for what, change := range mains {
				cur := deepCopyJSON(o)
				change(cur)
				check(name+", main update of the "+what, Request{Operation: Update, Object: cur, OldObject: o})
			}

			base, _ := o["status"].(map[string]interface{})
			type variant struct{ rf, alloc int }
			var statuses []map[string]interface{}
			var variants []variant
			for rfi, rf := range [][]interface{}{nil, {consumer("a")}, {consumer("a"), consumer("b")}, {consumer("a"), consumer("a")}} {
				for _, dealloc := range []bool{false, true} {
					for alloci, alloc := range []string{"same", "none", "null", "changed", "unshareable"} {
						s := deepCopyJSON(base)
						delete(s, "reservedFor")
						delete(s, "deallocationRequested")
						if rf != nil {
							s["reservedFor"] = rf
						}
						if dealloc {
							s["deallocationRequested"] = true
						}
						a, _ := s["allocation"].(map[string]interface{})
						switch alloc {
						case "none":
							delete(s, "allocation")
						case "null":
							s["allocation"] = nil
						case "changed":
							if a == nil {
								continue
							}
							selector := map[string]interface{}{"nodeSelectorTerms": []interface{}{map[string]interface{}{
								"matchFields": []interface{}{map[string]interface{}{"key": "metadata.name", "operator": "In", "values": []interface{}{"node-9"}}}}}}
							if version == "v1alpha3" {
								a["nodeSelector"] = selector
							} else {
								a["availableOnNodes"] = selector
							}
						case "unshareable":
							if a == nil || version == "v1alpha3" {
								continue
							}
							a["shareable"] = false
						}
						statuses = append(statuses, s)
						variants = append(variants, variant{rfi, alloci})
					}
				}
			}
			for i, oldStatus := range statuses {
				for j, newStatus := range statuses {
					// Every pair with the same allocation (the shortcuts'
					// domain), and a sample of the others.
					if variants[i].alloc != variants[j].alloc && variants[i].rf != 0 {
						continue
					}
					old, cur := deepCopyJSON(o), deepCopyJSON(o)
					old["status"], cur["status"] = oldStatus, newStatus
					check(fmt.Sprintf("%s, status %d → %d", name, i, j), Request{Operation: Update, SubResource: "status", Object: cur, OldObject: old})
				}
			}
		}
	}
	if taken == 0 || notTaken == 0 {
		t.Errorf("shortcuts taken %d times, not taken %d times: the test no longer tests both", taken, notTaken)
	}
	if nativeFacts == 0 || convertedFacts == 0 {
		t.Errorf("status facts from the request's own %d times, converted %d times: the test no longer tests both", nativeFacts, convertedFacts)
	}
	t.Logf("shortcuts taken %d times, not taken %d times; status facts from the request's own %d times, converted %d times", taken, notTaken, nativeFacts, convertedFacts)
}

func meta(o map[string]interface{}) map[string]interface{} {
	return o["metadata"].(map[string]interface{})
}

func annotationsOf(o map[string]interface{}) map[string]interface{} {
	m := meta(o)
	ann, _ := m["annotations"].(map[string]interface{})
	if ann == nil {
		ann = map[string]interface{}{}
		m["annotations"] = ann
	}
	return ann
}

// commonStatusOfTree reads what the typed decoding reads, or declines.
func TestCommonStatusOfTree(t *testing.T) {
	for _, status := range []string{
		`{}`, `{"reservedFor":null,"deallocationRequested":null}`, `{"reservedFor":[]}`,
		`{"reservedFor":[{"resource":"pods","name":"a","uid":"1"},{"apiGroup":"g","resource":"r","name":"b","uid":"2","extra":1}],"deallocationRequested":true}`,
		`{"reservedFor":[{"resource":null}],"deallocationRequested":false}`,
		`{"reservedFor":[{"resource":1}]}`, `{"reservedFor":[null]}`, `{"reservedFor":{}}`, `{"deallocationRequested":"yes"}`,
	} {
		for _, version := range versions {
			o := obj(t, `{"apiVersion":"`+GroupClaimbridge+`/`+version+`","kind":"ResourceClaim","status":`+status+`}`)
			tree, ok := commonStatusOfTree(o["status"].(map[string]interface{}))
			reduced := map[string]interface{}{"apiVersion": o["apiVersion"], "kind": o["kind"], "status": o["status"]}
			typed, err := rulesFor[version].decodeParts(KindResourceClaim, reduced)
			if !ok {
				continue // the typed decoding decides
			}
			if err != nil {
				t.Errorf("%s %s: read %+v, typed decoding fails: %v", version, status, tree, err)
				continue
			}
			if !reflect.DeepEqual(tree.ReservedFor, typed.status.ReservedFor) || tree.DeallocationRequested != typed.status.DeallocationRequested {
				t.Errorf("%s %s: read %+v, typed %+v", version, status, tree, typed.status)
			}
		}
	}
}

// checkShortcutsAgree requires the same verdict for req with the shortcuts
// off (every view computed) and on.
func checkShortcutsAgree(t *testing.T, name string, req Request) {
	t.Helper()
	skipUnchanged, skipCoveredConversions, skipFactConversion = false, false, false
	want, errWant := Validate(req)
	skipUnchanged, skipCoveredConversions, skipFactConversion = true, true, true
	got, errGot := Validate(req)
	if diff := cmp.Diff(want, got); diff != "" || fmt.Sprint(errWant) != fmt.Sprint(errGot) {
		t.Errorf("%s: verdict (-all views +shortcuts):\n%s\nerrors %v / %v", name, diff, errWant, errGot)
	}
}

// pairsFromOwnStatusFacts is pairsFromStatusFacts when restoreStatusOps
// allows it, as convertToOtherVersions tries it.
func pairsFromOwnStatusFacts(t objectType, newObj, oldObj map[string]interface{}) (map[string]convertedPair, bool) {
	if _, facts := restoreStatusOps(t, newObj); facts {
		return nil, false
	}
	return pairsFromStatusFacts(t, newObj, oldObj)
}
