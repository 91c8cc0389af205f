package validation

import (
	"strings"
	"testing"
)

// TestUpdatesWarnOnlyAboutWhatChanged: a version's own warnings about the
// spec (Immediate allocation, admin access) are said when the object is
// created, not again on every label or finalizer change; a status warning is
// said when the allocation that carries it is written, not again on every
// reservation.
func TestUpdatesWarnOnlyAboutWhatChanged(t *testing.T) {
	const meta = `"metadata":{"name":"c","namespace":"ns","resourceVersion":"1"%s}`
	metaWith := func(extra string) string { return strings.Replace(meta, "%s", extra, 1) }
	v1Immediate := `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim",` + metaWith("%s") +
		`,"spec":{"resourceClassName":"gpu","allocationMode":"Immediate"}}`
	v3Admin := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + metaWith("%s") +
		`,"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu","adminAccess":true}]}}}`
	big := `"` + strings.Repeat("x", 11000) + `"`
	v3Status := func(reserved string) string {
		return `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + metaWith("") +
			`,"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu"}]}},"status":{"allocation":{"devices":{` +
			`"results":[{"request":"gpu","driver":"gpu.example.com","pool":"n","device":"g0"}],` +
			`"config":[{"source":"FromClaim","opaque":{"driver":"gpu.example.com","parameters":{"p":` + big + `}}}]}}` + reserved + `}}`
	}
	const reservation = `,"reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]`
	unallocated := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",` + metaWith("") +
		`,"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu"}]}}}`
	label := `,"labels":{"a":"b"}`
	fill := func(s, extra string) string { return strings.Replace(s, "%s", extra, 1) }

	immediate := "spec.allocationMode: " + ImmediateAllocationWarning
	admin := "spec.devices.requests[0].adminAccess: admin access is neither validated nor restricted in Kubernetes 1.31; " +
		"from 1.32 it is feature-gated (DRAAdminAccess) and later limited to namespaces labeled resource.kubernetes.io/admin-access=true " +
		"(1.34+; resource.k8s.io/admin-access=true in 1.33)"
	bigConfig := "status.allocation.devices.config[0].opaque.parameters: the parameters have 11008 bytes; Kubernetes 1.32 and later reject more than 10240 bytes"
	for name, c := range map[string]struct {
		req  Request
		want []string
	}{
		"v1alpha1 create with Immediate allocation": {
			req:  Request{Operation: Create, Object: obj(t, fill(v1Immediate, ""))},
			want: []string{immediate},
		},
		"v1alpha1 label update of that claim": {
			req: Request{Operation: Update, Object: obj(t, fill(v1Immediate, label)), OldObject: obj(t, fill(v1Immediate, ""))},
		},
		"v1alpha3 create with admin access": {
			req:  Request{Operation: Create, Object: obj(t, fill(v3Admin, ""))},
			want: []string{admin},
		},
		"v1alpha3 label update of that claim": {
			req: Request{Operation: Update, Object: obj(t, fill(v3Admin, label)), OldObject: obj(t, fill(v3Admin, ""))},
		},
		"v1alpha3 status write that allocates with oversized parameters": {
			req:  Request{Operation: Update, SubResource: "status", Object: obj(t, v3Status(reservation)), OldObject: obj(t, unallocated)},
			want: []string{bigConfig},
		},
		"v1alpha3 status write that only removes the reservation": {
			req: Request{Operation: Update, SubResource: "status", Object: obj(t, v3Status("")), OldObject: obj(t, v3Status(reservation))},
		},
	} {
		t.Run(name, func(t *testing.T) { wantOnlyWarnings(t, c.req, c.want) })
	}
}
