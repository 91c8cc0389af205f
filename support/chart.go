package support

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	v2util "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// A Chart is a driver's Helm chart with the values it is installed with.
type Chart struct {
	chart  *chartv2.Chart
	values map[string]any
	// Release and Namespace are what it is installed as: by default the
	// chart's name for both, as drivers' charts document their install
	// (helm install NAME -n NAME), and some refuse the namespace default.
	Release, Namespace string
}

// LoadChart loads the chart at path (a directory or a packaged .tgz) with
// the values of valueFiles and sets, merged as helm install merges -f and
// --set (helm's values.Options.MergeValues, without its remote files).
func LoadChart(path string, valueFiles, sets []string) (*Chart, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, err
	}
	vals := map[string]any{}
	for _, name := range valueFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		file, err := loader.LoadValues(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", name, err)
		}
		vals = loader.MergeMaps(vals, file)
	}
	for _, set := range sets {
		if err := strvals.ParseInto(set, vals); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	return &Chart{chart: ch, values: vals, Release: ch.Name(), Namespace: ch.Name()}, nil
}

// KubeVersion is the chart's kubeVersion constraint; "" for none.
func (ch *Chart) KubeVersion() string { return ch.chart.Metadata.KubeVersion }

// Admits reports whether the chart's kubeVersion admits release minor, as
// helm install checks it against the cluster's version (1.N.0).
func (ch *Chart) Admits(minor int) bool {
	return ch.KubeVersion() == "" || v2util.IsCompatibleRange(ch.KubeVersion(), kubeVersion(minor))
}

// kubeVersion is the version of release minor as a cluster reports it.
func kubeVersion(minor int) string { return fmt.Sprintf("v1.%d.0", minor) }

// Render renders the chart as helm install does on cluster c: with c's
// release as .Capabilities.KubeVersion and what c serves as
// .Capabilities.APIVersions. It returns the documents of its templates in
// the order of their names.
func (ch *Chart) Render(c api.Cluster) ([]manifest.Document, error) {
	kv, err := chartcommon.ParseKubeVersion(kubeVersion(c.Minor))
	if err != nil {
		return nil, err
	}
	caps := &chartcommon.Capabilities{KubeVersion: *kv, APIVersions: apiVersions(c), HelmVersion: chartcommon.DefaultCapabilities.HelmVersion}
	release := chartcommon.ReleaseOptions{Name: ch.Release, Namespace: ch.Namespace, Revision: 1, IsInstall: true}
	vals, err := chartutil.ToRenderValues(ch.chart, ch.values, release, caps)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch.chart, vals)
	if err != nil {
		return nil, err
	}
	var docs []manifest.Document
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if base := path.Base(name); strings.HasPrefix(base, "_") || base == "NOTES.txt" || strings.TrimSpace(files[name]) == "" {
			continue
		}
		parsed, err := manifest.Parse(name, []byte(files[name]))
		if err != nil {
			return nil, err
		}
		docs = append(docs, parsed...)
	}
	return docs, nil
}

// apiVersions are what cluster c serves as helm's discovery lists it: the
// groups client-go knows but resource.k8s.io, then each resource.k8s.io
// version c serves and each of its kinds ("resource.k8s.io/v1",
// "resource.k8s.io/v1/DeviceClass").
func apiVersions(c api.Cluster) chartcommon.VersionSet {
	out := slices.DeleteFunc(slices.Clone(chartcommon.DefaultVersionSet), func(gv string) bool {
		return strings.HasPrefix(gv, api.UpstreamGroup+"/")
	})
	for _, version := range api.ConversionVersions {
		gv := api.UpstreamGroup + "/" + version
		for _, kind := range kinds {
			if served(c, version, kind) {
				if !slices.Contains(out, gv) {
					out = append(out, gv)
				}
				out = append(out, gv+"/"+kind)
			}
		}
	}
	return out
}

// admitsNone warns of each rule of doc, an admission webhook configuration
// or policy, that names resource.k8s.io only in versions c does not serve:
// on c it admits none of those objects.
func admitsNone(o installed, c api.Cluster) []string {
	doc := o.doc
	var rules []interface{}
	switch doc.Object["kind"] {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		webhooks, _, _ := unstructured.NestedSlice(doc.Object, "webhooks")
		for _, w := range webhooks {
			w, _ := w.(map[string]interface{})
			more, _, _ := unstructured.NestedSlice(w, "rules")
			rules = append(rules, more...)
		}
	case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
		rules, _, _ = unstructured.NestedSlice(doc.Object, "spec", "matchConstraints", "resourceRules")
	}
	var out []string
	for _, r := range rules {
		rule, _ := r.(map[string]interface{})
		groups, _, _ := unstructured.NestedStringSlice(rule, "apiGroups")
		versions, _, _ := unstructured.NestedStringSlice(rule, "apiVersions")
		servesOne := func(v string) bool {
			return v == "*" || slices.ContainsFunc(kinds, func(kind string) bool { return served(c, v, kind) })
		}
		if !slices.Contains(groups, api.UpstreamGroup) || slices.ContainsFunc(versions, servesOne) {
			continue
		}
		out = appendNew(out, fmt.Sprintf("%s: its rules name %s %s, which Kubernetes 1.%d does not serve with this setting: they match none of its objects",
			o.who, api.UpstreamGroup, strings.Join(versions, ", "), c.Minor))
	}
	return out
}
