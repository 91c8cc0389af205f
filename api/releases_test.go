package api

import "testing"

// TestParseRelease: a release as users write it, or as a cluster reports
// its version, means that release; anything else is refused.
func TestParseRelease(t *testing.T) {
	for s, want := range map[string]int{
		"1.33": 33, "v1.33": 33, "1.33.4": 33, "v1.33.4": 33,
		"v1.33.4-eks-a1b2c3d": 33, "v1.33.4+k3s1": 33, "v1.33.4-gke.1200": 33,
		"1.26": 26, "v1.37.0": 37, "v1.30.0-rc.1": 30,
		"": 0, "1": 0, "v1": 0, "2.33": 0, "1.x": 0, "1.99": 0, "1.25": 0, "v1.33.x": 0, "1.33.": 0,
		"1.33-eks": 0, "1.+33": 0, "1.33.+4": 0, "1.33.4.5x": 0, " 1.33": 0, "v1beta1": 0, "vv1.33": 0,
	} {
		r, ok := ParseRelease(s)
		if ok != (want != 0) || r.Minor != want {
			t.Errorf("ParseRelease(%q) = %v, %v; want minor %d", s, r, ok, want)
		}
	}
}
