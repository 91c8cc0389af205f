//go:build envtest

package envtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/claimbridge/claimbridge/api"
)

// category is the kubectl category of both CRDs: `kubectl get claimbridge`
// lists claims and templates of every namespace without naming the group,
// which plain `kubectl get resourceclaims` cannot do on a cluster that serves
// the built-in resource.k8s.io ResourceClaim (1.34+ by default): kubectl
// resolves that name to the built-in resource.
const category = "claimbridge"

// TestDiscoveryCategory: every served version of both resources is in the
// category in discovery, which is what kubectl expands a category from.
func TestDiscoveryCategory(t *testing.T) {
	for _, version := range api.ServedVersions {
		list, err := env.Discovery.ServerResourcesForGroupVersion(api.Group + "/" + version)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{claimsResource, templatesResource} {
			i := slices.IndexFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == name })
			if i < 0 {
				t.Errorf("%s: %s not in discovery", version, name)
				continue
			}
			if r := list.APIResources[i]; !slices.Contains(r.Categories, category) {
				t.Errorf("%s %s: categories %q, want %q in them", version, name, r.Categories, category)
			}
		}
	}
}

// TestPrinterColumns: what `kubectl get` shows in each version (the server's
// Table), with the columns README names. A column of a JSONPath with [*]
// shows its first value only (kube-apiserver's CRD table convertor), as
// README says: the first consumer, the first request's device class.
func TestPrinterColumns(t *testing.T) {
	ns := newNamespace(t, "printer-columns")
	ctx := ctxFor(t)
	claim := fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: two-requests}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    - {name: nic, deviceClassName: nic.example.com}
`)
	created := createClaim(t, claim)
	set(t, created, map[string]interface{}{
		"allocation": map[string]interface{}{
			"controller": "gpu.example.com",
			"devices": map[string]interface{}{"results": []interface{}{
				map[string]interface{}{"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "d0"},
				map[string]interface{}{"request": "nic", "driver": "gpu.example.com", "pool": "p", "device": "d1"},
			}},
		},
		"reservedFor": consumers(2, "pod"),
	}, "status")
	if _, err := claims("v1alpha3", ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(describe(err))
	}
	tpl := fromYAML(t, "v1alpha2", ns, `
kind: ResourceClaimTemplate
metadata: {name: tpl}
spec:
  spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`)
	createObject(t, templatesResource, tpl)

	client, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	table := func(t *testing.T, version, resource string) *metav1.Table {
		t.Helper()
		url := fmt.Sprintf("%s/apis/%s/%s/namespaces/%s/%s", strings.TrimSuffix(env.Config.Host, "/"), api.Group, version, ns, resource)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, body)
		}
		var tb metav1.Table
		if err := json.Unmarshal(body, &tb); err != nil {
			t.Fatal(err)
		}
		return &tb
	}
	// columns are the (name, priority) pairs but Name and Age; cells the
	// values of the first row in the same columns.
	check := func(t *testing.T, tb *metav1.Table, columns []string, wide []string, cells []interface{}) {
		t.Helper()
		var gotColumns, gotWide []string
		var gotCells []interface{}
		if len(tb.Rows) != 1 {
			t.Fatalf("%d rows, want 1", len(tb.Rows))
		}
		for i, c := range tb.ColumnDefinitions {
			if c.Name == "Name" || c.Name == "Age" {
				continue
			}
			if c.Priority == 0 {
				gotColumns = append(gotColumns, c.Name)
			} else {
				gotWide = append(gotWide, c.Name)
			}
			gotCells = append(gotCells, tb.Rows[0].Cells[i])
		}
		if !slices.Equal(columns, gotColumns) || !slices.Equal(wide, gotWide) {
			t.Errorf("columns %q, wide %q; want %q, %q", gotColumns, gotWide, columns, wide)
		}
		if got, want := fmt.Sprint(gotCells), fmt.Sprint(cells); got != want {
			t.Errorf("cells %s, want %s", got, want)
		}
	}
	for _, c := range []struct {
		version       string
		columns, wide []string
		cells         []interface{}
	}{
		// AllocationMode: a claim written through v1alpha3 is allocated
		// when a pod needs it, which 1.26–1.30 write out.
		{"v1alpha1", []string{"ResourceClassName", "AllocationMode", "Driver", "ReservedFor"}, []string{"Deallocating"},
			[]interface{}{"gpu.example.com", "WaitForFirstConsumer", "gpu.example.com", "pod-0", nil}},
		{"v1alpha2", []string{"ResourceClassName", "AllocationMode", "Driver", "ReservedFor"}, []string{"Deallocating"},
			[]interface{}{"gpu.example.com", "WaitForFirstConsumer", "gpu.example.com", "pod-0", nil}},
		// Driver: the first allocated device's, so that an allocated claim
		// shows one in v1alpha3 too.
		{"v1alpha3", []string{"DeviceClassName", "Driver", "ReservedFor"}, []string{"Controller", "Deallocating"},
			[]interface{}{"gpu.example.com", "gpu.example.com", "gpu.example.com", "pod-0", nil}},
	} {
		t.Run(c.version+"/claims", func(t *testing.T) {
			check(t, table(t, c.version, claimsResource), c.columns, c.wide, c.cells)
		})
	}
	for _, c := range []struct {
		version string
		columns []string
		cells   []interface{}
	}{
		{"v1alpha1", []string{"ResourceClassName", "AllocationMode"}, []interface{}{"gpu.example.com", "WaitForFirstConsumer"}},
		{"v1alpha2", []string{"ResourceClassName", "AllocationMode"}, []interface{}{"gpu.example.com", "WaitForFirstConsumer"}},
		{"v1alpha3", []string{"DeviceClassName"}, []interface{}{"gpu.example.com"}},
	} {
		t.Run(c.version+"/templates", func(t *testing.T) {
			check(t, table(t, c.version, templatesResource), c.columns, nil, c.cells)
		})
	}
}
