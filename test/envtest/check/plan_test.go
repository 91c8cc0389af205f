//go:build envtest

package check

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/report"
)

// plan is what check --report json says: its findings, clients and steps.
type plan struct {
	Findings []struct {
		File string `json:"file"`
		report.Finding
	}
	Clients []report.Row
	Steps   []string
}

// checkJSON runs check with args and --report json, and reads the report.
func checkJSON(t *testing.T, args ...string) plan {
	t.Helper()
	file := filepath.Join(t.TempDir(), "check.json")
	code, stdout, stderr := claimbridge(t, append(args, "--report", "json", "--report-file", file)...)
	data, err := os.ReadFile(file)
	var p plan
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	if err != nil {
		t.Fatalf("check %s: exit %d, %v\n%s%s", strings.Join(args, " "), code, err, stdout, stderr)
	}
	return p
}

// create creates obj through its apiVersion as manager, and deletes it
// when the test ends.
func create(t *testing.T, d dynamic.Interface, resource, manager string, obj map[string]interface{}) {
	t.Helper()
	gv, _ := schema.ParseGroupVersion(obj["apiVersion"].(string))
	r := d.Resource(gv.WithResource(resource))
	u := &unstructured.Unstructured{Object: obj}
	var ri dynamic.ResourceInterface = r
	if ns := u.GetNamespace(); ns != "" {
		ri = r.Namespace(ns)
	}
	if _, err := ri.Create(t.Context(), u, metav1.CreateOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ri.Delete(context.Background(), u.GetName(), metav1.DeleteOptions{}) }) // t.Context() is done by then
}

// TestCheckPlanSteps: on the suite's kube-apiserver 1.37, each blocking
// row gets the step that mends it, in the row's own direction, and each
// version not served its own reason. Kubelets 1.37 and 1.36 checked for
// 1.33 are replaced (no kubelet release runs under both 1.37 and 1.33); a
// kubelet 1.99 checked for 1.38 is rolled back before the control plane;
// a claim held by 40 Pods rolled back to 1.32.0 names every Pod in the
// report.
func TestCheckPlanSteps(t *testing.T) {
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	nodes := func(kubelets map[string]string) {
		for name, version := range kubelets {
			node := map[string]interface{}{"apiVersion": "v1", "kind": "Node", "metadata": map[string]interface{}{"name": name}}
			create(t, d, "nodes", "test", node)
			u, err := d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}).Get(t.Context(), name, metav1.GetOptions{})
			if err == nil {
				_ = unstructured.SetNestedField(u.Object, version, "status", "nodeInfo", "kubeletVersion")
				_, err = d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}).UpdateStatus(t.Context(), u, metav1.UpdateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// mended is the step of each blocking node row, by name.
	mended := func(p plan) map[string]string {
		out := map[string]string{}
		for _, row := range p.Clients {
			if row.Subject == "node" && row.Verdict == "blocking" {
				out[row.Name] = fmt.Sprint(row.Step)
				if row.Step >= 1 && row.Step <= len(p.Steps) {
					out[row.Name] = p.Steps[row.Step-1]
				}
			}
		}
		return out
	}

	t.Run("rollback-to-1.33", func(t *testing.T) {
		nodes(map[string]string{"node-a": "v1.37.0", "node-b": "v1.36.2"})
		p := checkJSON(t, "--to", "1.33")
		replace := "Replace the kubelets of node-a, node-b with kubelet 1.33: drain each node before the control plane, and start its new kubelet once the control plane is 1.33 " +
			"(no kubelet release runs under both kube-apiserver 1.37 and 1.33)."
		if got := mended(p); got["node-a"] != replace || got["node-b"] != replace {
			t.Errorf("node-a and node-b are mended by %q, want %q", got, replace)
		}
		control := slices.IndexFunc(p.Steps, func(s string) bool { return strings.HasPrefix(s, "Roll back the control plane") })
		if i := slices.Index(p.Steps, replace); i < 0 || i > control {
			t.Errorf("the replace step is not before the control plane's: %q", p.Steps)
		}
		want := "kubelet 1.37 reads ResourceClaims through resource.k8s.io/v1, which Kubernetes 1.33 does not have (it came in 1.34): " +
			"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)"
		if !slices.ContainsFunc(p.Findings, func(f struct {
			File string `json:"file"`
			report.Finding
		}) bool {
			return f.File == "node:node-a" && f.Message == want
		}) {
			t.Errorf("node:node-a: no finding %q", want)
		}
	})

	t.Run("kubelet-newer-than-1.38", func(t *testing.T) {
		nodes(map[string]string{"node-future": "v1.99.0"})
		p := checkJSON(t, "--to", "1.38")
		back := "Roll back the kubelets of node-future to 1.37 or older, before the control plane."
		if got := mended(p)["node-future"]; got != back {
			t.Errorf("node-future is mended by %q, want %q", got, back)
		}
		control := slices.IndexFunc(p.Steps, func(s string) bool { return strings.HasPrefix(s, "Upgrade the control plane") })
		if i := slices.Index(p.Steps, back); i < 0 || i > control || slices.ContainsFunc(p.Steps, func(s string) bool { return strings.Contains(s, "node-future to 1.38 at once") }) {
			t.Errorf("steps: %q", p.Steps)
		}
	})

	t.Run("40-pods-to-1.32.0", func(t *testing.T) {
		var reserved []interface{}
		var pods []string
		for i := range 40 {
			reserved = append(reserved, map[string]interface{}{"resource": "pods", "name": fmt.Sprintf("worker-%d", i), "uid": fmt.Sprintf("uid-%d", i)})
			pods = append(pods, fmt.Sprintf("default/worker-%d", i))
		}
		claim := map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": map[string]interface{}{"name": "shared", "namespace": "default"},
			"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}}}}}
		create(t, d, "resourceclaims", "test", claim)
		claims := d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}).Namespace("default")
		u, err := claims.Get(t.Context(), "shared", metav1.GetOptions{})
		if err == nil {
			u.Object["status"] = map[string]interface{}{"reservedFor": reserved, "allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
				map[string]interface{}{"request": "gpu", "driver": "gpu.example.com", "pool": "node-a", "device": "gpu-0"}}}}}
			_, err = claims.UpdateStatus(t.Context(), u, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		p := checkJSON(t, "--to", "v1.32.0")
		found := false
		for _, f := range p.Findings {
			if f.Object == "default/shared" && f.Path == "status.reservedFor" {
				found = true
				if !strings.Contains(f.Message, "and 35 more Pods") || !slices.Equal(f.Pods, pods) {
					t.Errorf("%s: the message names five and counts 35, the list all 40: %q, %q", f.File, f.Message, f.Pods)
				}
			}
		}
		if !found {
			t.Errorf("no finding on status.reservedFor of claim default/shared")
		}
		if _, _, stderr := claimbridge(t, "--to", "v1.32.0", "--verbose"); !strings.Contains(stderr, "(all 40 Pods: "+strings.Join(pods, ", ")+")") {
			t.Errorf("check --verbose lists not every Pod:\n%s", stderr)
		}
	})
}

