package inplace

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// TestKubeletReads backs `claimbridge check`'s verdict on each kubelet
// release's claim read with the answers of the real kube-apiservers
// recorded by TestStartupRefusals: for every change 1.30↔1.31 … 1.36↔1.37,
// with the first release's DRA flags, every gate on and every version
// served, or only the versions a DRA cluster of it serves (from 1.34 the
// betas are then off). For each kubelet release the skew policy allows
// under the second, check says its Pods with claims run exactly when the
// started kube-apiserver serves the version of resource.k8s.io that the
// kubelet reads claims through (api/components.tsv, from its sources).
func TestKubeletReads(t *testing.T) {
	data, err := os.ReadFile(startupRecording)
	if err != nil {
		t.Fatalf("%v: run `make record`", err)
	}
	var book startupBook
	if err := json.Unmarshal(data, &book); err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, s := range book.Startups {
		from, _ := api.ParseMinor(s.From)
		to, _ := api.ParseMinor(s.To)
		source := api.Bare(from)
		if err := source.Set(s.FeatureGates, s.RuntimeConfig); err != nil {
			t.Fatal(err)
		}
		target := api.Bare(to)
		gates, runtime := keptFlags(source, to)
		if err := target.Set(gates, runtime); err != nil {
			t.Fatal(err)
		}
		for k := max(oldestKubelet(to), api.Releases[0].Minor); k <= to; k++ {
			v := api.Reads(k, api.Kubelet, api.KindClaim)
			if v == "" {
				t.Fatalf("api/components.tsv: kubelet 1.%d reads no ResourceClaims", k)
			}
			served := slices.Contains(s.Served, v) && target.Has(v, api.KindClaim)
			if got := target.Serves(v, api.KindClaim); got != served {
				t.Errorf("%s→%s (gates %s): kubelet 1.%d reads claims through %s: claimbridge says served %t, kube-apiserver %s served %v",
					s.From, s.To, s.Set, k, v, got, book.KubeAPIServer[s.To], s.Served)
			}
			judged++
		}
	}
	if judged == 0 {
		t.Fatalf("%s has no startups: run `make record`", startupRecording)
	}
	t.Logf("%d kubelet reads judged against %d recorded startups", judged, len(book.Startups))
}

// oldestKubelet is the oldest kubelet release the version skew policy
// allows under kube-apiserver of release apiserver.
func oldestKubelet(apiserver int) int {
	k := apiserver - 3
	for api.Skew(apiserver, k) != "" {
		k++
	}
	return k
}
