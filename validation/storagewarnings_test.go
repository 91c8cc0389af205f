package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestStorageWarnings: a write through an older version returns, as
// admission warnings, what the stored (v1alpha3) object no longer says to
// 1.31 consumers; writes that lose nothing, and writes in the storage
// version, get none.
func TestStorageWarnings(t *testing.T) {
	const (
		paramsRef = `"parametersRef":{"apiGroup":"resource.k8s.io","kind":"ResourceClaimParameters","name":"p"}`
		meta      = `"metadata":{"name":"c","namespace":"ns","resourceVersion":"1"}`
	)
	fromStorage, err := conversion.Convert(obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",`+meta+`,
		"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","count":2}]}}}`), "v1alpha2")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		req  Request
		want []string
	}{
		"v1alpha2 claim with parametersRef": {
			req:  Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu",`+paramsRef+`}}`)},
			want: []string{`stored as v1alpha3: spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu" without the parameters' selectors and counts`},
		},
		"v1alpha1 template with parametersRef": {
			req:  Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaimTemplate",`+meta+`,"spec":{"spec":{"resourceClassName":"gpu",`+paramsRef+`}}}`)},
			want: []string{`stored as v1alpha3: spec.spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu" without the parameters' selectors and counts (v1alpha2→v1alpha3)`},
		},
		// The version's own rules warn about the field already: the
		// storage loss at the same path is not said again.
		"v1alpha2 claim with Immediate allocation: the version's own warning only": {
			req:  Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu","allocationMode":"Immediate"}}`)},
			want: []string{"spec.allocationMode: " + ImmediateAllocationWarning},
		},
		"plain v1alpha2 claim": {
			req: Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}}`)},
		},
		"v1alpha3 claim": {
			req: Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",`+meta+`,"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","count":2}]}}}`)},
		},
		"v1alpha2 update of an object read from storage (its restore annotation keeps the count)": {
			req: Request{Operation: Update, Object: fromStorage, OldObject: fromStorage},
		},
		"v1alpha2 label update of a claim with parametersRef: the write loses nothing new": {
			req: Request{Operation: Update,
				Object:    obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1","labels":{"a":"b"}},"spec":{"resourceClassName":"gpu",`+paramsRef+`}}`),
				OldObject: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu",`+paramsRef+`}}`)},
		},
		"v1alpha2 status write of a single-consumer allocation with text handle data: only the status losses": {
			req: Request{Operation: Update, SubResource: "status",
				Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu",`+paramsRef+`},
					"status":{"driverName":"gpu.example.com","allocation":{"shareable":false,"resourceHandles":[{"driverName":"gpu.example.com","data":"x"}]}}}`),
				OldObject: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu",`+paramsRef+`}}`)},
			want: []string{"stored as v1alpha3: status.allocation.shareable: a 1.31 claim may be reserved by up to 32 consumers; this allocation was for one consumer only",
				"stored as v1alpha3: status.allocation.resourceHandles[0].data: not a JSON object (or over 4096 bytes of JSON whose numbers are not canonical): a 1.31 driver receives it as opaque parameters wrapped in {apiVersion: resource.claimbridge.dev/v1alpha2, kind: ResourceHandle, data: <the text>}, which it must unwrap"},
		},
		"v1alpha2 status write of a structured allocation of a claim with 1.30's finalizer": {
			req: Request{Operation: Update, SubResource: "status",
				Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1","finalizers":["dra.k8s.io/delete-protection"]},"spec":{"resourceClassName":"gpu"},
					"status":{"driverName":"gpu.example.com","allocation":{"shareable":true,"resourceHandles":[{"driverName":"gpu.example.com","structuredData":{"nodeName":"n","results":[{"namedResources":{"name":"g0"}}]}}]}}}`),
				OldObject: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1","finalizers":["dra.k8s.io/delete-protection"]},"spec":{"resourceClassName":"gpu"}}`)},
			want: []string{"stored as v1alpha3: metadata.finalizers[0]: a 1.31 scheduler and resourceclaim controller recognise a structured allocation by finalizer resource.kubernetes.io/delete-protection: with dra.k8s.io/delete-protection they take it for a control-plane driver's, request its deallocation instead of clearing it (its pods are not scheduled meanwhile) and never remove this finalizer; a conversion keeps finalizers (claimbridge migrate drops it with the allocation)"},
		},
	} {
		t.Run(name, func(t *testing.T) { wantOnlyWarnings(t, c.req, c.want) })
	}
}

// TestNoStorageWarningsWhenRefused: a refused write stores nothing, so it
// gets no "stored as v1alpha3" warning (kubectl printed "Warning: stored as
// v1alpha3: …" above "The ResourceClaim … is invalid"); the version's own
// warnings still come with the errors.
func TestNoStorageWarningsWhenRefused(t *testing.T) {
	const meta = `"metadata":{"name":"c","namespace":"ns","resourceVersion":"1"}`
	for name, c := range map[string]struct {
		req  Request
		want []string
	}{
		"v1alpha1 claim with an invalid class and a parametersRef": {
			req: Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim",`+meta+`,
				"spec":{"resourceClassName":"Bad_Class","parametersRef":{"kind":"GpuClaimParameters","name":"p"}}}`)},
		},
		"v1alpha2 claim with an unsupported allocation mode": {
			req: Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,
				"spec":{"resourceClassName":"gpu","allocationMode":"Sometimes"}}`)},
		},
		"v1alpha2 template with Immediate allocation and a bad class: the version's own warning stays": {
			req: Request{Operation: Create, Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaimTemplate",`+meta+`,
				"spec":{"spec":{"resourceClassName":"Bad_Class","allocationMode":"Immediate"}}}`)},
			want: []string{"spec.spec.allocationMode: " + ImmediateAllocationWarning},
		},
		"v1alpha2 status write of a single-consumer allocation with a bad driver name": {
			req: Request{Operation: Update, SubResource: "status",
				Object: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu"},
					"status":{"driverName":"Bad_Driver","allocation":{"shareable":false,"resourceHandles":[{"driverName":"gpu.example.com","data":"x"}]}}}`),
				OldObject: obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",`+meta+`,"spec":{"resourceClassName":"gpu"}}`)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Errors) == 0 {
				t.Fatal("no errors")
			}
			if diff := cmp.Diff(c.want, resp.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
