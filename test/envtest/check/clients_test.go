//go:build envtest

package check

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/cli"
)

// TestCheckClients: on the suite's kube-apiserver 1.37 serving v1beta1, a
// driver writes its ResourceSlices through v1beta1 (managedFields), a
// controller lists claims through v1beta1 (apiserver_requested_deprecated_apis)
// and three Nodes report kubelets 1.37, 1.34 and 1.33. check --to 1.38
// names the driver, the reads and both old nodes, blocking, with the steps
// in order, and not the 1.37 node. Once the driver writes through v1 and
// the nodes run 1.37, neither the driver nor a node is named; the reads
// are counted until kube-apiserver restarts.
func TestCheckClients(t *testing.T) {
	ctx := t.Context()
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	kubelets := map[string]string{"gpu-137": "v1.37.1", "gpu-134": "v1.34.6", "gpu-133": "v1.33.9"}
	setKubelets := func(versions map[string]string) {
		for name, version := range versions {
			node, err := d.Resource(nodes).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				node, err = d.Resource(nodes).Create(ctx, &unstructured.Unstructured{Object: map[string]interface{}{
					"apiVersion": "v1", "kind": "Node", "metadata": map[string]interface{}{"name": name}}}, metav1.CreateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := unstructured.SetNestedField(node.Object, version, "status", "nodeInfo", "kubeletVersion"); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Resource(nodes).UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	setKubelets(kubelets)
	slices1beta1 := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceslices"}
	for _, node := range []string{"gpu-134", "gpu-133"} {
		slice := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": map[string]interface{}{"name": node + "-gpu.example.com"},
			"spec": map[string]interface{}{"driver": "gpu.example.com", "nodeName": node,
				"pool":    map[string]interface{}{"name": node, "generation": int64(1), "resourceSliceCount": int64(1)},
				"devices": []interface{}{map[string]interface{}{"name": "gpu-0", "basic": map[string]interface{}{}}}},
		}}
		if _, err := d.Resource(slices1beta1).Create(ctx, slice, metav1.CreateOptions{FieldManager: "gpu-driver"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background() // t.Context() is done by then
		for name := range kubelets {
			_ = d.Resource(nodes).Delete(ctx, name, metav1.DeleteOptions{})
		}
		_ = d.Resource(slices1beta1).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "spec.driver=gpu.example.com"})
	})
	claims1beta1 := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceclaims"}
	if _, err := d.Resource(claims1beta1).List(ctx, metav1.ListOptions{}); err != nil { // a controller's read
		t.Fatal(err)
	}

	code, stdout, stderr := claimbridge(t, "--to", "1.38")
	t.Logf("check --to 1.38:\n%s%s", stdout, stderr)
	for _, want := range []string{
		"manager:gpu-driver: wrote 2 ResourceSlices through resource.k8s.io/v1beta1, which Kubernetes 1.38 no longer serves (removed in 1.38): its next write of them through it fails: a driver stops publishing its slices",
		"requests:resource.k8s.io/v1beta1 resourceclaims: clients requested resource.k8s.io/v1beta1 resourceclaims since kube-apiserver started (apiserver_requested_deprecated_apis), " +
			"which Kubernetes 1.38 no longer serves (removed in 1.38): their requests fail; the audit log names them (annotation k8s.io/removed-release)",
		"node:gpu-133: kubelet 1.33 is 5 minors older than kube-apiserver 1.38: the version skew policy allows 3 (kubelets 1.35–1.38)",
		"node:gpu-133: kubelet 1.33 reads ResourceClaims through resource.k8s.io/v1beta1, which Kubernetes 1.38 no longer serves (removed in 1.38): its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)",
		"node:gpu-134: kubelet 1.34 is 4 minors older than kube-apiserver 1.38: the version skew policy allows 3 (kubelets 1.35–1.38)",
	} {
		if !slices.Contains(strings.Split(stdout, "\n"), "Error: "+want) && !strings.Contains(stdout, want) {
			t.Errorf("check --to 1.38: no line %q", want)
		}
	}
	// In order (TestCheck's clients read other v1beta1 resources, which add
	// steps of their own).
	steps := regexp.MustCompile(`(?m)^  \d+\. (.*)$`).FindAllStringSubmatch(stderr, -1)
	const stopgap = "(as a stopgap for 1.38 only, kube-apiserver serves it with KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE=true in its environment)."
	wantSteps := []string{
		"Upgrade gpu-driver to a release that writes its ResourceSlices through resource.k8s.io/v1 (a driver built with k8s.io/dynamic-resource-allocation v0.34–v0.38 can), before the control plane " + stopgap,
		"Move every client that requests resource.k8s.io/v1beta1 resourceclaims to resource.k8s.io/v1, before the control plane " + stopgap,
		"Move every client that requests resource.k8s.io/v1beta1 resourceslices to resource.k8s.io/v1, before the control plane " + stopgap, // the driver's
		"Upgrade the kubelets of gpu-133, gpu-134 to 1.35 or newer, before the control plane.",
		"Upgrade the control plane to 1.38: kube-apiserver first, then kube-controller-manager and kube-scheduler, with kube-apiserver's flags changed as named above.",
		"Then upgrade the kubelets of gpu-133, gpu-134, gpu-137 to 1.38, none newer than kube-apiserver.",
	}
	next := 0
	for _, step := range steps {
		if next < len(wantSteps) && step[1] == wantSteps[next] {
			next++
		}
	}
	if next < len(wantSteps) {
		t.Errorf("check --to 1.38: no step %q after the ones before it", wantSteps[next])
	}
	if code != cli.ExitInvalid || strings.Contains(stdout, "node:gpu-137") {
		t.Errorf("check --to 1.38: exit %d (want 1), or the 1.37 node named", code)
	}

	// The driver upgraded writes through v1; the nodes run 1.37.
	slicesV1 := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
	for _, node := range []string{"gpu-134", "gpu-133"} {
		slice, err := d.Resource(slicesV1).Get(ctx, node+"-gpu.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(slice.Object, int64(2), "spec", "pool", "generation"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Resource(slicesV1).Update(ctx, slice, metav1.UpdateOptions{FieldManager: "gpu-driver"}); err != nil {
			t.Fatal(err)
		}
	}
	setKubelets(map[string]string{"gpu-134": "v1.37.1", "gpu-133": "v1.37.1"})
	code, stdout, stderr = claimbridge(t, "--to", "1.38")
	t.Logf("check --to 1.38, the clients upgraded:\n%s%s", stdout, stderr)
	if code != cli.ExitInvalid || strings.Contains(stdout, "manager:gpu-driver") || strings.Contains(stdout, "node:") || !strings.Contains(stdout, "requests:resource.k8s.io/v1beta1 resourceclaims") {
		t.Errorf("check --to 1.38: exit %d (want 1: the reads since start), or the driver or a node named", code)
	}
}
