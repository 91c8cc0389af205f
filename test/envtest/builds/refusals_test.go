//go:build envtest

package builds

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
)

// specChanges are JSON patches that change what an object asks for,
// through each version: a claim's spec and a template's are immutable.
var specChanges = map[string]map[string]string{
	claimsResource: {
		"v1alpha1": `[{"op":"replace","path":"/spec/resourceClassName","value":"other.example.com"}]`,
		"v1alpha2": `[{"op":"replace","path":"/spec/resourceClassName","value":"other.example.com"}]`,
		"v1alpha3": `[{"op":"replace","path":"/spec/devices/requests/0/deviceClassName","value":"other.example.com"}]`,
	},
}

// refusal is what a denial says: its code and its causes' fields and types.
type refusal struct {
	Code   int32
	Causes []string
}

func refusalOf(err error) (refusal, bool) {
	var s apierrors.APIStatus
	if !errors.As(err, &s) {
		return refusal{}, false
	}
	r := refusal{Code: s.Status().Code}
	if d := s.Status().Details; d != nil {
		for _, c := range d.Causes {
			r.Causes = append(r.Causes, fmt.Sprintf("%s %s", c.Type, c.Field))
		}
	}
	slices.Sort(r.Causes)
	return r, true
}

// TestMixedRolloutRefusals: a write every build must refuse (a changed spec
// of a claim, through each version) is refused alike by this build and by
// the older builds with the defaults, whichever serves the read and the
// write: a roll opens no window in which it is stored.
func TestMixedRolloutRefusals(t *testing.T) {
	serve(t, thisBuild)
	ns := newNamespace(t, "refusals")
	var claims []fixture
	for _, f := range loadFixtures(t, ns) {
		if f.resource == claimsResource && f.obj.Object["spec"] != nil {
			create(t, f)
			claims = append(claims, f)
		}
	}
	for _, f := range claims {
		for _, v := range api.ServedVersions {
			patch := specChanges[f.resource][v]
			var want refusal
			for i, b := range append([]string{thisBuild}, withDefaults...) {
				serve(t, b)
				ri := res(v, f.resource, ns)
				err := retried(func() error {
					_, err := ri.Patch(ctxFor(t), f.name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
					return err
				})
				if err == nil {
					t.Errorf("%s: the spec change through %s was stored by %s", f.name, v, b)
					continue
				}
				got, ok := refusalOf(err)
				if !ok {
					t.Errorf("%s: the spec change through %s by %s: %v", f.name, v, b, err)
					continue
				}
				if i == 0 {
					want = got
				} else if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: the spec change through %s refused by %s otherwise than by this build (-this +%s):\n%s\n%v", f.name, v, b, b, d, describe(err))
				}
			}
		}
	}
}
