package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/report"
)

// TestPlanChange: each client the target breaks is named once, in its
// source, with what follows; what it keeps gets no finding; the steps put
// the clients first, then the nodes that must move, the control plane and
// the other nodes.
func TestPlanChange(t *testing.T) {
	cluster := func(minor int, runtime string) api.Cluster {
		c := api.Bare(minor)
		if err := c.Set("", runtime); err != nil {
			t.Fatal(err)
		}
		return c
	}
	const betas = "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"
	upgrade := "Upgrade the control plane to 1.38: kube-apiserver first, then kube-controller-manager and kube-scheduler."
	for name, tc := range map[string]struct {
		from     api.Cluster
		to       int
		clients  Clients
		findings map[string][]report.Finding
		steps    []string
	}{
		"driver-writes-v1beta1": {cluster(37, betas), 38, Clients{Writes: map[Writer]map[string]int{
			{"gpu-driver", api.V1beta1}:              {api.KindResourceSlice: 4},
			{"kubectl-client-side-apply", "v1beta1"}: {api.KindClaim: 1},
			{api.Scheduler, api.V1beta1}:             {api.KindClaim: 2}, // written by 1.33's scheduler, before
			{"gpu-driver", api.V1}:                   {api.KindResourceSlice: 1},
		}}, map[string][]report.Finding{
			"manager:gpu-driver": {{Severity: report.Error, Message: "wrote 4 ResourceSlices through resource.k8s.io/v1beta1, which Kubernetes 1.38 no longer serves (removed in 1.38): " +
				"its next write of them through it fails: a driver stops publishing its slices"}},
			"manager:kubectl-client-side-apply": {{Severity: report.Warning, Message: "wrote 1 ResourceClaim through resource.k8s.io/v1beta1, which Kubernetes 1.38 no longer serves (removed in 1.38): " +
				"applied again through it, they fail: update the manifests (claimbridge migrate)"}},
		}, []string{
			"Upgrade gpu-driver to a release that writes its ResourceSlices through resource.k8s.io/v1 (a driver built with k8s.io/dynamic-resource-allocation v0.34–v0.38 can), before the control plane " +
				"(as a stopgap for 1.38 only, kube-apiserver serves it with KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE=true in its environment).",
			upgrade,
		}},
		"requests-v1beta1": {cluster(37, betas), 38, Clients{Requested: []Request{{"v1beta1", "resourceclaims", "1.38"}, {"v1beta2", "resourceslices", "1.39"}}},
			map[string][]report.Finding{"requests:resource.k8s.io/v1beta1 resourceclaims": {{Severity: report.Error, Message: "clients requested resource.k8s.io/v1beta1 resourceclaims since kube-apiserver started " +
				"(apiserver_requested_deprecated_apis), which Kubernetes 1.38 no longer serves (removed in 1.38): their requests fail; the audit log names them (annotation k8s.io/removed-release)"}}},
			[]string{"Move every client that requests resource.k8s.io/v1beta1 resourceclaims to resource.k8s.io/v1, before the control plane " +
				"(as a stopgap for 1.38 only, kube-apiserver serves it with KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE=true in its environment).", upgrade}},
		"kept-by-1.37": {cluster(36, betas), 37, Clients{Writes: map[Writer]map[string]int{{"gpu-driver", api.V1beta1}: {api.KindResourceSlice: 4}},
			Requested: []Request{{"v1beta1", "resourceclaims", "1.38"}}, Kubelets: map[string]string{"a": "v1.34.2", "b": "v1.36.0"}},
			map[string][]report.Finding{}, []string{"Upgrade the control plane to 1.37: kube-apiserver first, then kube-controller-manager and kube-scheduler.",
				"Then upgrade the kubelets of a, b to 1.37, none newer than kube-apiserver."}},
		"rollback-driver-writes-v1": {cluster(34, ""), 33, Clients{Writes: map[Writer]map[string]int{{"gpu-driver", api.V1}: {api.KindResourceSlice: 2}}},
			map[string][]report.Finding{"manager:gpu-driver": {{Severity: report.Error, Message: "wrote 2 ResourceSlices through resource.k8s.io/v1, which Kubernetes 1.33 does not have (it came in 1.34): " +
				"its next write of them through it fails: a driver stops publishing its slices"}}},
			[]string{"Roll back gpu-driver to a release that writes its ResourceSlices through resource.k8s.io/v1beta1 (a driver built with k8s.io/dynamic-resource-allocation v0.32–v0.38 can), " +
				"before the control plane: no flag of kube-apiserver 1.33 serves resource.k8s.io/v1.",
				"Roll back the control plane to 1.33: kube-apiserver first, then kube-controller-manager and kube-scheduler, with kube-apiserver's flags changed as named above."}},
		"rollback-kubelets-no-release-between": {cluster(37, ""), 33, Clients{Kubelets: map[string]string{"node-a": "v1.37.0", "node-b": "v1.36.2"}},
			map[string][]report.Finding{
				"node:node-a": {{Severity: report.Error, Message: "kubelet 1.37 is newer than kube-apiserver 1.33: the version skew policy forbids it"},
					{Severity: report.Error, Message: "kubelet 1.37 reads ResourceClaims through resource.k8s.io/v1, which Kubernetes 1.33 does not have (it came in 1.34): " +
						"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)"}},
				"node:node-b": {{Severity: report.Error, Message: "kubelet 1.36 is newer than kube-apiserver 1.33: the version skew policy forbids it"},
					{Severity: report.Error, Message: "kubelet 1.36 reads ResourceClaims through resource.k8s.io/v1, which Kubernetes 1.33 does not have (it came in 1.34): " +
						"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)"}}},
			[]string{"Make sure every DRA driver serves DRA gRPC v1alpha4 or v1beta1, which kubelet 1.33 speaks (it drops v1): drivers built with k8s.io/dynamic-resource-allocation v0.31–v0.38 do.",
				"Replace the kubelets of node-a, node-b with kubelet 1.33: drain each node before the control plane, and start its new kubelet once the control plane is 1.33 " +
					"(no kubelet release runs under both kube-apiserver 1.37 and 1.33).",
				"Roll back the control plane to 1.33: kube-apiserver first, then kube-controller-manager and kube-scheduler, with kube-apiserver's flags changed as named above."}},
		"kubelet-newer-than-target": {cluster(37, ""), 38, Clients{Kubelets: map[string]string{"node-future": "v1.99.0"}},
			map[string][]report.Finding{"node:node-future": {{Severity: report.Error, Message: "kubelet 1.99 is newer than kube-apiserver 1.38: the version skew policy forbids it"}}},
			[]string{"Roll back the kubelets of node-future to 1.37 or older, before the control plane.", upgrade,
				"Then upgrade the kubelets of node-future to 1.38, none newer than kube-apiserver."}},
		"per-kind": {cluster(37, ""), 36, Clients{Writes: map[Writer]map[string]int{
			{"kubectl-create", api.V1}: {api.KindDeviceClass: 37, api.KindDeviceTaintRule: 1, api.KindClaim: 23},
			{"gpu-driver", api.V1}:     {api.KindResourceSlice: 18, api.KindDeviceTaintRule: 2},
		}}, map[string][]report.Finding{
			"manager:kubectl-create": {{Severity: report.Warning, Message: "wrote 1 DeviceTaintRule through resource.k8s.io/v1, which Kubernetes 1.36 does not have (it came in 1.37): " +
				"applied again through it, they fail: update the manifests (claimbridge migrate)"}},
			"manager:gpu-driver": {{Severity: report.Error, Message: "wrote 2 DeviceTaintRules through resource.k8s.io/v1, which Kubernetes 1.36 does not have (it came in 1.37): " +
				"its next write of them through it fails"}},
		}, []string{"Roll back gpu-driver to a release that writes its DeviceTaintRules through resource.k8s.io/v1beta2 " +
			"(which Kubernetes 1.36 serves only with --runtime-config=resource.k8s.io/v1beta2=true) (a driver built with k8s.io/dynamic-resource-allocation v0.37–v0.38 can), before the control plane: no flag of kube-apiserver 1.36 serves resource.k8s.io/v1.",
			"Roll back the control plane to 1.36: kube-apiserver first, then kube-controller-manager and kube-scheduler."}},
		"no-kubelet-version": {cluster(37, ""), 38, Clients{Kubelets: map[string]string{"a": ""}},
			map[string][]report.Finding{"node:a": {{Severity: report.Warning, Message: `kubelet version "" is not a Kubernetes release: the node is not judged`}}},
			[]string{upgrade}},
	} {
		t.Run(name, func(t *testing.T) {
			target, refusals := tc.from.Upgrade(tc.to)
			p := PlanChange(tc.clients, tc.from, target, len(refusals) > 0)
			if d := cmp.Diff(tc.findings, p.Findings); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.steps, p.Steps); d != "" {
				t.Errorf("steps (-want +got):\n%s", d)
			}
			stepsMend(t, p)
		})
	}
}

