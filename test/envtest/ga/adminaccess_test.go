//go:build envtest

package ga

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestAdminAccessNeedsTheNamespaceLabel backs the adminAccess warning of
// convert: a converted 1.31 claim with an admin request is rejected in a
// namespace without the resource.kubernetes.io/admin-access=true label
// (TestCreateConverted creates it in a labelled one).
func TestAdminAccessNeedsTheNamespaceLabel(t *testing.T) {
	ctx := context.Background()
	ns, err := s.core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "ga-suite-no-admin-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unlabelled := ns.Name
	in := map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "admin", "namespace": unlabelled},
		"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
			map[string]interface{}{"name": "nic", "deviceClassName": "nic.example.com", "adminAccess": true},
		}}},
	}
	out, warnings, err := conversion.ConvertWithWarnings(in, api.V1)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0].Path != "spec.devices.requests[0].adminAccess" {
		t.Errorf("warnings %v, want one for spec.devices.requests[0].adminAccess", warnings)
	}
	_, err = s.dynamic.Resource(gvr(api.V1, api.KindClaim)).Namespace(unlabelled).Create(ctx, &unstructured.Unstructured{Object: out}, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), conversion.AdminAccessLabel) {
		t.Fatalf("create in an unlabelled namespace: %v, want a rejection naming %s", err, conversion.AdminAccessLabel)
	}
}
