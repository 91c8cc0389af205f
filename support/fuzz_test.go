package support

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/fuzztest"
)

// TestMain bounds how long the fuzzing engine minimises a new input (see
// package fuzztest): a run of the fuzz targets here writes files and, for
// a chart, renders it with Helm.
func TestMain(m *testing.M) { os.Exit(fuzztest.Main(m)) }

// writeFiles writes each name's text under dir.
func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, text := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, text, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

const fuzzGoMod = `module example.com/gpu-driver

go 1.26

require (
	k8s.io/api v0.36.0
	k8s.io/client-go v0.37.0-20260701120000-0123456789ab
	k8s.io/dynamic-resource-allocation v0.37.1
)

replace k8s.io/api => k8s.io/api v0.37.2
`

const fuzzGoFile = `package main

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"
)

func unprepare(ctx context.Context, cs kubernetes.Interface, ns, name string) {
	if err := cs.ResourceV1beta1().ResourceClaims(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		klog.ErrorS(err, "deleting", "claim", name)
	}
}

func main() {
	_, _ = kubeletplugin.Start(context.Background(), nil)
}
`

// FuzzModule writes a go.mod and a Go file into a directory and reads it
// as a driver's repository: whatever the two hold, ReadBinaries returns
// the binaries or an error, never panics, and each typed call it finds is
// one of the Go file's, named by version and kind.
func FuzzModule(f *testing.F) {
	f.Add([]byte(fuzzGoMod), []byte(fuzzGoFile))
	f.Add([]byte("module example.com/plugin\n\ngo 1.24\n\nrequire k8s.io/dynamic-resource-allocation v0.0.0-20250312093015-0123456789ab\n\nreplace k8s.io/dynamic-resource-allocation => ../dra\n"),
		[]byte("package plugin\n\nfunc start(f informers.SharedInformerFactory) {\n\tf.Resource().V1().ResourceSlices().Informer()\n\tgo cs.ResourceV1beta2().DeviceClasses().List(nil, nil)\n}\n"))
	f.Add([]byte("module example.com/x\n\nrequire k8s.io/api v0.33\n"), []byte("//go:build windows\n\npackage main\n"))
	f.Add([]byte("module\n"), []byte(brokenGo))
	f.Add([]byte("module example.com/flags\n"), []byte("package main\n\nfunc main() {\n\tflag.BoolVar(&o.on, \"on\", false, \"\")\n\t_ = &cli.BoolFlag{Name: \"m\", Destination: &m}\n"+
		"\tif o.on {\n\t\tgo watch()\n\t}\n}\n\nfunc watch() {\n\tif m {\n\t\tcs.ResourceV1beta1().ResourceClaims(\"\").List(nil, nil)\n\t}\n\tcs.ResourceV1().ResourceSlices().List(nil, nil)\n}\n"))
	f.Fuzz(func(t *testing.T, goMod, goFile []byte) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string][]byte{"go.mod": goMod, "main.go": goFile})
		bins, _, err := ReadBinaries(dir)
		if err != nil {
			return
		}
		for _, b := range bins {
			for _, c := range b.Calls {
				if c.Version == "" || c.Kind == "" || c.Expr == "" || !strings.HasPrefix(c.Position, "main.go:") {
					t.Fatalf("binary %q: call %+v", b.Path, c)
				}
			}
		}
	})
}

const (
	fuzzChartYAML = "apiVersion: v2\nname: gpu-driver\nversion: 0.2.0\nkubeVersion: \">= 1.31.0-0\"\n"
	fuzzValues    = "driver: gpu.example.com\nimage:\n  tag: v0.4.0\nnodeSelector: {}\n"
	fuzzTemplate  = `{{- if .Capabilities.APIVersions.Has "resource.k8s.io/v1" }}
apiVersion: resource.k8s.io/v1
{{- else }}
apiVersion: resource.k8s.io/v1beta1
{{- end }}
kind: DeviceClass
metadata:
  name: {{ .Values.driver }}
  namespace: {{ .Release.Namespace }}
spec:
  selectors:
  - cel:
      expression: device.driver == "{{ .Values.driver }}"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "gpu.name" . }}
data:
  tag: {{ .Values.image.tag | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
{{- define "gpu.name" }}{{ .Chart.Name }}-{{ .Release.Name }}{{ end }}
`
)

