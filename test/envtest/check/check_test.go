//go:build envtest

// Package check runs `claimbridge check` against a real kube-apiserver 1.37
// (envtest) with resource.k8s.io v1beta1 and v1beta2 enabled next to v1
// (--runtime-config) and feature gates other than its defaults (gates),
// holding a chart installed with the real Helm 4
// ($HELM) and upgraded once, the same chart installed with the real Helm 3
// ($HELM3) and its configmap storage driver, a claim applied with the real kubectl ($KUBECTL) and a claim
// created by a client. The chart and the applied claim are v1beta1, which
// 1.38 does not serve: check must find them in each source and name it.
//
// Run with `make test-envtest`, or:
//
//	go test -tags envtest ./test/envtest/check/   (with the variables of hack/envtest-assets.sh --env)
package check

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

var (
	env        *envtest.Environment
	config     *rest.Config
	kubeconfig string
	stopOnce   sync.Once
	stopErr    error
	done       = make(chan struct{})
)

func stop() error {
	stopOnce.Do(func() {
		close(done)
		stopErr = harness.StopControlPlane(env, filepath.Dir(kubeconfig))
	})
	return stopErr
}

func TestMain(m *testing.M) {
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	// The envtest environments of the upgrade tests log nothing worth reading.
	ctrllog.SetLogger(logr.Discard())
	if err := start(); err != nil {
		fmt.Fprintf(os.Stderr, "check suite: %v\n", err)
		_ = stop()
		os.Exit(1)
	}
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "check suite: stopping: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func start() error {
	assets, err := harness.AssetsDir()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "claimbridge-envtest-check-")
	if err != nil {
		return err
	}
	kubeconfig = filepath.Join(dir, "kubeconfig")
	timeout := 60 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	args := env.ControlPlane.GetAPIServer().Configure()
	args.Set("runtime-config", "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")
	args.Set("feature-gates", gates)
	harness.StopOnSignalOrDeadline("check suite", stop, done)
	if config, err = env.Start(); err != nil {
		return fmt.Errorf("starting envtest (KUBEBUILDER_ASSETS=%s; rebuild with `make envtest-assets`): %w", assets, err)
	}
	config.WarningHandler = rest.NoWarnings{}
	return harness.WriteKubeconfig(config, kubeconfig)
}

// gates are the suite's apiserver's feature gates: partitionable devices
// off (on by default in 1.37), list-type attributes on (off by default).
const gates = "DRAPartitionableDevices=false,DRAListTypeAttributes=true"

