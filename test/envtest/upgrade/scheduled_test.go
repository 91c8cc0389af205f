//go:build envtest

package upgrade

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/cli"
)

// TestUpgradeRecreatesScheduled: the changes 1.30→1.31→1.32→1.31→1.30
// through the whole control plane of each release (kube-apiserver,
// kube-scheduler and kube-controller-manager) on one etcd, two Nodes and
// the slices of a driver with four GPUs on each. Seven Pods run, each
// holding a GPU: six through claims of their own, one through a template.
// Where the target cannot read what is stored (all but 1.31→1.32),
// `upgrade --save` saves the objects and stops at the Pods; once they are
// stopped (the controller-manager releases and deallocates their claims,
// and deletes the one generated for a Pod), it deletes what the target
// cannot read and stops at the change. The test replaces the control plane
// with the target's, whose driver publishes its slices again; there upgrade
// re-creates what was saved and names the seven Pods. Started again, every
// Pod is placed by the target's scheduler, and every claim that was
// allocated is allocated again. On 1.31→1.32 the Pods run on, their claims
// allocated: nothing lost.
func TestUpgradeRecreatesScheduled(t *testing.T) {
	c := startRelease(t, 30)
	ctx := t.Context()
	stop := c.components(t, 30)
	c.nodes(t)
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClass", "metadata": map[string]interface{}{"name": "gpu.example.com"},
		"driverName": "gpu.example.com", "structuredParameters": true})
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaimTemplate", "metadata": map[string]interface{}{"name": "gpu", "namespace": "default"},
		"spec": map[string]interface{}{"spec": map[string]interface{}{"resourceClassName": "gpu.example.com"}}})
	for i := range 20 {
		c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim", "metadata": map[string]interface{}{"name": fmt.Sprintf("claim-%d", i), "namespace": "default"},
			"spec": map[string]interface{}{"resourceClassName": "gpu.example.com"}})
	}
	c.publish(t, 30)
	c.startPods(t, 30)
	dir := t.TempDir()
	for i, change := range []struct {
		from, to int
		saved    bool // else nothing is lost, and the Pods run on
	}{{30, 31, true}, {31, 32, false}, {32, 31, true}, {31, 30, true}} {
		if n := c.allocated(t, versions[change.from]); n != 7 {
			t.Fatalf("on 1.%d, %d claims are allocated, want 7", change.from, n)
		}
		save := filepath.Join(dir, fmt.Sprintf("%d-dra-1.%d.yaml", i, change.to))
		upgrade := func(args ...string) (int, string) {
			var out, errOut bytes.Buffer
			code := cli.Main(append([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", fmt.Sprintf("1.%d", change.to), "--journal", save + ".journal", "--save", save, "--yes"}, args...), nil, &out, &errOut)
			return code, out.String() + errOut.String()
		}
		pods := c.d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace("default")
		code, out := 0, ""
		switch {
		case change.saved && i == 0:
			code, out = c.stopPods(t, upgrade)
		case change.saved:
			if code, out = upgrade(); code != cli.ExitOperator || !strings.Contains(out, "next, the operator's step: stop the Pods that hold the claims") ||
				!strings.Contains(out, "; with --stop-pods, upgrade stops them; then run claimbridge upgrade again\n") {
				t.Fatalf("1.%d→1.%d: exit %d, want 3, output:\n%s", change.from, change.to, code, out)
			}
			// The operator's step: the Pods stopped. The controller-manager
			// releases their claims and deletes the one made for a Pod.
			if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); c.reserved(t, versions[change.from]) > 0; time.Sleep(time.Second) {
				if time.Now().After(deadline) {
					t.Fatalf("1.%d: claims still reserved a minute after their Pods stopped", change.from)
				}
			}
			code, out = upgrade()
		default:
			if code, out = upgrade(); !strings.Contains(out, fmt.Sprintf("; 1.%d reads every DRA object as it is stored: upgrade has no step of its own", change.to)) {
				t.Errorf("1.%d→1.%d loses nothing, and upgrade does not say so:\n%s", change.from, change.to, out)
			}
		}
		if want := fmt.Sprintf("next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.%d with 1.%d", change.from, change.to); code != cli.ExitOperator || !strings.Contains(out, want) {
			t.Fatalf("1.%d→1.%d: exit %d, want 3, output:\n%s\nwant %q", change.from, change.to, code, out, want)
		}
		stop()
		c.change(t, change.to)
		stop = c.components(t, change.to)
		code, out = upgrade()
		want := fmt.Sprintf("Kubernetes 1.%d reads every DRA object of the cluster", change.to)
		if change.saved {
			want = "start again the Pods that were stopped: default/direct-0, default/direct-1, default/direct-2, default/direct-3, default/direct-4, default/direct-5, default/tmpl-0\n"
		}
		if change.saved && i == 0 {
			want = strings.Replace(want, "direct-5, ", "direct-5, default/owned-0, ", 1)
		}
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("1.%d→1.%d, on 1.%d: exit %d, want 0, output:\n%s\nwant %q", change.from, change.to, change.to, code, out, want)
		}
		if change.saved {
			c.publish(t, change.to)
			c.startPods(t, change.to)
		}
		if n := c.allocated(t, versions[change.to]); n != 7 {
			t.Errorf("1.%d→1.%d: %d claims are allocated, want 7", change.from, change.to, n)
		}
	}
	stop()
}

