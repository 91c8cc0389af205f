package api

import (
	"slices"
	"testing"
)

// TestComponents: components.tsv has every release of the table, read
// from the sources featuregates.tsv names, and answers as upstream's
// sources do.
func TestComponents(t *testing.T) {
	for _, r := range Releases {
		for _, component := range []string{Kubelet, Scheduler, ControllerManager} {
			if Reads(r.Minor, component, KindClaim) == "" {
				t.Errorf("1.%d's %s reads no ResourceClaims: regenerate components.tsv (hack/components)", r.Minor, component)
			}
		}
		if len(GRPC(r.Minor, Kubelet)) == 0 {
			t.Errorf("1.%d's kubelet speaks no DRA gRPC: regenerate components.tsv", r.Minor)
		}
	}
	for _, tc := range []struct {
		minor           int
		component, kind string
		want            string
	}{
		{26, Kubelet, KindClaim, V1alpha1},
		{30, Scheduler, KindResourceSlice, V1alpha2},
		{31, Kubelet, KindClaim, V1alpha3},
		{32, Scheduler, KindClaim, V1beta1}, // 1.32 serves v1alpha3 too; its components read v1beta1
		{33, Kubelet, KindClaim, V1beta1},   // not v1beta2, the release's newest
		{33, ControllerManager, KindDeviceTaintRule, V1alpha3},
		{34, Kubelet, KindClaim, V1},
		{37, Kubelet, KindClaim, V1},
		{38, ControllerManager, KindTemplate, V1},
		{37, DriverLibrary, KindResourceSlice, V1}, // the newest it falls back from
	} {
		if got := Reads(tc.minor, tc.component, tc.kind); got != tc.want {
			t.Errorf("Reads(1.%d, %s, %s) = %q, want %q", tc.minor, tc.component, tc.kind, got, tc.want)
		}
	}
	if got, want := Through(34, DriverLibrary, KindResourceSlice), []string{V1beta1, V1beta2, V1}; !slices.Equal(got, want) {
		t.Errorf("k8s.io/dynamic-resource-allocation v0.34 writes slices through %v, want %v", got, want)
	}
	if got, want := GRPC(34, Kubelet), []string{V1beta1, V1}; !slices.Equal(got, want) { // 1.34 dropped v1alpha4 (kubernetes#132574)
		t.Errorf("kubelet 1.34 speaks %v, want %v", got, want)
	}
	for minor, want := range map[int]string{31: "v0.31", 32: "v0.31–v0.38", 34: "v0.32–v0.38"} { // 1.31 refuses v0.32's registration
		if got := Libraries(minor); got != want {
			t.Errorf("Libraries(1.%d) = %q, want %q", minor, got, want)
		}
	}
}

// TestSkew: the version skew policy: no kubelet newer than kube-apiserver,
// none more than three minors older (two before 1.28).
func TestSkew(t *testing.T) {
	for _, tc := range []struct {
		apiserver, kubelet int
		want               string
	}{
		{38, 35, ""},
		{38, 38, ""},
		{38, 34, "kubelet 1.34 is 4 minors older than kube-apiserver 1.38: the version skew policy allows 3 (kubelets 1.35–1.38)"},
		{36, 37, "kubelet 1.37 is newer than kube-apiserver 1.36: the version skew policy forbids it"},
		{27, 24, "kubelet 1.24 is 3 minors older than kube-apiserver 1.27: the version skew policy allows 2 (kubelets 1.25–1.27)"},
	} {
		if got := Skew(tc.apiserver, tc.kubelet); got != tc.want {
			t.Errorf("Skew(1.%d, 1.%d) = %q, want %q", tc.apiserver, tc.kubelet, got, tc.want)
		}
	}
}

// TestParsePatch: the patch of a release named with one, else -1; and the
// limit of a claim's reservations it decides.
func TestParsePatch(t *testing.T) {
	for s, want := range map[string]int{"v1.32.1": 1, "1.32.0": 0, "v1.32.4-eks-a1b2c3d": 4, "v1.33.2+k3s1": 2, "1.32": -1, "v1.32": -1, "nonsense": -1} {
		if got := ParsePatch(s); got != want {
			t.Errorf("ParsePatch(%q) = %d, want %d", s, got, want)
		}
	}
	for _, tc := range []struct {
		minor, patch, limit int
		sure                bool
	}{{31, -1, 32, true}, {32, 0, 32, true}, {32, 1, 256, true}, {32, -1, 32, false}, {33, -1, 256, true}} {
		if limit, sure := ReservedForLimit(tc.minor, tc.patch); limit != tc.limit || sure != tc.sure {
			t.Errorf("ReservedForLimit(1.%d, %d) = %d, %t; want %d, %t", tc.minor, tc.patch, limit, sure, tc.limit, tc.sure)
		}
	}
}
