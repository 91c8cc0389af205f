package conversion

import (
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// TestWarningTextExactPaths checks that a request field's path is given
// under exactly for every field v1beta2 and v1 hold there, and for no other.
func TestWarningTextExactPaths(t *testing.T) {
	for _, f := range api.ExactRequestFields {
		w := Warning{From: api.V1beta1, To: api.V1beta1, Path: "spec.devices.requests[2]." + f + "[0]", Message: "m"}
		if got, want := w.Text(api.V1), "spec.devices.requests[2].exactly."+f+"[0]: m"; got != want {
			t.Errorf("%s: got %q, want %q", f, got, want)
		}
	}
	for _, path := range []string{"spec.devices.requests[0].firstAvailable[1]", "spec.devices.requests[0].name", "spec.devices.requests[0].countX"} {
		w := Warning{From: api.V1beta1, To: api.V1beta1, Path: path, Message: "m"}
		if got, want := w.Text(api.V1), path+": m"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := w.Text(api.V1beta1), path+": m"; got != want {
			t.Errorf("to v1beta1: got %q, want %q", got, want)
		}
	}
}
