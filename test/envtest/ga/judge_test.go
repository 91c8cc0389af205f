//go:build envtest

package ga

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/judge"
)

// TestRequestKindAgrees: what package judge (claimbridge validate and
// migrate for the GA versions) says of a request's kind — an exact request
// or a non-empty firstAvailable, exactly one, an exact one with a device
// class — kube-apiserver 1.37 says too, field for field, in every version:
// the request is refused with the same path exactly when judge, with the
// rules of 1.37, refuses it.
func TestRequestKindAgrees(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	sub := map[string]interface{}{"name": "a", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": int64(1)}
	tests := []struct {
		name    string
		version string
		request map[string]interface{}
	}{
		{"empty-firstAvailable", api.V1, map[string]interface{}{"firstAvailable": []interface{}{}}},
		{"neither", api.V1, map[string]interface{}{}},
		{"empty-exactly", api.V1, map[string]interface{}{"exactly": map[string]interface{}{}}},
		{"both", api.V1, map[string]interface{}{"exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}, "firstAvailable": []interface{}{sub}}},
		{"exactly", api.V1, map[string]interface{}{"exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}},
		{"firstAvailable", api.V1, map[string]interface{}{"firstAvailable": []interface{}{sub}}},
		{"v1beta2-empty-firstAvailable", api.V1beta2, map[string]interface{}{"firstAvailable": []interface{}{}}},
		{"v1beta1-count-without-class", api.V1beta1, map[string]interface{}{"allocationMode": "ExactCount", "count": int64(2)}},
		{"v1beta1-empty-firstAvailable", api.V1beta1, map[string]interface{}{"firstAvailable": []interface{}{}}},
		{"v1beta1-class", api.V1beta1, map[string]interface{}{"deviceClassName": "gpu.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := map[string]interface{}{"name": "r"}
			for k, v := range tt.request {
				req[k] = v
			}
			obj := map[string]interface{}{
				"apiVersion": "resource.k8s.io/" + tt.version, "kind": api.KindClaim,
				"metadata": map[string]interface{}{"name": "kind-" + strings.ToLower(tt.name), "namespace": namespace},
				"spec":     map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{req}}},
			}
			errs, _ := judge.Check(obj, suiteCluster(t), api.KindClaim)
			_, err := s.dynamic.Resource(gvr(tt.version, api.KindClaim)).Namespace(namespace).Create(ctx,
				&unstructured.Unstructured{Object: obj}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			switch {
			case len(errs) == 0 && err != nil:
				t.Fatalf("judge accepts it, the apiserver refuses it: %v", err)
			case len(errs) > 0 && err == nil:
				t.Fatalf("judge refuses it (%v), the apiserver accepts it", errs)
			case len(errs) > 0 && !apierrors.IsInvalid(err):
				t.Fatalf("judge refuses it (%v), the apiserver fails otherwise: %v", errs, err)
			}
			for _, e := range errs {
				path, _, _ := strings.Cut(e, ": ")
				if !strings.Contains(err.Error(), path+":") {
					t.Errorf("judge names %s, the apiserver does not: %v", path, err)
				}
			}
		})
	}
}
