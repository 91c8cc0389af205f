package migrate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/claimbridge/claimbridge/api"
)

// TestTargetOf: every version of the chain, every release with DRA and the
// one after the newest are targets; a version is judged by the newest
// release serving it.
func TestTargetOf(t *testing.T) {
	for to, want := range map[string]Target{
		"v1alpha1": {Version: "v1alpha1", Releases: "1.26", Cluster: api.Defaults(26)},
		"v1alpha2": {Version: "v1alpha2", Releases: "1.27–1.30", Cluster: api.Defaults(30), Oldest: 27},
		"v1alpha3": {Version: "v1alpha3", Releases: "1.31", Cluster: api.Defaults(31), Devices: true},
		"v1beta1":  {Version: "v1beta1", Releases: "1.32", Cluster: api.Defaults(32), Devices: true},
		"v1beta2":  {Version: "v1beta2", Releases: "1.33", Cluster: api.Defaults(33), Devices: true},
		"v1":       {Version: "v1", Releases: "1.34+", Cluster: api.Defaults(37), Oldest: 34, Devices: true},
		"1.26":     {Version: "v1alpha1", Releases: "1.26", Cluster: api.Defaults(26)},
		"1.28":     {Version: "v1alpha2", Releases: "1.28", Cluster: api.Defaults(28)},
		"1.31":     {Version: "v1alpha3", Releases: "1.31", Cluster: api.Defaults(31), Devices: true},
		"1.33":     {Version: "v1beta2", Releases: "1.33", Cluster: api.Defaults(33), Devices: true},
		"v1.35":    {Version: "v1", Releases: "1.35", Cluster: api.Defaults(35), Devices: true},
		"1.37":     {Version: "v1", Releases: "1.37", Cluster: api.Defaults(37), Devices: true},
		"v1.38.0":  {Version: "v1", Releases: "1.38", Cluster: api.Defaults(38), Devices: true},
		"1.39":     {Version: "v1", Releases: "1.39", Cluster: api.Defaults(38), Devices: true}, // by the newest's rules
	} {
		got, err := TargetOf(to)
		if err != nil {
			t.Errorf("TargetOf(%q): %v", to, err)
		}
		if got.cel == nil {
			t.Errorf("TargetOf(%q): no CEL cache", to)
		}
		if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Target{}, api.Cluster{})); d != "" {
			t.Errorf("TargetOf(%q) (-want +got):\n%s", to, d)
		}
	}
	for _, v := range api.ConversionVersions {
		if _, err := TargetOf(v); err != nil {
			t.Errorf("api.ConversionVersions has %s: %v", v, err)
		}
	}
	for _, bad := range []string{"", "1.25", "1.40", "v2", "1.3x", "2.1"} {
		if _, err := TargetOf(bad); err == nil {
			t.Errorf("TargetOf(%q) is not an error", bad)
		}
	}
}
