package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/claimbridge/claimbridge/api"
)

// TestGuardFollowsSettings: the guard reads the cluster's feature gates
// again while it runs: after the apiserver restarts with a gate off, it
// judges with the gate off.
func TestGuardFollowsSettings(t *testing.T) {
	var on atomic.Bool
	on.Store(true)
	cluster := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/version":
			fmt.Fprint(w, `{"major":"1","minor":"36","gitVersion":"v1.36.3"}`)
		case "/metrics":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "# TYPE kubernetes_feature_enabled gauge\nkubernetes_feature_enabled{name=\"DRAPartitionableDevices\",stage=\"BETA\"} %d\n", map[bool]int{true: 1}[on.Load()])
		case "/api":
			fmt.Fprint(w, `{"kind":"APIVersions","versions":["v1"]}`)
		case "/apis":
			fmt.Fprint(w, `{"kind":"APIGroupList","groups":[{"name":"resource.k8s.io","versions":[{"groupVersion":"resource.k8s.io/v1","version":"v1"}]}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer cluster.Close()
	defer func(old time.Duration) { guardRefresh = old }(guardRefresh)
	guardRefresh = 50 * time.Millisecond
	o := &Options{Judge: func(_ map[string]interface{}, c api.Cluster, _ int) ([]string, []string) {
		return []string{fmt.Sprintf("1.%d DRAPartitionableDevices=%t", c.Minor, c.Enabled("DRAPartitionableDevices"))}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := o.guard(ctx, &rest.Config{Host: cluster.URL})
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := g.Judge(nil); g.Release != "1.37" || errs[0] != "1.37 DRAPartitionableDevices=true" {
		t.Fatalf("guards %s: %v", g.Release, errs)
	}
	on.Store(false)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if errs, _ := g.Judge(nil); errs[0] == "1.37 DRAPartitionableDevices=false" {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("the guard still judges with %v after the cluster turned the gate off", errs)
		}
	}
}