// stepsMend: each blocking row names the step that mends it, and that
// step names the row's subject (of more than five, five and a count).
func stepsMend(t *testing.T, p Plan) {
	t.Helper()
	mends := map[int]int{} // rows by step
	for _, row := range p.Rows {
		mends[row.Step]++
	}
	for _, row := range p.Rows {
		if row.Verdict != "blocking" {
			continue
		}
		if row.Step < 1 || row.Step > len(p.Steps) {
			t.Errorf("%s %s (%s %s): blocking, and no step mends it: %q", row.Subject, row.Name, row.Version, row.Kind, p.Steps)
			continue
		}
		if step := p.Steps[row.Step-1]; !strings.Contains(step, row.Name) && (mends[row.Step] <= 5 || !strings.Contains(step, "more")) || row.Kind != "" && !strings.Contains(step, plural(row.Kind, 2)) {
			t.Errorf("%s %s (%s %s): its step %d does not name it: %q", row.Subject, row.Name, row.Version, row.Kind, row.Step, step)
		}
	}
}

// TestEveryBlockingRowHasItsStep: for every change between two releases,
// with kubelets of every release, a driver writing each kind through each
// version and each deprecated version requested, every blocking row has
// the step that mends it, naming it.
func TestEveryBlockingRowHasItsStep(t *testing.T) {
	cl := Clients{Kubelets: map[string]string{"future": "v1.99.0"}, Writes: map[Writer]map[string]int{}}
	for _, r := range api.Releases {
		cl.Kubelets[fmt.Sprintf("node-1-%d", r.Minor)] = fmt.Sprintf("v1.%d.0", r.Minor)
	}
	for _, v := range api.ConversionVersions {
		cl.Writes[Writer{"driver-" + v, v}] = map[string]int{api.KindResourceSlice: 1, api.KindClaim: 1, api.KindDeviceTaintRule: 1, api.KindDeviceClass: 1}
		cl.Requested = append(cl.Requested, Request{v, "resourceclaims", ""})
	}
	for _, from := range api.Releases {
		for _, to := range api.Releases {
			if from.Minor < 31 || to.Minor < 31 || from == to {
				continue
			}
			target, refusals := api.Defaults(from.Minor).Upgrade(to.Minor)
			c := cl
			c.Unknown = nil
			p := PlanChange(c, api.Defaults(from.Minor), target, len(refusals) > 0)
			t.Run(fmt.Sprintf("1.%d-to-1.%d", from.Minor, to.Minor), func(t *testing.T) { stepsMend(t, p) })
		}
	}
}

