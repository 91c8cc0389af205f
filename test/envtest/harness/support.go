package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/support"
)

// SupportCharts are the charts of support's fixtures (support/testdata/charts).
var SupportCharts = []string{"v1beta1", "capabilities"}

// SupportOnServer holds what `claimbridge support --chart` says of fixture
// chart on release c.Minor with setting against the server of d, whose
// kube-apiserver runs with c's flags: the cell's verdict, and the
// server's refusals of the chart's objects rendered for c (SupportRefusals).
func SupportOnServer(ctx context.Context, d dynamic.Interface, chart string, c api.Cluster, setting string) (verdict string, refused []string, err error) {
	if verdict, err = SupportVerdict(chart, c.Minor, setting); err != nil {
		return "", nil, err
	}
	refused, err = SupportRefusals(ctx, d, chart, c)
	return verdict, refused, err
}

// SupportVerdict is the verdict of `claimbridge support --chart` on
// fixture chart in release minor's cell of setting (or at defaults, when
// the release has no cell of setting).
func SupportVerdict(chart string, minor int, setting string) (verdict string, err error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	var out, errOut bytes.Buffer
	path := filepath.Join(root, "support", "testdata", "charts", chart)
	if code := cli.Main([]string{"support", "--chart", path, "--releases", fmt.Sprintf("1.%d", minor), "--report", "json"}, nil, &out, &errOut); code == cli.ExitBadInput {
		return "", fmt.Errorf("support --chart %s: exit %d: %s", chart, code, errOut.String())
	}
	var m support.Matrix
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		return "", err
	}
	for _, cell := range m.Cells {
		if cell.Setting == setting || verdict == "" && cell.Setting == support.Defaults {
			verdict = cell.Verdict
		}
	}
	return verdict, nil
}

// SupportRefusals renders fixture chart as support renders it for c,
// creates each resource.k8s.io object on the server of d with a
// server-side dry run, and returns what the server refused.
func SupportRefusals(ctx context.Context, d dynamic.Interface, chart string, c api.Cluster) (refused []string, err error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	ch, err := support.LoadChart(filepath.Join(root, "support", "testdata", "charts", chart), nil, nil)
	if err != nil {
		return nil, err
	}
	docs, err := ch.Render(c)
	if err != nil {
		return nil, err
	}
	refused = []string{}
	for _, doc := range docs {
		u := &unstructured.Unstructured{Object: doc.Object}
		gvk := u.GroupVersionKind()
		if gvk.Group != api.UpstreamGroup {
			continue
		}
		u.SetName("support-" + u.GetName()) // apart from what the suite stores
		r := d.Resource(gvk.GroupVersion().WithResource(api.Resource(gvk.Kind)))
		if _, err := r.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			refused = append(refused, fmt.Sprintf("%s: %v", api.Describe(doc.Object), err))
		}
	}
	return refused, nil
}
