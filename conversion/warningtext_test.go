package conversion_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestWarningFor: a step's warning is phrased for the conversion's target
// (its release and version, the target's paths), not for the step.
func TestWarningFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    conversion.Warning
		to   string
		want string
	}{
		{"the step's own target", conversion.Warning{Kind: "ResourceClaim", Object: "ns/c", From: "v1alpha2", To: "v1alpha3", Path: "spec.allocationMode",
			Message: `1.31 has no allocation mode "Immediate": the claim is allocated only when the first pod that uses it is scheduled`}, "v1alpha3",
			`ResourceClaim ns/c: spec.allocationMode: 1.31 has no allocation mode "Immediate": the claim is allocated only when the first pod that uses it is scheduled`},
		{"past the step, up", conversion.Warning{Kind: "ResourceClaim", Object: "ns/c", From: "v1alpha2", To: "v1alpha3", Path: "spec.parametersRef",
			Message: `ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu"`}, "v1",
			`ResourceClaim ns/c: spec.parametersRef: ResourceClaimParameters have no v1 equivalent: a 1.34+ scheduler allocates one device of class "gpu"`},
		{"past the step, down", conversion.Warning{Kind: "ResourceClaim", Object: "ns/c", From: "v1alpha3", To: "v1alpha2", Path: "spec.devices.constraints",
			Message: "1.27–1.30 has no constraints between devices"}, "v1alpha1",
			"ResourceClaim ns/c: spec.devices.constraints: 1.26 has no constraints between devices"},
		{"a range is not a release", conversion.Warning{Kind: "ResourceClaim", Object: "ns/c", From: "v1beta1", To: "v1alpha3", Path: "status.reservedFor",
			Message: "33 consumers: Kubernetes 1.26–1.31 allow at most 32"}, "v1alpha2",
			"ResourceClaim ns/c: status.reservedFor: 33 consumers: Kubernetes 1.26–1.31 allow at most 32"},
		{"the target's path", conversion.Warning{Kind: "ResourceClaimTemplate", Object: "ns/t", From: "v1alpha3", To: "v1beta1", Path: "spec.spec.devices.requests[2].adminAccess",
			Message: "admin access needs a labeled namespace"}, "v1",
			"ResourceClaimTemplate ns/t: spec.spec.devices.requests[2].exactly.adminAccess: admin access needs a labeled namespace"},
		{"no path change for v1beta1", conversion.Warning{Kind: "ResourceClaim", Object: "ns/c", From: "v1alpha3", To: "v1beta1", Path: "spec.devices.requests[0].adminAccess",
			Message: "m"}, "v1beta1",
			"ResourceClaim ns/c: spec.devices.requests[0].adminAccess: m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.For(tc.to); got != tc.want {
				t.Errorf("For(%s):\n got %s\nwant %s", tc.to, got, tc.want)
			}
		})
	}
}

// TestFirstAvailableWarningForTarget: a prioritized list converted below
// 1.32 is warned about in the target's terms: a 1.31 request needs a
// deviceClassName, a 1.26–1.30 claim a resourceClassName, which it takes
// from the first request only (a later request is not allocated at all,
// as the v1alpha3 → v1alpha2 step says).
func TestFirstAvailableWarningForTarget(t *testing.T) {
	in := `{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "any-gpu", "namespace": "demo"},
		"spec": {"devices": {"requests": [
			{"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "big-gpu.example.com"},
				{"name": "small", "deviceClassName": "small-gpu.example.com", "allocationMode": "ExactCount", "count": 2}]},
			{"name": "nic", "firstAvailable": [{"name": "fast", "deviceClassName": "nic.example.com"}]}]}}}`
	for to, want := range map[string][]string{
		"v1alpha3": {
			"spec.devices.requests[0].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation",
			"spec.devices.requests[1].firstAvailable: 1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's 1 subrequest(s) are kept only in the restore annotation",
		},
		"v1alpha2": {
			"spec.devices.requests[0].firstAvailable: 1.27–1.30 has no prioritized list: the converted claim names no resourceClassName, which a 1.27–1.30 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation",
			"spec.devices.requests[1].firstAvailable: 1.27–1.30 has no prioritized list: the request's 1 subrequest(s) are kept only in the restore annotation",
		},
		"v1alpha1": {
			"spec.devices.requests[0].firstAvailable: 1.26 has no prioritized list: the converted claim names no resourceClassName, which a 1.26 apiserver requires, and the request's 2 subrequest(s) are kept only in the restore annotation",
			"spec.devices.requests[1].firstAvailable: 1.26 has no prioritized list: the request's 1 subrequest(s) are kept only in the restore annotation",
		},
	} {
		t.Run(to, func(t *testing.T) {
			_, ws, err := conversion.ConvertWithWarnings(decodeTree(t, []byte(in)), to)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range ws {
				if text := w.Text(to); strings.Contains(text, "firstAvailable") {
					got = append(got, text)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("--to %s (-want +got):\n%s", to, diff)
			}
		})
	}
}