// The chart: a v1beta1 DeviceClass and ResourceClaimTemplate, and a
// ConfigMap, which check does not count.
var chart = map[string]string{
	"Chart.yaml": "apiVersion: v2\nname: gpu\nversion: 0.1.0\n",
	"templates/settings.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  revision: {{ .Values.revision | default "1" | quote }}
`,
	"templates/class.yaml": `apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: {{ .Release.Name }}.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
`,
	"templates/template.yaml": `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: {{ .Release.Name }}.example.com
`,
}

// applied is the claim kubectl applies: its last-applied configuration is
// v1beta1.
const applied = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: applied
  namespace: team-c
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu4.example.com
`

// tool runs the binary of the variable with args, HOME and Helm's
// directories in home, and fails t on an error.
func tool(t *testing.T, variable, home, stdin string, args ...string) {
	t.Helper()
	toolEnv(t, variable, home, stdin, nil, args...)
}

// toolEnv is tool with more environment variables.
func toolEnv(t *testing.T, variable, home, stdin string, more []string, args ...string) {
	t.Helper()
	bin := os.Getenv(variable)
	if bin == "" {
		t.Fatalf("%s is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)", variable)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	cmd.Env = append(cmd.Env, more...)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", variable, strings.Join(args, " "), err, out)
	}
}

func claimbridge(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(append([]string{"check", "--kubeconfig", kubeconfig}, args...), nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCheck: check finds the v1beta1 objects of each Helm release (its
// newest deployed revision), of kubectl's last-applied configuration, and
// judges the live objects (read in v1) valid; every source is named.
func TestCheck(t *testing.T) {
	ctx := t.Context()
	home, chartDir := t.TempDir(), t.TempDir()
	for name, text := range chart {
		path := filepath.Join(chartDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		obj := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": ns}}}
		if _, err := d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tool(t, "HELM", home, "", "install", "gpu4", chartDir, "-n", "team-a", "--kubeconfig", kubeconfig)
	tool(t, "HELM", home, "", "upgrade", "gpu4", chartDir, "-n", "team-a", "--set", "revision=2", "--kubeconfig", kubeconfig)
	// Helm 3 with its configmap driver: the release is a ConfigMap.
	toolEnv(t, "HELM3", home, "", []string{"HELM_DRIVER=configmap"}, "install", "gpu3", chartDir, "-n", "team-b", "--kubeconfig", kubeconfig)
	records, err := d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("team-b").List(ctx, metav1.ListOptions{LabelSelector: "owner=helm"})
	if err != nil || len(records.Items) != 1 {
		t.Fatalf("Helm 3's configmap driver: %v, %v; want one ConfigMap labelled owner=helm in team-b", records, err)
	}
	tool(t, "KUBECTL", home, applied, "apply", "-f", "-", "--kubeconfig", kubeconfig)
	live := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "live", "namespace": "team-c"},
		"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{map[string]interface{}{
			"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu3.example.com"},
		}}}},
	}}
	claims := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
	if _, err := d.Resource(claims).Namespace("team-c").Create(ctx, live, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A taint rule stays through an upgrade: check reads it too.
	rule := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": map[string]interface{}{"name": "gpu-0-maintenance"},
		"spec": map[string]interface{}{"deviceSelector": map[string]interface{}{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
			"taint": map[string]interface{}{"key": "example.com/maintenance", "effect": "NoSchedule"}},
	}}
	rules := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "devicetaintrules"}
	if _, err := d.Resource(rules).Create(ctx, rule, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Without --to: 1.38, the release after 1.37, which stops serving v1beta1.
	code, stdout, stderr := claimbridge(t)
	t.Logf("check:\n%s%s", stdout, stderr)
	const target = "target: Kubernetes 1.38 (v1.38.0-beta.0), the release after the cluster's 1.37, as its pre-release's sources tell\n"
	for _, re := range []string{
		`helm:team-a/gpu4@2 \(chart gpu-0\.1\.0\): document \d+ \(line \d+\): ResourceClaimTemplate team-a/gpu: apiVersion: Kubernetes 1\.38 no longer serves resource\.k8s\.io/v1beta1 ResourceClaimTemplate`,
		`helm:team-b/gpu3@1 \(chart gpu-0\.1\.0\): document \d+ \(line \d+\): ResourceClaimTemplate team-b/gpu: apiVersion: Kubernetes 1\.38 no longer serves resource\.k8s\.io/v1beta1 ResourceClaimTemplate`,
		`last-applied:ResourceClaim team-c/applied: document 1 \(line 1\): ResourceClaim team-c/applied: apiVersion: Kubernetes 1\.38 no longer serves resource\.k8s\.io/v1beta1 ResourceClaim`,
	} {
		if !regexp.MustCompile(`(?m)^` + re + `: its apiserver rejects this object$`).MatchString(stdout) {
			t.Errorf("check: no line %s in standard output:\n%s", re, stdout)
		}
	}
	// 1.38 locks the gate the suite's apiserver turns off: it would not start.
	if refused := "kube-apiserver 1.38: --feature-gates=DRAPartitionableDevices=false: cannot set feature gate DRAPartitionableDevices to false, " +
		"feature is locked to true; drop it: Kubernetes 1.38 has it GA and always on\n"; !strings.HasPrefix(stdout, refused) {
		t.Errorf("check: standard output does not start with %q:\n%s", refused, stdout)
	}
	// The live objects, stored in v1, are kept as they are; the superseded
	// revision is not read.
	if code != cli.ExitInvalid || !strings.HasPrefix(stderr, target) || strings.Contains(stdout, "live:") || strings.Contains(stdout, "gpu4@1") {
		t.Errorf("check: exit %d (want 1), no target line, a live object or the superseded revision rejected:\n%s\n%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`(?m)^claimbridge check: \d+ objects? read: \d+ valid, \d+ invalid, \d+ skipped, 0 warned; stored: 7 kept, 0 out of reach$`).MatchString(stderr) {
		t.Errorf("check: no summary in:\n%s", stderr)
	}

	// 1.37 serves v1beta1 beside v1 (with --runtime-config), deprecated.
	code, stdout, stderr = claimbridge(t, "--to", "1.37")
	deprecated := "warning: ResourceClaimTemplate team-a/gpu: resource.k8s.io/v1beta1 ResourceClaimTemplate is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1"
	if code != cli.ExitOK || !strings.Contains(stderr, deprecated) {
		t.Errorf("check --to 1.37: exit %d (want 0), no line %q:\n%s\n%s", code, deprecated, stdout, stderr)
	}

	// JUnit: a test case per object, named by its source.
	code, _, stderr = claimbridge(t, "--report", "junit", "-q")
	for _, source := range []string{"helm:team-a/gpu4@2 (chart gpu-0.1.0)", "helm:team-b/gpu3@1 (chart gpu-0.1.0)",
		"last-applied:ResourceClaim team-c/applied", "live:ResourceClaim team-c/applied", "live:ResourceClaim team-c/live",
		"live:ResourceClaimTemplate team-a/gpu", "live:ResourceClaimTemplate team-b/gpu", "live:DeviceTaintRule gpu-0-maintenance"} {
		if !strings.Contains(stderr, `classname="`+source+`"`) {
			t.Errorf("check --report junit: no test case of %s:\n%s", source, stderr)
		}
	}
	if code != cli.ExitInvalid {
		t.Errorf("check --report junit: exit %d, want 1", code)
	}

	// The runbook's export keeps the taint rule, for migrate to re-create.
	var out, errOut bytes.Buffer
	if code := cli.Main([]string{"export", "--kubeconfig", kubeconfig}, nil, &out, &errOut); code != cli.ExitOK ||
		!regexp.MustCompile(`(?m)^ *kind: DeviceTaintRule\n(.*\n)*? +name: gpu-0-maintenance$`).MatchString(out.String()) {
		t.Errorf("export: exit %d, no DeviceTaintRule gpu-0-maintenance:\n%s\n%s", code, out.String(), errOut.String())
	}
}

// partitioned is a slice that kubectl applies: with DRAPartitionableDevices
// off, the apiserver drops its counters and keeps its list-type attribute;
// with it on (1.37's default), it refuses a slice with both counters and
// devices.
const partitioned = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 40Gi}
  devices:
  - name: gpu-0
    attributes:
      models: {strings: [a100, h100]}
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 40Gi}
`

// TestCheckReadsGates: check judges by the feature gates the cluster runs
// with (its /metrics), and the flags override them: the slice kubectl
// applied is valid with two drops named by the gate the cluster has off,
// and invalid by 1.37's defaults.
func TestCheckReadsGates(t *testing.T) {
	tool(t, "KUBECTL", t.TempDir(), partitioned, "apply", "-f", "-", "--kubeconfig", kubeconfig)
	const at, applied = "last-applied:ResourceSlice node-1-gpu: document 1 (line 1): ", "ResourceSlice node-1-gpu: "
	code, stdout, stderr := claimbridge(t, "--to", "1.37")
	for _, want := range []string{
		"target: Kubernetes 1.37 with --feature-gates=DRAListTypeAttributes=true,DRAPartitionableDevices=false --runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true\n",
		at + "warning: " + applied + "spec.sharedCounters: Kubernetes 1.37 drops it on a create: its DRAPartitionableDevices feature gate is off\n",
		at + "warning: " + applied + "spec.devices[0].consumesCounters: Kubernetes 1.37 drops it on a create: its DRAPartitionableDevices feature gate is off\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("check --to 1.37: no %q in:\n%s", want, stderr)
		}
	}
	if code != cli.ExitOK || strings.Contains(stdout+stderr, "strings") {
		t.Errorf("check --to 1.37: exit %d (want 0), or list-type attributes named:\n%s\n%s", code, stdout, stderr)
	}

	code, stdout, stderr = claimbridge(t, "--to", "1.37", "--feature-gates", "DRAPartitionableDevices=true,DRAListTypeAttributes=false")
	invalid := at + applied + "spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed\n"
	dropped := at + "warning: " + applied + "spec.devices[0].attributes[models].strings: Kubernetes 1.37 drops it on a create: its DRAListTypeAttributes feature gate is off\n"
	if code != cli.ExitInvalid || !strings.Contains(stdout, invalid) || !strings.Contains(stderr, dropped) {
		t.Errorf("check --to 1.37 --feature-gates …: exit %d (want 1), no %q or no %q:\n%s\n%s", code, invalid, dropped, stdout, stderr)
	}
}
