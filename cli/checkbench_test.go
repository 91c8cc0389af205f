package cli

import (
	"fmt"
	"io"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/validation"
)

// BenchmarkCheck: check of a 1.37 cluster serving the betas going to
// 1.38: every object judged, every writer, node and request planned, the
// report written. The cluster's reads (its lists) are not in it.
//
//   - clients: 2,000 stored objects (claims, templates and slices, each with
//     two field managers) and 500 nodes of kubelets 1.34–1.37;
//   - held-claims: 10,000 allocated claims, each held by a Pod, and 500 nodes.
func BenchmarkCheck(b *testing.B) {
	b.Run("clients", func(b *testing.B) { benchmarkCheck(b, 2000, 4) })
	b.Run("held-claims", func(b *testing.B) { benchmarkCheck(b, 10000, 1) })
}

// benchmarkCheck checks n objects, one in every kinds a claim (the others
// templates and slices).
func benchmarkCheck(b *testing.B, n, kinds int) {
	objects := make([]map[string]interface{}, 0, n)
	for i := range n {
		kind, spec := api.KindClaim, map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
			map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com",
				"capacity": map[string]interface{}{"requests": map[string]interface{}{"memory": "1Gi"}}}}}}}
		switch i % kinds {
		case 1:
			kind, spec = api.KindTemplate, map[string]interface{}{"spec": spec}
		case 2, 3:
			kind, spec = api.KindResourceSlice, map[string]interface{}{"driver": "gpu.example.com", "nodeName": fmt.Sprintf("node-%d", i%500),
				"pool":    map[string]interface{}{"name": fmt.Sprintf("node-%d", i%500), "generation": int64(1), "resourceSliceCount": int64(1)},
				"devices": []interface{}{map[string]interface{}{"name": "gpu-0"}}}
		}
		driver := "resource.k8s.io/v1"
		if i%10 == 0 {
			driver = "resource.k8s.io/v1beta1"
		}
		meta := map[string]interface{}{"name": fmt.Sprintf("obj-%d", i), "managedFields": []interface{}{
			map[string]interface{}{"manager": "gpu-driver", "operation": "Update", "apiVersion": driver, "time": "2026-11-01T10:00:00Z"},
			map[string]interface{}{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "resource.k8s.io/v1", "time": "2026-11-01T10:00:00Z"},
		}}
		obj := map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": kind, "metadata": meta, "spec": spec}
		if kind != api.KindResourceSlice {
			meta["namespace"] = "team-a"
		}
		if kind == api.KindClaim {
			obj["status"] = map[string]interface{}{"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
				map[string]interface{}{"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "consumedCapacity": map[string]interface{}{"memory": "1Gi"}}}}},
				"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": fmt.Sprintf("pod-%d", i), "uid": fmt.Sprint(i)}}}
		}
		objects = append(objects, obj)
	}
	kubelets := map[string]string{}
	for i := range 500 {
		kubelets[fmt.Sprintf("node-%d", i)] = fmt.Sprintf("v1.%d.2", 34+i%4)
	}
	source := cluster.Live{Cluster: api.Bare(37)}
	if err := source.Set("", "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"); err != nil {
		b.Fatal(err)
	}
	source.Requested = []cluster.Requested{{Version: "v1beta1", Resource: "resourceclaims", Removed: "1.38"}}
	b.ReportAllocs()
	for b.Loop() {
		o := &checkOptions{from: 37, storedAs: 37, validateOptions: validateOptions{cel: validation.NewCELCache(), Options: report.Options{Format: "json"}}}
		if err := o.setTarget("1.38"); err != nil {
			b.Fatal(err)
		}
		target, refusals := source.Upgrade(38)
		o.cluster = target
		r := o.newReport()
		o.clients.Kubelets = kubelets
		for _, obj := range objects {
			if err := o.judgeLive(r, obj); err != nil {
				b.Fatal(err)
			}
		}
		o.planClients(source, r, len(refusals) > 0)
		if len(r.Clients) < 500+2 || len(r.Steps) == 0 {
			b.Fatalf("%d rows, %d steps", len(r.Clients), len(r.Steps))
		}
		if err := r.Write(io.Discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}