// TestCheckManagerKinds: objects a manager wrote through v1 on 1.37, a
// DeviceTaintRule among them, checked for 1.36 (which serves the other
// kinds in v1, and DeviceTaintRules only from 1.37): one finding, naming
// the DeviceTaintRule; the manager's other kinds are ok. Without the
// taint rule the manager is clean.
func TestCheckManagerKinds(t *testing.T) {
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	const manager = "kubectl-create"
	v1 := "resource.k8s.io/v1"
	meta := func(name, ns string) map[string]interface{} {
		m := map[string]interface{}{"name": name}
		if ns != "" {
			m["namespace"] = ns
		}
		return m
	}
	devices := map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "kinds.example.com"}}}}
	create(t, d, "deviceclasses", manager, map[string]interface{}{"apiVersion": v1, "kind": "DeviceClass", "metadata": meta("kinds.example.com", ""),
		"spec": map[string]interface{}{"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": `device.driver == "kinds.example.com"`}}}}})
	create(t, d, "resourceclaims", manager, map[string]interface{}{"apiVersion": v1, "kind": "ResourceClaim", "metadata": meta("kinds", "default"), "spec": map[string]interface{}{"devices": devices}})
	create(t, d, "resourceclaimtemplates", manager, map[string]interface{}{"apiVersion": v1, "kind": "ResourceClaimTemplate", "metadata": meta("kinds", "default"),
		"spec": map[string]interface{}{"spec": map[string]interface{}{"devices": devices}}})
	create(t, d, "resourceslices", manager, map[string]interface{}{"apiVersion": v1, "kind": "ResourceSlice", "metadata": meta("kinds-example", ""),
		"spec": map[string]interface{}{"driver": "kinds.example.com", "allNodes": true, "pool": map[string]interface{}{"name": "p", "generation": int64(1), "resourceSliceCount": int64(1)},
			"devices": []interface{}{map[string]interface{}{"name": "gpu-0"}}}})
	rule := map[string]interface{}{"apiVersion": v1, "kind": "DeviceTaintRule", "metadata": meta("kinds-maintenance", ""),
		"spec": map[string]interface{}{"deviceSelector": map[string]interface{}{"driver": "kinds.example.com"}, "taint": map[string]interface{}{"key": "maintenance", "effect": "NoSchedule"}}}
	create(t, d, "devicetaintrules", manager, rule)

	p := checkJSON(t, "--to", "1.36")
	var said []string
	for _, f := range p.Findings {
		if f.File == "manager:"+manager {
			said = append(said, f.Message)
		}
	}
	want := []string{"wrote 1 DeviceTaintRule through resource.k8s.io/v1, which Kubernetes 1.36 does not have (it came in 1.37): applied again through it, they fail: update the manifests (claimbridge migrate)"}
	if !slices.Equal(said, want) {
		t.Errorf("manager:%s says %q, want %q", manager, said, want)
	}
	kinds := map[string]string{}
	for _, row := range p.Clients {
		if row.Subject == "manager" && row.Name == manager && row.Version == "v1" {
			kinds[row.Kind] = row.Verdict
		}
	}
	wantKinds := map[string]string{"DeviceClass": "ok", "ResourceClaim": "ok", "ResourceClaimTemplate": "ok", "ResourceSlice": "ok", "DeviceTaintRule": "advice"}
	for kind, verdict := range wantKinds {
		if kinds[kind] != verdict {
			t.Errorf("manager %s, %s: verdict %q, want %q (rows %v)", manager, kind, kinds[kind], verdict, kinds)
		}
	}

	if err := d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "devicetaintrules"}).Delete(t.Context(), "kinds-maintenance", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	p = checkJSON(t, "--to", "1.36")
	for _, f := range p.Findings {
		if f.File == "manager:"+manager {
			t.Errorf("without the taint rule, manager:%s still says %q", manager, f.Message)
		}
	}
}