// FuzzChart writes a chart's Chart.yaml, values.yaml and one template into
// a directory, loads it and renders it on a release's cluster: whatever
// they hold, LoadChart and Render return an error or documents, never
// panic nor hang (TestChartIncludeLoop: a template that includes itself
// stops at Helm's limit of nested includes).
func FuzzChart(f *testing.F) {
	newest := uint8(len(api.Releases) - 1)
	f.Add([]byte(fuzzChartYAML), []byte(fuzzValues), []byte(fuzzTemplate), newest)
	f.Add([]byte(fuzzChartYAML), []byte(fuzzValues), []byte(fuzzTemplate), uint8(6)) // 1.32, v1beta1
	f.Add([]byte("apiVersion: v2\nname: required\nversion: 1.0.0\n"), []byte("a: &a [1, 2]\nb: *a\n"),
		[]byte("kind: {{ required \"kind is required\" .Values.kind }}\n{{ fail \"no\" }}\n"), uint8(0))
	f.Add([]byte("apiVersion: v1\nname: old\nversion: x\n"), []byte("- not a map\n"), []byte("{{ .Values.x.y.z }"), uint8(3))
	f.Fuzz(func(t *testing.T, chartYAML, values, template []byte, release uint8) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string][]byte{"Chart.yaml": chartYAML, "values.yaml": values, "templates/fuzz.yaml": template})
		ch, err := LoadChart(dir, nil, nil)
		if err != nil {
			return
		}
		_, _ = ch.Render(api.Defaults(api.Releases[int(release)%len(api.Releases)].Minor))
	})
}

// TestFuzzSeeds: the realistic seeds reach what the targets are for: the
// Go file's typed call is found, and the chart renders on the newest
// release and on 1.32, each with the DeviceClass version it serves.
func TestFuzzSeeds(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"go.mod": []byte(fuzzGoMod), "main.go": []byte(fuzzGoFile)})
	bins, _, err := ReadBinaries(dir)
	if err != nil || len(bins) != 1 || bins[0].Library != 37 || len(bins[0].Calls) != 1 ||
		bins[0].Calls[0].Version != "v1beta1" || bins[0].Calls[0].Kind != "ResourceClaim" {
		t.Errorf("module seed: %+v, %v", bins, err)
	}
	dir = t.TempDir()
	writeFiles(t, dir, map[string][]byte{"Chart.yaml": []byte(fuzzChartYAML), "values.yaml": []byte(fuzzValues), "templates/fuzz.yaml": []byte(fuzzTemplate)})
	ch, err := LoadChart(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for minor, want := range map[int]string{api.Newest().Minor: "resource.k8s.io/v1", 32: "resource.k8s.io/v1beta1"} {
		docs, err := ch.Render(api.Defaults(minor))
		if err != nil || len(docs) != 2 || docs[0].Object["apiVersion"] != want || docs[1].Object["kind"] != "ConfigMap" {
			t.Errorf("chart seed on 1.%d: %d documents, %v", minor, len(docs), err)
		}
	}
}

// TestChartIncludeLoop: a template that includes itself is an error, at
// Helm's limit of nested includes, not a hang.
func TestChartIncludeLoop(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"Chart.yaml":          []byte("apiVersion: v2\nname: loop\nversion: 1.0.0\n"),
		"templates/loop.yaml": []byte(`{{- define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}`),
	})
	ch, err := LoadChart(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Render(api.Defaults(api.Newest().Minor)); err == nil || !strings.Contains(err.Error(), "nested reference name") {
		t.Errorf("got %v, want Helm's error of nested includes", err)
	}
}
