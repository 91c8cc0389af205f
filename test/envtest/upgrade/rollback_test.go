//go:build envtest

package upgrade

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/cli"
)

// TestUpgradeRollsBackScheduled: the rollback of 1.36 to 1.33 in place,
// through the whole control plane of each release (kube-apiserver,
// kube-scheduler, kube-controller-manager) on one etcd, and no Pod
// stopped. On 1.36, seven Pods hold GPUs, six through claims of their own
// and one through a template, each placed by its scheduler. `upgrade --to
// 1.33` stops at the restart with --min-compatibility-version=1.33; after
// it, it rewrites every DRA object and stops at the change of release.
// The test replaces the control plane with 1.33's; there upgrade says 1.33
// reads every DRA object. The Pods stay where they are, each claim keeps
// its allocation and reservation, and 1.33's scheduler counts them: of two
// Pods more, each with a claim of its own, it places the first on the last
// free GPU and cannot allocate the second's claim.
func TestUpgradeRollsBackScheduled(t *testing.T) {
	c := startRelease(t, 36)
	stop := c.components(t, 36)
	c.nodes(t)
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]interface{}{"name": "gpu.example.com"},
		"spec": map[string]interface{}{"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": `device.driver == "gpu.example.com"`}}}}})
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": map[string]interface{}{"name": "gpu", "namespace": "default"},
		"spec": map[string]interface{}{"spec": claimSpec(36)}})
	for i := range 6 {
		c.claim(t, 36, fmt.Sprintf("claim-%d", i))
	}
	c.publish(t, 36)
	c.startPods(t, 36)
	placed, held := c.placed(t), c.held(t, "v1")
	if len(held) != 7 {
		t.Fatalf("on 1.36, %d claims are allocated and reserved, want 7: %v", len(held), held)
	}

	journal, to := filepath.Join(t.TempDir(), "journal"), "1.33"
	upgrade := func(want string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := cli.Main([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", to, "--journal", journal, "--yes"}, nil, &out, &errOut)
		if wantCode := map[bool]int{true: cli.ExitOperator, false: 0}[strings.HasPrefix(want, "next")]; code != wantCode || !strings.Contains(out.String(), want) {
			t.Fatalf("exit %d, want %d, and %q in stdout:\n%s\nstderr:\n%s", code, wantCode, want, out.String(), errOut.String())
		}
	}
	upgrade("next, the operator's step: restart every kube-apiserver 1.36 with --min-compatibility-version=1.33")
	stop()
	c.restart(t, "min-compatibility-version", "1.33") // the operator's step
	stop = c.components(t, 36)
	upgrade("next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.36 with 1.33")
	stop()
	c.change(t, 33) // the operator's step
	stop = c.components(t, 33)
	upgrade("step 2, done: resourceclaims rewritten in place (objects: 7)\n")
	if stored := storedVersions(t, c.env); len(stored) != 1 || len(stored["resource.k8s.io/v1beta1"]) != 11 {
		t.Fatalf("on 1.33, etcd holds %v, want each of the 11 DRA objects in v1beta1, as 1.33 writes it", stored)
	}
	upgrade("Kubernetes 1.33 reads every DRA object of the cluster (deviceclasses: 1, resourceclaims: 7, resourceclaimtemplates: 1, resourceslices: 2)\n")

	c.claim(t, 33, "claim-extra-0")
	c.pod(t, 33, "extra-0", map[string]interface{}{"resourceClaimName": "claim-extra-0"})
	c.scheduled(t, "extra-0", "True", "")
	c.claim(t, 33, "claim-extra-1")
	c.pod(t, 33, "extra-1", map[string]interface{}{"resourceClaimName": "claim-extra-1"})
	c.scheduled(t, "extra-1", "False", "cannot allocate all claims")
	after := c.placed(t)
	delete(after, "extra-0")
	delete(after, "extra-1")
	if !reflect.DeepEqual(after, placed) {
		t.Errorf("on 1.33, the Pods are placed on %v, want %v as on 1.36", after, placed)
	}
	now := c.held(t, "v1beta2")
	delete(now, "claim-extra-0")
	if !reflect.DeepEqual(now, held) {
		t.Errorf("on 1.33, the claims hold:\n%v\nwant, as on 1.36:\n%v", now, held)
	}

	// On to 1.32, which reads what 1.33 writes, not what 1.36 stored for it.
	placed, held = c.placed(t), c.held(t, "v1beta2")
	journal, to = journal+"-1.32", "1.32"
	upgrade("next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.33 with 1.32")
	stop()
	c.change(t, 32)
	c.components(t, 32) // stopped at the test's end
	upgrade("Kubernetes 1.32 reads every DRA object of the cluster (deviceclasses: 1, resourceclaims: 9, resourceclaimtemplates: 1, resourceslices: 2)\n")
	if after := c.placed(t); !reflect.DeepEqual(after, placed) {
		t.Errorf("on 1.32, the Pods are placed on %v, want %v as on 1.33", after, placed)
	}
	if now := c.held(t, "v1beta1"); !reflect.DeepEqual(now, held) {
		t.Errorf("on 1.32, the claims hold:\n%v\nwant, as on 1.33:\n%v", now, held)
	}
}

// claimSpec is the spec of a claim of one GPU, as 1.minor takes it.
func claimSpec(minor int) map[string]interface{} {
	// v1alpha3 and v1beta1 name the class in the request, v1beta2 and v1
	// in its exactly.
	request := map[string]interface{}{"name": "gpu", "deviceClassName": "gpu.example.com"}
	if minor >= 33 {
		request = map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}
	}
	return map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{request}}}
}

// claim creates the claim name of one GPU in namespace default.
func (c *release) claim(t *testing.T, minor int, name string) {
	t.Helper()
	c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/" + versions[minor], "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": name, "namespace": "default"}, "spec": claimSpec(minor)})
}

// placed is the Node of each Pod of namespace default, by name.
func (c *release) placed(t *testing.T) map[string]string {
	t.Helper()
	list, err := c.d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range list.Items {
		out[p.GetName()], _, _ = unstructured.NestedString(p.Object, "spec", "nodeName")
	}
	return out
}

// held is, for each claim of namespace default that is allocated, the
// devices allocated and the consumers reserved, by name.
func (c *release) held(t *testing.T, version string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, claim := range c.claimsIn(t, version) {
		results, _, _ := unstructured.NestedSlice(claim.Object, "status", "allocation", "devices", "results")
		reserved, _, _ := unstructured.NestedSlice(claim.Object, "status", "reservedFor")
		for _, r := range results {
			r := r.(map[string]interface{})
			out[claim.GetName()] += fmt.Sprintf("%s: %s/%s/%s, ", r["request"], r["driver"], r["pool"], r["device"])
		}
		if len(results) > 0 {
			out[claim.GetName()] += fmt.Sprint("reserved for ", reserved)
		}
	}
	return out
}

// scheduled waits until Pod name's PodScheduled condition has status,
// and a message with words, for a minute.
func (c *release) scheduled(t *testing.T, name, status, words string) {
	t.Helper()
	var last interface{}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		pod, err := c.d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace("default").Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conditions, _, _ := unstructured.NestedSlice(pod.Object, "status", "conditions")
		for _, cond := range conditions {
			if cond := cond.(map[string]interface{}); cond["type"] == "PodScheduled" {
				if last = cond; cond["status"] == status && strings.Contains(fmt.Sprint(cond["message"]), words) {
					return
				}
			}
		}
	}
	t.Fatalf("Pod %s: PodScheduled is %v after a minute, want status %s and %q in its message", name, last, status, words)
}
