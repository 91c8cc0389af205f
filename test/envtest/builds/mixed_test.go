//go:build envtest

package builds

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// crossing is one read and write-back across builds during a roll: the
// read converted by read, the write converted by write and admitted
// (defaulted and validated) by admit.
type crossing struct{ read, write, admit string }

func (c crossing) String() string {
	return fmt.Sprintf("read by %s, converted by %s, admitted by %s", c.read, c.write, c.admit)
}

// TestMixedRollout: while an older build with the defaults and this one serve behind the
// Service, a controller reads an object through one and writes it back
// unchanged through the other, again and again (a periodic resync), with
// the write's conversion and admission also split over both. Each such
// write is admitted and stores nothing, so the builds do not hand restore
// data back and forth (a write storm), and afterwards every version reads,
// through either build, what this build read before.
func TestMixedRollout(t *testing.T) {
	for _, older := range withDefaults {
		t.Run(older, func(t *testing.T) { testMixedRollout(t, older) })
	}
}

func testMixedRollout(t *testing.T, older string) {
	serve(t, thisBuild)
	ns := newNamespace(t, "mixed")
	fixtures := loadFixtures(t, ns)
	for _, f := range fixtures {
		create(t, f)
	}
	var crossings []crossing
	for _, read := range []string{thisBuild, older} {
		for _, write := range []string{thisBuild, older} {
			for _, admit := range []string{thisBuild, older} {
				if read != thisBuild || write != thisBuild || admit != thisBuild {
					crossings = append(crossings, crossing{read, write, admit})
				}
			}
		}
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			serve(t, thisBuild)
			before := views(t, f)
			for _, v := range api.ServedVersions {
				ri := res(v, f.resource, ns)
				for _, c := range crossings {
					for _, status := range []bool{false, true} {
						if status && f.resource != claimsResource {
							continue
						}
						what := fmt.Sprintf("unchanged PUT through %s (status %v) %v", v, status, c)
						serve(t, c.read)
						read := get(t, ri, f.name)
						converted := conversion.counts()[replicas[c.read]]
						serveSplit(t, c.write, c.admit)
						out, err := writeBack(t, ri, read, status)
						if err != nil {
							t.Errorf("%s: %v", what, describe(err))
							continue
						}
						if out.GetResourceVersion() != read.GetResourceVersion() {
							t.Errorf("%s stored a new resourceVersion", what)
						}
						// The builds named took part: v1alpha3 is the
						// storage version, whose reads and writes convert
						// nothing.
						if v != api.StorageVersion && (converted == 0 || conversion.counts()[replicas[c.write]] == 0) {
							t.Errorf("%s: no conversion call reached the builds named", what)
						}
						if admission.counts()[replicas[c.admit]] == 0 {
							t.Errorf("%s: no admission call reached %s", what, c.admit)
						}
					}
				}
			}
			for _, b := range []string{older, thisBuild} {
				serve(t, b)
				after := views(t, f)
				for _, v := range api.ServedVersions {
					if d := cmp.Diff(normalize(t, before[v].Object), normalize(t, after[v].Object)); d != "" {
						t.Errorf("the %s view read by %s after the writes differs from this build's before (-before +after):\n%s", v, b, d)
					}
				}
			}
		})
	}
}
