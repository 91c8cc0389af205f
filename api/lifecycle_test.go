package api

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
)

func TestDeprecation(t *testing.T) {
	for _, tc := range []struct {
		version, kind string
		minor         int
		want          string
	}{
		{V1beta1, "ResourceClaim", 34, ""},
		{V1beta1, "ResourceClaim", 35, "resource.k8s.io/v1beta1 ResourceClaim is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1"},
		{V1beta1, "DeviceClassList", 37, "resource.k8s.io/v1beta1 DeviceClass is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1"},
		{V1beta1, "ResourceSlice", 38, ""}, // not served: no longer deprecated
		{V1beta2, "ResourceClaimTemplate", 35, ""},
		{V1beta2, "ResourceClaimTemplate", 36, "resource.k8s.io/v1beta2 ResourceClaimTemplate is deprecated in Kubernetes 1.36 and no longer served from 1.39: use resource.k8s.io/v1"},
		// Alpha: DeviceTaintRule came to v1beta2 in 1.36 and to v1 in 1.37;
		// a release does not serve the alpha beside them (ServedBy), so the
		// verdict is "not served", not a deprecation.
		{V1alpha3, "DeviceTaintRule", 35, ""},
		{V1alpha3, "DeviceTaintRule", 36, ""},
		{V1alpha3, "DeviceTaintRule", 37, ""},
		{V1alpha3, "ResourceClaim", 31, ""}, // 1.31's v1alpha3: no lifecycle upstream keeps
		{V1, "ResourceClaim", 37, ""},
	} {
		c := Defaults(tc.minor)
		if err := c.SetRuntimeConfig("api/beta=true"); err != nil {
			t.Fatal(err)
		}
		if got := c.Deprecation(tc.version, tc.kind); got != tc.want {
			t.Errorf("Deprecation(%s, %s, 1.%d) = %q, want %q", tc.version, tc.kind, tc.minor, got, tc.want)
		}
	}
}

// TestLifecycleIsUpstreams: the table says what k8s.io/api's generated
// prerelease-lifecycle methods say, for every kind of every version.
func TestLifecycleIsUpstreams(t *testing.T) {
	type (
		introduced interface{ APILifecycleIntroduced() (int, int) }
		deprecated interface{ APILifecycleDeprecated() (int, int) }
		removed    interface{ APILifecycleRemoved() (int, int) }
	)
	minor := func(f func() (int, int)) int { _, m := f(); return m }
	for version, objs := range map[string][]any{
		V1alpha3: {&resourcev1alpha3.DeviceTaintRule{}, &resourcev1alpha3.ResourcePoolStatusRequest{}},
		V1beta1:  {&resourcev1beta1.ResourceClaim{}, &resourcev1beta1.ResourceClaimTemplate{}, &resourcev1beta1.DeviceClass{}, &resourcev1beta1.ResourceSlice{}},
		V1beta2: {&resourcev1beta2.ResourceClaim{}, &resourcev1beta2.ResourceClaimTemplate{}, &resourcev1beta2.DeviceClass{},
			&resourcev1beta2.ResourceSlice{}, &resourcev1beta2.DeviceTaintRule{}},
		V1: {&resourcev1.ResourceClaim{}, &resourcev1.ResourceClaimTemplate{}, &resourcev1.DeviceClass{}, &resourcev1.ResourceSlice{}, &resourcev1.DeviceTaintRule{}},
	} {
		for _, obj := range objs {
			kind := reflect.TypeOf(obj).Elem().Name()
			var want lifecycle
			want.introduced = minor(obj.(introduced).APILifecycleIntroduced)
			if d, ok := obj.(deprecated); ok {
				want.deprecated, want.removed = minor(d.APILifecycleDeprecated), minor(obj.(removed).APILifecycleRemoved)
			}
			got := lifecycleOf(version, kind+"List")
			if got.introduced != want.introduced || got.deprecated != want.deprecated || got.removed != want.removed {
				t.Errorf("%s %s: introduced, deprecated, removed 1.%d, 1.%d, 1.%d; upstream 1.%d, 1.%d, 1.%d", version, kind,
					got.introduced, got.deprecated, got.removed, want.introduced, want.deprecated, want.removed)
			}
		}
	}
}

// TestCreatedIn: claims are created in the version of Releases, in every
// release; the other kinds in the version their release history has.
func TestCreatedIn(t *testing.T) {
	for _, r := range Releases {
		if got := CreatedIn(KindClaim, r.Minor); got != r.Version {
			t.Errorf("CreatedIn(ResourceClaim, %s) = %q, want %q", r, got, r.Version)
		}
	}
	var got []string
	for _, kind := range []string{"DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClass", "PodSchedulingContext"} {
		line := kind + ":"
		for minor := 26; minor <= 37; minor++ {
			line += fmt.Sprintf(" %d=%s", minor, CreatedIn(kind, minor))
		}
		got = append(got, line)
	}
	want := []string{
		"DeviceClass: 26= 27= 28= 29= 30= 31=v1alpha3 32=v1beta1 33=v1beta2 34=v1 35=v1 36=v1 37=v1",
		"ResourceSlice: 26= 27= 28= 29= 30=v1alpha2 31=v1alpha3 32=v1beta1 33=v1beta2 34=v1 35=v1 36=v1 37=v1",
		"DeviceTaintRule: 26= 27= 28= 29= 30= 31= 32= 33=v1alpha3 34=v1alpha3 35=v1alpha3 36=v1beta2 37=v1",
		"ResourceClass: 26=v1alpha1 27=v1alpha2 28=v1alpha2 29=v1alpha2 30=v1alpha2 31= 32= 33= 34= 35= 36= 37=",
		"PodSchedulingContext: 26= 27=v1alpha2 28=v1alpha2 29=v1alpha2 30=v1alpha2 31=v1alpha3 32= 33= 34= 35= 36= 37=",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for kind, want := range map[string]int{"ResourceClass": 26, "ResourceSlice": 30, "DeviceClass": 31, "DeviceTaintRule": 33, "Pod": 0} {
		if got := FirstRelease(kind); got != want {
			t.Errorf("FirstRelease(%s) = %d, want %d", kind, got, want)
		}
	}
}