// TestAddWrites: an object counts once per manager, under the version of
// its newest entry; other groups' entries are not counted.
func TestAddWrites(t *testing.T) {
	entry := func(manager, apiVersion, at string) interface{} {
		return map[string]interface{}{"manager": manager, "operation": "Update", "apiVersion": apiVersion, "time": at}
	}
	slice := map[string]interface{}{"metadata": map[string]interface{}{"managedFields": []interface{}{
		entry("gpu-driver", "resource.k8s.io/v1beta1", "2026-10-01T10:00:00Z"),
		entry("gpu-driver", "resource.k8s.io/v1", "2026-11-01T10:00:00Z"), // upgraded since
		entry("labeller", "resource.k8s.io/v9", "2026-11-01T10:00:00Z"),
		entry("other", "example.com/v1", "2026-11-01T10:00:00Z"),
	}}}
	var c Clients
	c.AddWrites(slice, api.KindResourceSlice)
	c.AddWrites(map[string]interface{}{"metadata": map[string]interface{}{"managedFields": "not a list"}}, api.KindResourceSlice)
	want := map[Writer]map[string]int{{"gpu-driver", api.V1}: {api.KindResourceSlice: 1}, {"labeller", "v9"}: {api.KindResourceSlice: 1}}
	if d := cmp.Diff(want, c.Writes); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	p := PlanChange(c, api.Bare(37), api.Bare(38), false)
	wantFindings := map[string][]report.Finding{"manager:labeller": {{Severity: report.Warning,
		Message: "wrote 1 ResourceSlice through resource.k8s.io/v9, a version no Kubernetes release has: not judged"}}}
	if d := cmp.Diff(wantFindings, p.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// TestUnknownToKubelets: a node whose kubelet release lacks a field that
// stored claims use is told so, with how many use it.
func TestUnknownToKubelets(t *testing.T) {
	c := Clients{Kubelets: map[string]string{"old": "v1.33.9", "new": "v1.35.0"}}
	claim := func(name string, capacity bool) map[string]interface{} {
		exactly := map[string]interface{}{"deviceClassName": "gpu.example.com"}
		if capacity {
			exactly["capacity"] = map[string]interface{}{"requests": map[string]interface{}{"memory": "1Gi"}}
		}
		return map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": api.KindClaim, "metadata": map[string]interface{}{"name": name, "namespace": "ns"},
			"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
				map[string]interface{}{"name": "a", "exactly": exactly}, map[string]interface{}{"name": "b", "exactly": exactly}}}}}
	}
	for _, obj := range []map[string]interface{}{claim("x", true), claim("y", true), claim("z", false)} {
		c.AddWrites(obj, api.KindClaim)
	}
	p := PlanChange(c, api.Bare(34), api.Bare(35), false)
	want := map[string][]report.Finding{
		"node:old": {
			{Severity: report.Warning, Message: "kubelet 1.33 reads ResourceClaims without capacity (Kubernetes 1.34+), which 2 stored claims use: it prepares them as if they had none"},
			{Severity: report.Error, Message: "kubelet 1.33 reads ResourceClaims through resource.k8s.io/v1beta1, which Kubernetes 1.35 serves only with --runtime-config=resource.k8s.io/v1beta1=true: " +
				"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)"},
		},
	}
	if d := cmp.Diff(want, p.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// TestRunbook: where the cluster's kube-apiserver can store what the
// target reads (--min-compatibility-version, 1.35 and later, three
// releases back), the runbook rewrites in place and deletes nothing; else
// it saves, deletes and re-creates, naming the Pods that hold the claims.
func TestRunbook(t *testing.T) {
	for name, tc := range map[string]struct {
		from, to int
		lost     map[string]int
		held     []string
		want     string
	}{
		"1.36-to-1.33-claims": {36, 33, map[string]int{"resourceclaims": 2, "deviceclasses": 1}, []string{"Pod ml/a holds claim ml/c"},
			"Kubernetes 1.33 cannot read the objects stored by 1.36 (deviceclasses: 1, resourceclaims: 2), and lists none of their kinds while one is stored: before the change, " +
				"keep them in place with `claimbridge upgrade --to 1.33`: it has you restart kube-apiserver 1.36 with --min-compatibility-version=1.33, " +
				"so that it stores what 1.33 reads, then rewrites each as it is; nothing is deleted and no Pod stops"},
		// kube-apiserver 1.37 stores taint rules in v1beta2 whatever its
		// --min-compatibility-version (TestRewriteInPlace).
		"1.37-to-1.35-taint-rules": {37, 35, map[string]int{"devicetaintrules": 2}, nil,
			"Kubernetes 1.35 cannot read the objects stored by 1.37 (devicetaintrules: 2), and lists none of their kinds while one is stored: before the change, " +
				"save them with `claimbridge upgrade --to 1.35 --save dra.yaml`, which deletes them once saved (the drivers publish their ResourceSlices again), change the release, " +
				"then run it again on 1.35: it re-creates them"},
		"1.34-to-1.32-no-flag": {34, 32, map[string]int{"resourceclaims": 1}, []string{"Pod ml/a holds claim ml/c"},
			"Kubernetes 1.32 cannot read the objects stored by 1.34 (resourceclaims: 1), and lists none of their kinds while one is stored: before the change, " +
				"save them with `claimbridge upgrade --to 1.32 --save dra.yaml`, which deletes them once saved (the drivers publish their ResourceSlices again), change the release, " +
				"then run it again on 1.32: it re-creates them. Deleting the claims stops what runs: Pod ml/a holds claim ml/c. " +
				"A claim a Pod holds stays Terminating until the Pod ends (its delete-protection finalizer): stop these Pods first, and start them again once the claims are re-created"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := Runbook(tc.from, tc.to, tc.lost, tc.held); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
