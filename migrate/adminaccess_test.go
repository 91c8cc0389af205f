package migrate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/report"
)

// TestAdminAccessNeedsALabelledNamespace: from 1.33, whose apiserver
// rejects a claim or template with adminAccess in a namespace without the
// admin-access label, Convert and Migrate warn of it once per request, in
// judge's words (validate's); 1.32 has adminAccess behind DRAAdminAccess
// but no such label; with the gate off the field is dropped, which is the
// warning instead.
func TestAdminAccessNeedsALabelledNamespace(t *testing.T) {
	const label = "needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)"
	claim := `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - {name: a, deviceClassName: gpu, adminAccess: true}
    - {name: b, deviceClassName: gpu, adminAccess: false}
`
	template := `
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - {name: a, exactly: {deviceClassName: gpu, adminAccess: true}}
`
	tests := []struct {
		name, in, to, gates string
		want                []string // of Convert and Migrate alike
	}{{
		name: "claim-1.33", in: claim, to: "1.33", gates: "DRAAdminAccess=true",
		want: []string{"spec.devices.requests[0].exactly.adminAccess: " + label},
	}, {
		name: "template-1.33", in: template, to: "1.33", gates: "DRAAdminAccess=true",
		want: []string{"spec.spec.devices.requests[0].exactly.adminAccess: " + label},
	}, {
		name: "claim-1.34", in: claim, to: "1.34",
		want: []string{"spec.devices.requests[0].exactly.adminAccess: " + label},
	}, {
		name: "template-v1", in: template, to: "v1",
		want: []string{"spec.spec.devices.requests[0].exactly.adminAccess: " + label},
	}, {
		name: "claim-1.33-gate-off", in: claim, to: "1.33",
		// adminAccess: false is dropped too (upstream drops a field that is set).
		want: []string{
			"spec.devices.requests[0].exactly.adminAccess: Kubernetes 1.33 drops it on a create: its DRAAdminAccess feature gate is off by default (on from 1.34)",
			"spec.devices.requests[1].exactly.adminAccess: Kubernetes 1.33 drops it on a create: its DRAAdminAccess feature gate is off by default (on from 1.34)",
		},
	}, {
		// 1.32 checks no namespace label.
		name: "claim-1.32", in: claim, to: "1.32", gates: "DRAAdminAccess=true",
	}, {
		name: "template-1.32", in: template, to: "1.32", gates: "DRAAdminAccess=true",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, err := TargetOf(tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if err := target.Cluster.SetFeatureGates(tt.gates); err != nil {
				t.Fatal(err)
			}
			for name, v := range map[string]report.Verdict{
				"Convert": Convert(obj(t, tt.in), target),
				"Migrate": Migrate(obj(t, tt.in), target, Options{}),
			} {
				if v.Outcome != report.Converted {
					t.Errorf("%s: outcome %s: %v", name, v.Outcome, v.Findings)
				}
				var got []string
				for _, f := range v.Findings {
					if f.Severity != report.Warning {
						continue
					}
					if f.Path != "" {
						f.Message = f.Path + ": " + f.Message
					}
					got = append(got, f.Message)
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("%s: warnings (-want +got):\n%s", name, d)
				}
			}
		})
	}
}

// TestAdminAccessLabelInAList: Convert warns of each item of a typed list,
// at the item's path.
func TestAdminAccessLabelInAList(t *testing.T) {
	target, err := TargetOf("1.33")
	if err != nil {
		t.Fatal(err)
	}
	if err := target.Cluster.SetFeatureGates("DRAAdminAccess=true"); err != nil {
		t.Fatal(err)
	}
	v := Convert(obj(t, `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimList
items:
- metadata: {name: a, namespace: ns}
  spec: {devices: {requests: [{name: r, deviceClassName: gpu}]}}
- metadata: {name: b, namespace: ns}
  spec: {devices: {requests: [{name: r, deviceClassName: gpu, adminAccess: true}]}}
`), target)
	want := []report.Finding{{Severity: report.Warning, Kind: "ResourceClaim", Object: "ns/b", Path: "items[1].spec.devices.requests[0].exactly.adminAccess",
		Message: "needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)"}}
	if d := cmp.Diff(want, v.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}
