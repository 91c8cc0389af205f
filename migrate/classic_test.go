package migrate

import (
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// The classic-driver warnings, spelled out (classicWarningOf).
const (
	classicV3GPU     = `spec.controller: the claim's devices come from the classic DRA driver "gpu.example.com" (1.26–1.30 control-plane controller); a 1.31 claim without controller is allocated by the scheduler from ResourceSlices, which a classic driver does not publish: set spec.controller: gpu.example.com (1.31 keeps it with the DRAControlPlaneController feature gate), or use the driver's structured-parameters version`
	classicV3Unknown = `spec.controller: the claim's devices come from a classic DRA driver (1.26–1.30 control-plane controller); a 1.31 claim without controller is allocated by the scheduler from ResourceSlices, which a classic driver does not publish: set spec.controller to the class's driver name (1.31 keeps it with the DRAControlPlaneController feature gate), or use the driver's structured-parameters version`
	classicGAGPU     = `spec: the claim's devices come from the classic DRA driver "gpu.example.com" (1.26–1.30 control-plane controller); Kubernetes 1.32+ has no classic DRA and allocates every claim in the scheduler from ResourceSlices, which a classic driver does not publish: install the driver's structured-parameters version`
)

// classicV3Maybe is the warning for a v1alpha2 claim (or template, with
// specPath spec.spec) without parameters whose class is not in the input.
func classicV3Maybe(specPath, class string) string {
	return specPath + `.controller: the claim's devices come from a classic DRA driver (1.26–1.30 control-plane controller) unless its ResourceClass "` + class +
		`" has structuredParameters: true (1.30; the input has no such class to tell: 1.27–1.29 have only classic DRA); a 1.31 claim without controller is allocated by the scheduler from ResourceSlices, which a classic driver does not publish: set ` +
		specPath + `.controller to the class's driver name (1.31 keeps it with the DRAControlPlaneController feature gate), or use the driver's structured-parameters version`
}

func TestClassicWarning(t *testing.T) {
	classic130 := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: gpu.example.com\n"
	structured130 := classic130 + "structuredParameters: true\n"
	class126 := "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: gpu.example.com\n"
	tests := []struct {
		name, obj, to string
		classes       []string
		want          string
	}{
		{name: "1.30 classic allocation", to: api.V1alpha3, want: classicV3GPU,
			obj: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\nstatus: {driverName: gpu.example.com, allocation: {resourceHandles: [{data: x}]}}\n"},
		{name: "1.30 structured allocation", to: api.V1alpha3,
			obj: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\nstatus: {driverName: gpu.example.com, allocation: {resourceHandles: [{driverName: gpu.example.com, structuredData: {nodeName: n}}]}}\n"},
		{name: "1.30 classic class in the input", to: api.V1, want: classicGAGPU, classes: []string{classic130},
			obj: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\n"},
		{name: "1.30 structured class in the input", to: api.V1alpha3, classes: []string{structured130},
			obj: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\n"},
		// 1.27–1.29 had only classic DRA, 1.30 either: said, hedged.
		{name: "1.30 class unknown", to: api.V1alpha3, want: classicV3Maybe("spec", "gpu"),
			obj: "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\n"},
		{name: "1.26 class in the input", to: api.V1alpha3, want: classicV3GPU, classes: []string{class126},
			obj: "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\n"},
		{name: "1.26 class unknown", to: api.V1alpha3, want: classicV3Unknown,
			obj: "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nspec: {resourceClassName: gpu}\n"},
		{name: "1.26 template", to: api.V1alpha3, classes: []string{class126}, // checked by its start below
			obj: "apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaimTemplate\nspec: {spec: {resourceClassName: gpu}}\n"},
		{name: "1.31 claim", to: api.V1,
			obj: "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nspec: {devices: {requests: [{name: a, deviceClassName: gpu}]}}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := &Index{}
			for _, c := range tt.classes {
				idx.Add(decode(t, c))
			}
			obj := decode(t, tt.obj)
			_, from, kind, err := conversion.Identify(obj)
			if err != nil {
				t.Fatal(err)
			}
			got := classicWarningOf(obj, from, kind, tt.to, idx, true)
			if kind == api.KindTemplate {
				if want := "spec.spec.controller: the claim's devices come from the classic DRA driver \"gpu.example.com\""; len(got) < len(want) || got[:len(want)] != want {
					t.Errorf("got %q, want it to start with %q", got, want)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func decode(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
