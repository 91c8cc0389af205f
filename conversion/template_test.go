package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestTemplateStatusIsNoSection: a template has one section, spec; a status
// member (which no template version defines) is copied as it is, not mapped
// as a claim's status.
func TestTemplateStatusIsNoSection(t *testing.T) {
	for _, to := range []string{api.V1alpha1, api.V1alpha2, api.V1beta1, api.V1} {
		t.Run(to, func(t *testing.T) {
			in := decodeTree(t, []byte(`{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},
				"spec":{"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}]}}},
				"status":{"note":"kept","allocation":{"controller":"gpu.example.com"}}}`))
			out, err := conversion.Convert(in, to)
			if err != nil {
				t.Fatal(err)
			}
			want := decodeTree(t, []byte(`{"note":"kept","allocation":{"controller":"gpu.example.com"}}`))
			if diff := cmp.Diff(want, out["status"], treeComparer); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
