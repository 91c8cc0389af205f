package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// judged is a release's verdict on one object: findings and facts.
type judged struct {
	errs  []string
	facts map[string]string
}

// judge asks the oracle of the release serving obj's version whether obj
// can be created, and, for a claim with status, whether that status can be
// written onto it; the facts are those of the last write.
func judge(t *testing.T, objs []map[string]interface{}) []judged {
	t.Helper()
	byRelease := map[string][]scenario{}
	var order []struct {
		release string
		idx     []int
	}
	for _, obj := range objs {
		version := versionOf(t, obj)
		release := releaseOf[version]
		name := objName(obj)
		spec := deepCopy(obj).(map[string]interface{})
		status, hasStatus := spec["status"]
		delete(spec, "status")
		ss := []scenario{{Name: name + "/create", Op: "create", Object: spec}}
		if hasStatus && status != nil {
			stored, written := deepCopy(spec).(map[string]interface{}), deepCopy(obj).(map[string]interface{})
			setDefaultResourceVersion(stored)
			setDefaultResourceVersion(written)
			ss = append(ss, scenario{Name: name + "/status", Op: "status", Object: written, Old: stored})
		}
		start := len(byRelease[release])
		byRelease[release] = append(byRelease[release], ss...)
		idx := []int{}
		for i := range ss {
			idx = append(idx, start+i)
		}
		order = append(order, struct {
			release string
			idx     []int
		}{release, idx})
	}
	answers := map[string][]answer{}
	for release, ss := range byRelease {
		answers[release] = runOracle(t, release, ss)
	}
	out := make([]judged, len(objs))
	for i, o := range order {
		for _, k := range o.idx {
			a := answers[o.release][k]
			if a.Error != "" {
				out[i].errs = append(out[i].errs, a.Name+": "+a.Error)
			}
			for _, e := range a.Errors {
				out[i].errs = append(out[i].errs, a.Name+": "+e.Type+" "+e.Field+": "+e.Detail)
			}
			out[i].facts = a.Facts
		}
	}
	return out
}

func versionOf(t *testing.T, obj map[string]interface{}) string {
	t.Helper()
	_, v, _, err := conversion.Identify(obj)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func objName(obj map[string]interface{}) string {
	meta, _ := obj["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	return name
}

// allocationDriver is the driver that owns a classic allocation, in the
// terms of each release: 1.26/1.30 status.driverName, 1.31 controller.
func allocationDriver(release string, f map[string]string) string {
	if release == "1.31" {
		return f["controller"]
	}
	return f["driverName"]
}

// TestConversionKeepsMeaning converts every object of testdata/semantic.yaml
// to the other versions and back. Each view must be accepted by the release
// serving it, and what its consumers act on must not change: the allocation
// stays structured (1.30: a handle has structuredData; 1.31: no controller)
// or classic, and a classic allocation stays with its driver.
func TestConversionKeepsMeaning(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "semantic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var originals []map[string]interface{}
	if err := yaml.Unmarshal(data, &originals); err != nil {
		t.Fatal(err)
	}
	// all holds the originals, then each view's converted and round-tripped
	// object; the view records their indices.
	type view struct {
		orig          map[string]interface{}
		from, to      string
		src, conv, rt int
	}
	all := append([]map[string]interface{}{}, originals...)
	var views []view
	for i, o := range originals {
		from := versionOf(t, o)
		for _, to := range api.ServedVersions {
			if to == from || releaseOf[to] == "" {
				continue
			}
			conv, err := conversion.Convert(o, to)
			if err != nil {
				t.Fatalf("%s to %s: %v", objName(o), to, err)
			}
			back, err := conversion.Convert(conv, from)
			if err != nil {
				t.Fatalf("%s to %s and back: %v", objName(o), to, err)
			}
			views = append(views, view{orig: o, from: from, to: to, src: i, conv: len(all), rt: len(all) + 1})
			all = append(all, conv, back)
		}
	}
	verdicts := judge(t, all)
	for i, o := range originals {
		if errs := verdicts[i].errs; len(errs) > 0 {
			t.Errorf("%s: rejected by its own release %s: %s", objName(o), releaseOf[versionOf(t, o)], strings.Join(errs, "; "))
		}
	}
	for _, v := range views {
		orig, conv, back := verdicts[v.src], verdicts[v.conv], verdicts[v.rt]
		from, to := releaseOf[v.from], releaseOf[v.to]
		t.Run(objName(v.orig)+" as "+v.to, func(t *testing.T) {
			if len(conv.errs) > 0 {
				t.Errorf("rejected by %s: %s", to, strings.Join(conv.errs, "; "))
			}
			if len(back.errs) > 0 {
				t.Errorf("converted back, rejected by %s: %s", from, strings.Join(back.errs, "; "))
			}
			if orig.facts["allocated"] != conv.facts["allocated"] {
				t.Errorf("allocated: %s says %q, %s says %q", from, orig.facts["allocated"], to, conv.facts["allocated"])
			}
			if from != "1.26" && to != "1.26" && orig.facts["structured"] != conv.facts["structured"] {
				t.Errorf("structured: %s says %q, %s says %q", from, orig.facts["structured"], to, conv.facts["structured"])
			}
			if orig.facts["allocated"] == "true" && orig.facts["structured"] != "true" {
				if want, got := allocationDriver(from, orig.facts), allocationDriver(to, conv.facts); want != got {
					t.Errorf("classic allocation of driver %q (%s) is owned by %q in %s", want, from, got, to)
				}
			}
			for key, want := range orig.facts {
				if got := back.facts[key]; got != want {
					t.Errorf("round trip through %s: fact %s is %q, was %q", v.to, key, got, want)
				}
			}
		})
	}
}
