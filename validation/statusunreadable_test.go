package validation

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
)

// A status write that leaves a version unable to show the claim (what it
// cannot hold exceeds the annotation limit) would fail every list and watch
// of claims through that version, for every client: it is refused, unless
// the old object could not be shown there either.
func TestStatusWriteThatAVersionCannotShowIsRefused(t *testing.T) {
	requireConversion(t)
	claim := func(handles int, reserved bool) map[string]interface{} {
		var hs []string
		for i := 0; i < handles; i++ {
			hs = append(hs, `{"driverName":"d.example.com","data":"`+strings.Repeat("h", 16*1024)+`"}`)
		}
		status := ""
		if handles > 0 {
			status = `,"status":{"driverName":"d.example.com","allocation":{"resourceHandles":[` + strings.Join(hs, ",") + `],"shareable":true}`
			if reserved {
				status += `,"reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]`
			}
			status += `}`
		}
		return obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},`+
			`"spec":{"resourceClassName":"gpu.example.com"}`+status+`}`)
	}
	unreadableIn := func(t *testing.T, o map[string]interface{}, version string) field.ErrorList {
		t.Helper()
		_, err := conversion.Convert(o, version)
		if err == nil {
			t.Fatalf("the object converts to %s: the test no longer tests what it says", version)
		}
		return field.ErrorList{field.Forbidden(field.NewPath("status"),
			"the object could not be read through "+version+", nor listed or watched with other claims through it: "+err.Error())}
	}
	for name, sc := range map[string]struct {
		req  func(t *testing.T) Request
		want func(t *testing.T, req Request) field.ErrorList
	}{
		"allocation-whose-handles-v1alpha1-cannot-show": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, SubResource: "status", Object: claim(17, false), OldObject: claim(0, false)}
			},
			want: func(t *testing.T, req Request) field.ErrorList { return unreadableIn(t, req.Object, "v1alpha1") },
		},
		"allocation-that-fits": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, SubResource: "status", Object: claim(8, false), OldObject: claim(0, false)}
			},
			want: func(*testing.T, Request) field.ErrorList { return nil },
		},
		"reservation-of-a-claim-already-unreadable-in-v1alpha1": {
			req: func(t *testing.T) Request {
				return Request{Operation: Update, SubResource: "status", Object: claim(17, true), OldObject: claim(17, false)}
			},
			want: func(*testing.T, Request) field.ErrorList { return nil },
		},
	} {
		t.Run(name, func(t *testing.T) { checkScenario(t, sc.req, sc.want) })
	}
}
