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

// TestParseNext: the release after the newest of the table, named as a
// release is, is the next one; the newest and any other is not.
func TestParseNext(t *testing.T) {
	newest := Releases[len(Releases)-1]
	next := newest.Minor + 1
	for s, want := range map[string]bool{
		Release{Minor: next}.String(): true, "v" + Release{Minor: next}.String() + ".2-eks-a1b2c3d": true,
		newest.String(): false, Release{Minor: next + 1}.String(): false, "v1beta1": false, "": false, Next(): true,
	} {
		r, n, ok := ParseNext(s)
		if ok != want || r != newest || n != next {
			t.Errorf("ParseNext(%q) = %v, %d, %v; want %v, %d, %v", s, r, n, ok, newest, next, want)
		}
	}
}