// stopPods has upgrade --stop-pods stop the Pods of 1.30 that hold claims.
// An eighth Pod, owned-0, holds the last free GPU, and a ReplicaSet of a
// Deployment controls it: upgrade names the Pods it stops, and the
// Deployment, which would start owned-0 again; it saves the objects and
// stops at the operator's step, to scale it down. Once owned-0 has gone, it
// stops the seven Pods, deletes what 1.31 cannot read, and stops at the
// change of release, which it returns.
func (c *release) stopPods(t *testing.T, upgrade func(...string) (int, string)) (int, string) {
	t.Helper()
	ctx := t.Context()
	template := map[string]interface{}{"metadata": map[string]interface{}{"labels": map[string]interface{}{"app": "owned"}},
		"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}}
	spec := map[string]interface{}{"replicas": int64(0), "selector": map[string]interface{}{"matchLabels": map[string]interface{}{"app": "owned"}}, "template": template}
	deployment := c.create(t, map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]interface{}{"name": "owner", "namespace": "default"}, "spec": spec})
	rs := c.create(t, map[string]interface{}{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]interface{}{"name": "owner-1", "namespace": "default",
		"ownerReferences": []interface{}{map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "name": "owner", "uid": string(deployment.GetUID()), "controller": true}}}, "spec": spec})
	c.pod(t, 30, "owned-0", map[string]interface{}{"resourceClaimName": "claim-6"})
	pods := c.d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace("default")
	owner := fmt.Appendf(nil, `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"owner-1","uid":%q,"controller":true}]}}`, rs.GetUID())
	if _, err := pods.Patch(ctx, "owned-0", types.MergePatchType, owner, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	c.scheduled(t, "owned-0", "True", "")
	code, out := upgrade("--stop-pods", "--dry-run")
	for _, want := range []string{
		"step 2, claimbridge's: stop the Pods that hold the claims 1.31 cannot read: Pod default/direct-0 holds claim default/claim-0;",
		":\n  default/direct-0\n  default/direct-1\n  default/direct-2\n  default/direct-3\n  default/direct-4\n  default/direct-5\n" +
			"  default/owned-0\n    (Deployment default/owner starts it again: scale it down first)\n  default/tmpl-0\nstep 3, claimbridge's: delete every resourceclaims",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("--stop-pods --dry-run: exit %d, want 0, output:\n%s\nwant %q", code, out, want)
		}
	}
	want := "next, the operator's step: stop the controllers that would start again Pods that hold the claims (scale them to 0, suspend a Job): Deployment default/owner; upgrade stops the other Pods; then run claimbridge upgrade again\n"
	if code, out = upgrade("--stop-pods"); code != cli.ExitOperator || !strings.HasSuffix(out, want) || !strings.Contains(out, "step 1, done: saved to ") {
		t.Fatalf("--stop-pods, a controller's Pod: exit %d, want 3, output:\n%s\nwant it to end %q", code, out, want)
	}
	if n := c.allocated(t, "v1alpha2"); n != 8 {
		t.Fatalf("upgrade stopped Pods before the controller was scaled down: %d claims allocated, want 8", n)
	}
	if err := pods.Delete(ctx, "owned-0", metav1.DeleteOptions{}); err != nil { // the operator's step: no controller runs to scale down
		t.Fatal(err)
	}
	code, out = upgrade("--stop-pods")
	if want := "step 1, done before: saved to "; !strings.Contains(out, want) || !strings.Contains(out, "\nstep 2, done: the Pods that held the claims stopped (Pods: 7)\n") {
		t.Fatalf("--stop-pods: exit %d, output:\n%s", code, out)
	}
	if list, err := pods.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Fatalf("--stop-pods left %d Pods (%v)", len(list.Items), err)
	}
	return code, out
}

