//go:build envtest

package builds

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/api"
)

// TestUpgrade: objects an older build with the defaults stored, written
// through every version, read through every version by this build exactly
// as the older build read them, and this build's unchanged writes (PUT of
// the main resource and of /status, through every version) store nothing.
func TestUpgrade(t *testing.T) {
	for _, older := range withDefaults {
		t.Run(older, func(t *testing.T) {
			serve(t, older)
			ns := newNamespace(t, "upgrade")
			fixtures := loadFixtures(t, ns)
			before := map[string]map[string]*unstructured.Unstructured{}
			for _, f := range fixtures {
				create(t, f)
				before[f.name] = views(t, f)
			}
			serve(t, thisBuild)
			for _, f := range fixtures {
				after := views(t, f)
				for _, v := range api.ServedVersions {
					if d := cmp.Diff(normalize(t, before[f.name][v].Object), normalize(t, after[v].Object)); d != "" {
						t.Errorf("%s: the %s view read by this build differs from %s's (-older +this):\n%s", f.name, v, older, d)
					}
					ri := res(v, f.resource, ns)
					for _, status := range []bool{true, false} {
						if status && f.resource != claimsResource {
							continue
						}
						read := get(t, ri, f.name)
						out, err := writeBack(t, ri, read, status)
						what := fmt.Sprintf("%s: unchanged PUT through %s (status %v) by this build", f.name, v, status)
						if err != nil {
							t.Errorf("%s: %v", what, describe(err))
						} else if out.GetResourceVersion() != read.GetResourceVersion() {
							t.Errorf("%s stored a new resourceVersion", what)
						}
					}
				}
			}
		})
	}
}

// TestUpgradeAcrossDefaults: objects the last build before the defaults
// stored, written through every version, read through v1alpha1 and
// v1alpha2 by this build the same before and after this build's unchanged
// writes through every version; of those writes exactly the first through
// v1alpha1 (a claim's status write, a template's main one) of each object
// written through v1alpha1 or v1alpha2 stores it (this build replaces the
// older restore data and stores the requests defaulted: docs/operations.md,
// "Upgrading to defaulting"; the v1alpha3 fixtures carry the defaults), and
// the same writes again store nothing.
func TestUpgradeAcrossDefaults(t *testing.T) {
	serve(t, beforeDefaults)
	ns := newNamespace(t, "upgrade")
	fixtures := loadFixtures(t, ns)
	for _, f := range fixtures {
		create(t, f)
	}
	serve(t, thisBuild)
	var want, storedFirst []string
	for _, f := range fixtures {
		if f.version != api.StorageVersion {
			want = append(want, f.name+" v1alpha1 "+putOf(f.resource == claimsResource))
		}
	}
	for _, f := range fixtures {
		first := views(t, f)
		for round := 1; round <= 2; round++ {
			stored := 0
			for _, v := range api.ServedVersions {
				ri := res(v, f.resource, ns)
				for _, status := range []bool{true, false} {
					if status && f.resource != claimsResource {
						continue
					}
					read := get(t, ri, f.name)
					out, err := writeBack(t, ri, read, status)
					if err != nil {
						t.Errorf("%s: unchanged PUT through %s (status %v), round %d: %v", f.name, v, status, round, describe(err))
					} else if out.GetResourceVersion() != read.GetResourceVersion() {
						stored++
						if round == 1 {
							storedFirst = append(storedFirst, f.name+" "+v+" "+putOf(status))
						}
					}
				}
			}
			if round == 2 && stored != 0 {
				t.Errorf("%s: the unchanged writes again stored %d times", f.name, stored)
			}
		}
		final := views(t, f)
		for _, v := range []string{"v1alpha1", "v1alpha2"} {
			if d := cmp.Diff(withoutWriteMetadata(t, first[v]), withoutWriteMetadata(t, final[v])); d != "" {
				t.Errorf("%s: the %s view after the writes differs (-before +after):\n%s", f.name, v, d)
			}
		}
	}
	if d := cmp.Diff(want, storedFirst); d != "" {
		t.Errorf("the first unchanged writes by this build that stored a new resourceVersion (-want +got):\n%s", d)
	}
}

// putOf names a PUT of /status or of the main resource. A claim's first
// unchanged write through a version is of /status, a template's of the main
// resource.
func putOf(status bool) string {
	if status {
		return "status"
	}
	return "main"
}
