//go:build envtest

package check

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestCheckGatesOff: what a person sees of the gates a rollback to 1.35's
// defaults turns off, for a class with an extended resource and a slice
// with a tainted device that the cluster stores.
func TestCheckGatesOff(t *testing.T) {
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		resource string
		obj      map[string]interface{}
	}{
		{"deviceclasses", map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": map[string]interface{}{"name": "ext.example.com"},
			"spec": map[string]interface{}{"extendedResourceName": "example.com/gpu"}}},
		{"resourceslices", map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": map[string]interface{}{"name": "node-9-gpu"},
			"spec": map[string]interface{}{"driver": "gpu.example.com", "nodeName": "node-9", "pool": map[string]interface{}{"name": "node-9", "resourceSliceCount": int64(1)},
				"devices": []interface{}{map[string]interface{}{"name": "gpu-0", "taints": []interface{}{map[string]interface{}{"key": "example.com/unhealthy", "effect": "NoSchedule"}}}}}}},
	} {
		r := d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: o.resource})
		if _, err := r.Create(t.Context(), &unstructured.Unstructured{Object: o.obj}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		name := o.obj["metadata"].(map[string]interface{})["name"].(string)
		t.Cleanup(func() { _ = r.Delete(t.Context(), name, metav1.DeleteOptions{}) })
	}
	code, stdout, stderr := claimbridge(t, "--to", "1.35")
	t.Logf("check --to 1.35: exit %d\n%s%s", code, stdout, stderr)
	for _, line := range []string{
		"warning: DeviceClass ext.example.com: spec.extendedResourceName: Kubernetes 1.35 with DRAExtendedResource off gives no Pod example.com/gpu from this class: " +
			"a Pod that requests it stays pending, unless a device plugin offers it; the devices Pods hold through it stay theirs\n",
		"warning: ResourceSlice node-9-gpu: spec.devices[0].taints: Kubernetes 1.35 with DRADeviceTaints off ignores device taints: " +
			"its scheduler allocates the tainted devices (1 in this slice), and no Pod is evicted for a NoExecute taint\n",
	} {
		if !strings.Contains(stdout+stderr, line) {
			t.Errorf("check --to 1.35: no line %q", line)
		}
	}
}
