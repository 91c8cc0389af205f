//go:build envtest

package upgrade

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/cli"
)

// TestUpgradeSavesTaintRules: the rollback of 1.37 to 1.35 on one etcd,
// 1.35 with the gates and version that serve DeviceTaintRules, which
// upgrade is told as check is (--feature-gates, --runtime-config). 1.35
// reads every DRA object 1.37 stores but its DeviceTaintRules (v1beta2,
// which no --min-compatibility-version changes). On 1.37, a class, a claim
// allocated and reserved, and a taint rule. `upgrade --to 1.35 --save`
// saves every DRA object, deletes only the taint rule, and stops at the
// change of release: no claim is deleted, so no Pod stops.
// On kube-apiserver 1.35 it re-creates the taint rule in v1alpha3, keeps
// the class and the claim as they are, and 1.35 reads every DRA object.
func TestUpgradeSavesTaintRules(t *testing.T) {
	c := startRelease(t, 37)
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]interface{}{"name": "gpu.example.com"},
		"spec": map[string]interface{}{"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": `device.driver == "gpu.example.com"`}}}}})
	c.claim(t, 37, "claim-0")
	claim := c.get(t, "v1", "resourceclaims", "default", "claim-0")
	claim.Object["status"] = map[string]interface{}{
		"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{map[string]interface{}{
			"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}}}},
		"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": "pod-0", "uid": "uid-0"}},
	}
	if _, err := c.resource(claim.Object).UpdateStatus(t.Context(), claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	held := c.held(t, "v1")
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": map[string]interface{}{"name": "gpu-3-broken"},
		"spec": map[string]interface{}{"deviceSelector": map[string]interface{}{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-3"},
			"taint": map[string]interface{}{"key": "example.com/broken", "value": "true", "effect": "NoSchedule"}}})

	dir := t.TempDir()
	save := filepath.Join(dir, "dra.yaml")
	upgrade := func(code int, want ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		got := cli.Main([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", "1.35", "--journal", filepath.Join(dir, "journal"), "--save", save, "--yes",
			"--feature-gates=" + gates(35), "--runtime-config=" + serving[35]}, nil, &out, &errOut)
		if got != code || !strings.HasPrefix(out.String(), strings.Join(want, "")) {
			t.Fatalf("exit %d, want %d; stdout:\n%s\nwant it to start:\n%s\nstderr:\n%s", got, code, out.String(), strings.Join(want, ""), errOut.String())
		}
	}
	upgrade(cli.ExitOperator,
		"step 1, done: saved to "+save+" (objects: 3)\n",
		"step 2, done: devicetaintrules deleted (objects: 1; "+save+" holds them)\n",
		"next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.37 with 1.35")
	c.change(t, 35) // the operator's step
	upgrade(0,
		fmt.Sprintf("step 1, done: re-created what %s holds (objects: 3, of which there before: 2)\n", save),
		"Kubernetes 1.35 reads every DRA object of the cluster (deviceclasses: 1, devicetaintrules: 1, resourceclaims: 1)\n")
	rule := c.get(t, "v1alpha3", "devicetaintrules", "", "gpu-3-broken")
	if device, _, _ := unstructured.NestedString(rule.Object, "spec", "deviceSelector", "device"); device != "gpu-3" {
		t.Errorf("on 1.35, the taint rule selects device %q, want gpu-3: %v", device, rule.Object["spec"])
	}
	if key, _, _ := unstructured.NestedString(rule.Object, "spec", "taint", "key"); key != "example.com/broken" {
		t.Errorf("on 1.35, the taint rule's taint is %v, want example.com/broken", rule.Object["spec"])
	}
	if now := c.held(t, "v1"); fmt.Sprint(now) != fmt.Sprint(held) {
		t.Errorf("on 1.35, the claim holds %v, want %v as on 1.37", now, held)
	}
}