// versions are the DRA versions the releases of serving write in.
var versions = map[int]string{30: "v1alpha2", 31: "v1alpha3", 32: "v1beta1", 33: "v1beta2", 35: "v1", 36: "v1", 37: "v1"}

// nodes creates two ready Nodes, node-1 and node-2, and the default
// ServiceAccount.
func (c *release) nodes(t *testing.T) {
	t.Helper()
	c.create(t, map[string]interface{}{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]interface{}{"name": "default", "namespace": "default"}})
	for _, name := range []string{"node-1", "node-2"} {
		node := c.create(t, map[string]interface{}{"apiVersion": "v1", "kind": "Node", "metadata": map[string]interface{}{"name": name, "labels": map[string]interface{}{"kubernetes.io/hostname": name}}})
		node.Object["spec"] = map[string]interface{}{} // no not-ready taint: the Node is as its kubelet reports it ready
		node, err := c.resource(node.Object).Update(t.Context(), node, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		resources := map[string]interface{}{"cpu": "8", "memory": "32Gi", "pods": "110"}
		node.Object["status"] = map[string]interface{}{"capacity": resources, "allocatable": resources,
			"conditions": []interface{}{map[string]interface{}{"type": "Ready", "status": "True", "reason": "KubeletReady"}}}
		if _, err := c.resource(node.Object).UpdateStatus(t.Context(), node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// components starts release 1.minor's kube-scheduler and
// kube-controller-manager (its claim controller and garbage collector); the
// function returned stops them.
func (c *release) components(t *testing.T, minor int) (stop func()) {
	t.Helper()
	var cmds []*exec.Cmd
	for _, args := range [][]string{{"kube-scheduler"}, {"kube-controller-manager", "--controllers=resourceclaim-controller,garbage-collector-controller"}} {
		cmd := exec.Command(filepath.Join(c.assets[minor], args[0]), append(args[1:], "--kubeconfig="+c.kubeconfig, "--leader-elect=false", "--secure-port=0",
			"--feature-gates=DynamicResourceAllocation=true")...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	stop = func() {
		for _, cmd := range cmds {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		cmds = nil
	}
	t.Cleanup(stop)
	return stop
}

// publish creates the slices the driver publishes on 1.minor: four GPUs on
// each Node.
func (c *release) publish(t *testing.T, minor int) {
	t.Helper()
	for _, node := range []string{"node-1", "node-2"} {
		slice := map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceSlice", "metadata": map[string]interface{}{"name": node + "-gpu"},
			"nodeName": node, "driverName": "gpu.example.com", "namedResources": map[string]interface{}{"instances": gpus(false)}}
		if minor >= 31 {
			slice = map[string]interface{}{"apiVersion": "resource.k8s.io/" + versions[minor], "kind": "ResourceSlice", "metadata": map[string]interface{}{"name": node + "-gpu"},
				"spec": map[string]interface{}{"nodeName": node, "driver": "gpu.example.com", "devices": gpus(minor < 33),
					"pool": map[string]interface{}{"name": node, "generation": int64(1), "resourceSliceCount": int64(1)}}}
		}
		c.create(t, slice)
	}
}

// gpus are four devices, named gpu-0…3; basic: each with its attributes
// nested in an empty basic, as v1alpha3 and v1beta1 have them.
func gpus(basic bool) []interface{} {
	var out []interface{}
	for i := range 4 {
		d := map[string]interface{}{"name": fmt.Sprintf("gpu-%d", i)}
		if basic {
			d["basic"] = map[string]interface{}{}
		}
		out = append(out, d)
	}
	return out
}

// startPods creates the seven Pods, each holding a GPU, as 1.minor takes
// them, and waits until the scheduler has placed each.
func (c *release) startPods(t *testing.T, minor int) {
	t.Helper()
	names := []string{"tmpl-0"}
	for i := range 6 {
		names = append(names, fmt.Sprintf("direct-%d", i))
	}
	for i, name := range names {
		ref := map[string]interface{}{"resourceClaimName": fmt.Sprintf("claim-%d", i-1)}
		if name == "tmpl-0" {
			ref = map[string]interface{}{"resourceClaimTemplateName": "gpu"}
		}
		c.pod(t, minor, name, ref)
	}
	pods := c.d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace("default")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		list, err := pods.List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var placed, pending []string
		for _, p := range list.Items {
			if node, _, _ := unstructured.NestedString(p.Object, "spec", "nodeName"); node != "" {
				placed = append(placed, p.GetName())
			} else {
				conditions, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
				pending = append(pending, fmt.Sprint(p.GetName(), conditions))
			}
		}
		if len(placed) == len(names) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("1.%d's scheduler placed %v of %d Pods in 2 minutes; pending: %v", minor, placed, len(names), pending)
		}
	}
}

// pod creates Pod name in namespace default, holding a GPU through the
// claim of ref, as 1.minor takes it.
func (c *release) pod(t *testing.T, minor int, name string, ref map[string]interface{}) {
	t.Helper()
	claim := map[string]interface{}{"name": "gpu", "source": ref}
	if minor >= 31 {
		claim = map[string]interface{}{"name": "gpu"}
		for k, v := range ref {
			claim[k] = v
		}
	}
	c.create(t, map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": name, "namespace": "default"},
		"spec": map[string]interface{}{"automountServiceAccountToken": false, "terminationGracePeriodSeconds": int64(0),
			"containers": []interface{}{map[string]interface{}{"name": "c", "image": "registry.k8s.io/pause:3.10",
				"resources": map[string]interface{}{"claims": []interface{}{map[string]interface{}{"name": "gpu"}}}}},
			"resourceClaims": []interface{}{claim}}})
}

// claimsIn are the claims of namespace default, as version serves them.
func (c *release) claimsIn(t *testing.T, version string) []unstructured.Unstructured {
	t.Helper()
	list, err := c.d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: version, Resource: "resourceclaims"}).Namespace("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// allocated counts the claims that are allocated; reserved those reserved.
func (c *release) allocated(t *testing.T, version string) (n int) {
	for _, claim := range c.claimsIn(t, version) {
		if _, ok, _ := unstructured.NestedMap(claim.Object, "status", "allocation"); ok {
			n++
		}
	}
	return n
}

func (c *release) reserved(t *testing.T, version string) (n int) {
	for _, claim := range c.claimsIn(t, version) {
		if list, _, _ := unstructured.NestedSlice(claim.Object, "status", "reservedFor"); len(list) > 0 {
			n++
		}
	}
	return n
}
