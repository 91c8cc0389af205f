package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/test/migratetest"
)

// exported adds what an apiserver sets to an object, as `kubectl get -o yaml` shows it.
func exported(obj map[string]interface{}) map[string]interface{} {
	out := deepCopy(obj).(map[string]interface{})
	meta := out["metadata"].(map[string]interface{})
	meta["uid"] = "0f9e8d7c-6b5a-4948-8372-6150a4b3c2d1"
	meta["resourceVersion"] = "52177"
	meta["generation"] = float64(3)
	meta["creationTimestamp"] = "2024-05-20T14:02:11Z"
	meta["managedFields"] = []interface{}{map[string]interface{}{"manager": "kube-scheduler", "operation": "Update"}}
	meta["ownerReferences"] = []interface{}{map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}}
	return out
}

// TestMigratedAcceptedByTargetRelease migrates every object of
// testdata/semantic.yaml, as exported from its cluster, to every version; the
// release serving the target must accept the create (its decoding,
// defaulting, PrepareForCreate and validation), without a built-in
// finalizer: migrate drops it with the allocation.
func TestMigratedAcceptedByTargetRelease(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "semantic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var originals []map[string]interface{}
	if err := yaml.Unmarshal(data, &originals); err != nil {
		t.Fatal(err)
	}
	byRelease := map[string][]scenario{}
	for _, o := range originals {
		for _, to := range api.ServedVersions {
			out, _, err := migratetest.Migrated(t, exported(o), to, migrate.Options{})
			if err != nil {
				t.Fatalf("%s to %s: %v", objName(o), to, err)
			}
			r := releaseOf[to]
			byRelease[r] = append(byRelease[r], scenario{Name: objName(o) + " as " + to, Op: "create", Object: out})
		}
	}
	for release, ss := range byRelease {
		for i, a := range runOracle(t, release, ss) {
			t.Run(ss[i].Name, func(t *testing.T) {
				if a.Error != "" || len(a.Errors) > 0 {
					t.Errorf("Kubernetes %s rejects the migrated object: %s %v", release, a.Error, a.Errors)
				}
				if f := a.Facts["finalizers"]; strings.Contains(f, api.FinalizerV1alpha2) || strings.Contains(f, api.FinalizerV1alpha3) {
					t.Errorf("finalizers %q on a %s object", f, release)
				}
			})
		}
	}
}

// TestMigratedExampleAsksForTheSameDevices creates the migrated example
// (examples/migrate/migrated-1.31.yaml, the output of `claimbridge migrate
// --to v1alpha3 -f examples/migrate/exported-1.30.yaml`) in the 1.31 oracle:
// accepted, and the requests are what the 1.30 parameters asked for; the
// DeviceClass they name applies the class's 1.30 filter, as the 1.30
// scheduler did to every claim of the class (also one without parameters).
func TestMigratedExampleAsksForTheSameDevices(t *testing.T) {
	docs, err := manifest.ReadAll([]string{filepath.Join("..", "..", "examples", "migrate", "migrated-1.31.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ss []scenario
	for _, d := range docs {
		if kind := d.Object["kind"]; kind == "DeviceClass" {
			// Created by test/envtest/release; its selectors are checked here.
			spec, _ := d.Object["spec"].(map[string]interface{})
			want := []interface{}{
				map[string]interface{}{"cel": map[string]interface{}{"expression": `device.driver == "accel.example.com"`}},
				map[string]interface{}{"cel": map[string]interface{}{"expression": `device.attributes["accel.example.com"]["healthy"]`}},
			}
			if d := cmp.Diff(want, spec["selectors"]); d != "" {
				t.Errorf("DeviceClass selectors (-want +got):\n%s", d)
			}
			continue
		} else if kind != "ResourceClaim" && kind != "ResourceClaimTemplate" {
			continue
		}
		ss = append(ss, scenario{Name: objName(d.Object), Op: "create", Object: d.Object})
	}
	answers := runOracle(t, "1.31", ss)
	want := []map[string]string{{
		"finalizers":      "",
		"spec.controller": "",
		"request[0]": `name=request class=accel.example.com mode=ExactCount count=2 adminAccess=false selectors=["device.driver == \"accel.example.com\"" ` +
			`"device.attributes[\"accel.example.com\"][\"family\"] == \"tensor\""]`,
		"config[0]": `driver=accel.example.com requests=["request"] parameters={"apiVersion":"accel.example.com/v1","kind":"ClaimParameters","memoryGiB":16}`,
	}, {
		"spec.controller": "",
		"request[0]": `name=request class=accel.example.com mode=ExactCount count=1 adminAccess=false selectors=["device.driver == \"accel.example.com\"" ` +
			`"device.capacity[\"accel.example.com\"][\"memory\"].compareTo(quantity(\"32Gi\")) >= 0"]`,
	}, {
		// No parameters: one device of the class, as the 1.30 scheduler's
		// default parameters asked.
		"finalizers":      "",
		"spec.controller": "",
		"request[0]":      `name=request class=accel.example.com mode=ExactCount count=1 adminAccess=false selectors=[]`,
	}}
	if len(answers) != len(want) {
		t.Fatalf("%d objects in the migrated example, want %d", len(answers), len(want))
	}
	for i, a := range answers {
		if a.Error != "" || len(a.Errors) > 0 {
			t.Errorf("%s: Kubernetes 1.31 rejects it: %s %v", a.Name, a.Error, a.Errors)
		}
		if d := cmp.Diff(want[i], a.Facts); d != "" {
			t.Errorf("%s: facts (-want +got):\n%s", a.Name, d)
		}
	}
}
