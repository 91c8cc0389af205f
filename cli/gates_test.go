package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The objects whose verdicts change with a cluster's gates and served
// versions (issue: a verdict is only as right as its picture of the
// cluster).
const (
	betaClass = `apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
`
	splitSlice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
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
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 40Gi}
`
	distinctClaim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-nics, namespace: net}
spec:
  devices:
    requests:
    - name: nic
      exactly: {deviceClassName: nic.example.com, allocationMode: ExactCount, count: 2}
    constraints:
    - requests: [nic]
      distinctAttribute: nic.example.com/pciRoot
`
	multiClass = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: shared-gpu}
spec:
  selectors:
  - cel: {expression: device.allowMultipleAllocations == true}
`
	gatesAt = "<stdin>: document 1 (line 1): "
)

// TestValidateByGates: validate --to R judges by R's apiserver as its flags
// start it: its defaults, or --feature-gates and --runtime-config in
// kube-apiserver's words.
func TestValidateByGates(t *testing.T) {
	tests := map[string]struct {
		stdin       string
		args        []string
		code        int
		out, errOut string
	}{
		"beta-class-1.37-default": {stdin: betaClass, args: []string{"--to", "1.37"}, code: ExitInvalid,
			out: gatesAt + "DeviceClass gpu.example.com: apiVersion: Kubernetes 1.37 serves resource.k8s.io/v1beta1 DeviceClass only with --runtime-config=resource.k8s.io/v1beta1=true, and by default resource.k8s.io/v1: its apiserver rejects this object\n",
		},
		"beta-class-1.37-runtime-config": {stdin: betaClass, args: []string{"--to", "1.37", "--runtime-config", "resource.k8s.io/v1beta1=true"},
			errOut: gatesAt + "warning: DeviceClass gpu.example.com: resource.k8s.io/v1beta1 DeviceClass is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1\n"},
		"beta-class-1.37-api-all": {stdin: betaClass, args: []string{"--to", "1.37", "--runtime-config", "api/all=true", "-q"},
			errOut: gatesAt + "warning: DeviceClass gpu.example.com: resource.k8s.io/v1beta1 DeviceClass is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1\n"},
		"beta-class-1.33": {stdin: betaClass, args: []string{"--to", "1.33", "-q"}},
		"split-slice-1.35-default": {stdin: splitSlice, args: []string{"--to", "1.35"},
			errOut: gatesAt + "warning: ResourceSlice node-1-gpu: spec.sharedCounters: Kubernetes 1.35 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)\n" +
				gatesAt + "warning: ResourceSlice node-1-gpu: spec.devices[0].consumesCounters: Kubernetes 1.35 drops it on a create: its DRAPartitionableDevices feature gate is off by default (on from 1.36)\n"},
		"split-slice-1.35-gate-on": {stdin: splitSlice, args: []string{"--to", "1.35", "--feature-gates", "DRAPartitionableDevices=true"}, code: ExitInvalid,
			out: gatesAt + "ResourceSlice node-1-gpu: spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed\n",
		},
		"split-slice-1.37-gate-off": {stdin: splitSlice, args: []string{"--to", "1.37", "--feature-gates", "DRAPartitionableDevices=false"},
			errOut: gatesAt + "warning: ResourceSlice node-1-gpu: spec.sharedCounters: Kubernetes 1.37 drops it on a create: its DRAPartitionableDevices feature gate is off\n" +
				gatesAt + "warning: ResourceSlice node-1-gpu: spec.devices[0].consumesCounters: Kubernetes 1.37 drops it on a create: its DRAPartitionableDevices feature gate is off\n"},
		"distinct-1.35-gate-on":      {stdin: distinctClaim, args: []string{"--to", "1.35", "--feature-gates", "DRAConsumableCapacity=true", "-q"}},
		"multi-class-1.35-all-alpha": {stdin: multiClass, args: []string{"--to", "1.35", "--feature-gates", "AllAlpha=true", "-q"}},
		"unknown-gate":               {stdin: betaClass, args: []string{"--to", "1.33", "--feature-gates", "DRAConsumableCapacity=true"}, code: ExitBadInput},
		"locked-gate": {stdin: betaClass, args: []string{"--to", "1.37", "--feature-gates", "DynamicResourceAllocation=false"}, code: ExitBadInput,
			errOut: "Error: --feature-gates: cannot set feature gate DynamicResourceAllocation to false, feature is locked to true\n"},
		"gates-need-a-release": {stdin: betaClass, args: []string{"--feature-gates", "DRADeviceTaints=true"}, code: ExitBadInput,
			errOut: "Error: --feature-gates, --runtime-config and --cluster-config need --to: gates are a release's\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runValidate(t, tc.stdin, append(tc.args, "-f", "-")...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if diff := cmp.Diff(tc.out, out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if tc.code == ExitBadInput && tc.errOut == "" {
				return // the message is TestFeatureGates'
			}
			if diff := cmp.Diff(tc.errOut, errOut); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClusterConfig: a kind Cluster or a kubeadm ClusterConfiguration
// gives the verdicts of the flags it holds, and its release names the
// target when --to does not.
func TestClusterConfig(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"kind.yaml": `kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
featureGates:
  DRAPartitionableDevices: true
  DRAConsumableCapacity: true
runtimeConfig:
  api/beta: "true"
nodes:
- role: control-plane
  image: kindest/node:v1.35.0@sha256:0123
`,
		"kind-patch.yaml": `kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
featureGates: {DRADeviceTaints: true}
kubeadmConfigPatches:
- |
  kind: ClusterConfiguration
  apiServer:
    extraArgs:
      feature-gates: DRAPartitionableDevices=true,DRAConsumableCapacity=true
      runtime-config: api/beta=true
`,
		"kubeadm-v1beta3.yaml": `apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
kubernetesVersion: v1.35.2
apiServer:
  extraArgs:
    feature-gates: DRAPartitionableDevices=true,DRAConsumableCapacity=true
    runtime-config: api/beta=true
`,
		"kubeadm-v1beta4.yaml": `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.35.2
apiServer:
  extraArgs:
  - {name: feature-gates, value: "DRAPartitionableDevices=true,DRAConsumableCapacity=true"}
  - {name: runtime-config, value: api/beta=true}
`,
	}
	input := strings.Join([]string{betaClass, splitSlice, distinctClaim, multiClass}, "---\n")
	_, wantOut, wantErr := runValidate(t, input, "--to", "1.35", "--feature-gates", "DRAPartitionableDevices=true,DRAConsumableCapacity=true", "--runtime-config", "api/beta=true", "-f", "-")
	if !strings.Contains(wantOut, "only one of `sharedCounters` or `devices` is allowed") || strings.Contains(wantOut, "DeviceClass gpu.example.com") {
		t.Fatalf("the flags' verdicts are not the gates':\n%s%s", wantOut, wantErr)
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--cluster-config", path, "-f", "-"}
			if name == "kind-patch.yaml" {
				args = append(args, "--to", "1.35") // no node image: the release is named
			}
			_, out, errOut := runValidate(t, input, args...)
			if diff := cmp.Diff(wantOut+wantErr, out+errOut); diff != "" {
				t.Errorf("verdicts (-flags +%s):\n%s", name, diff)
			}
		})
	}
	path := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: Pod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runValidate(t, input, "--cluster-config", path, "--to", "1.35", "-f", "-"); code != ExitBadInput ||
		errOut != "Error: "+path+": neither a kind Cluster nor a kubeadm ClusterConfiguration\n" {
		t.Errorf("exit %d, %s", code, errOut)
	}
}

// TestPodLevelResources: a Pod's spec.resources, which 1.32 and 1.33 drop
// while PodLevelResources is off, is named; with the gate on it is not.
func TestPodLevelResources(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  resources:
    limits: {cpu: "4"}
  containers:
  - {name: main, image: trainer:1}
`
	_, _, stderr := run(t, pod, "convert", "--to", "1.32", "-f", "-")
	want := "spec.resources: Kubernetes 1.32 drops it on a create: its PodLevelResources feature gate is off by default (on from 1.34)"
	if !strings.Contains(stderr, want) {
		t.Errorf("convert --to 1.32: no %q in:\n%s", want, stderr)
	}
	if _, _, stderr := run(t, pod, "convert", "--to", "1.32", "--feature-gates", "PodLevelResources=true", "-f", "-"); strings.Contains(stderr, "PodLevelResources") {
		t.Errorf("convert --to 1.32 with the gate on:\n%s", stderr)
	}
}

// TestNextReleaseGates: the release after the newest is told its own
// flags, and refuses what its beta's kube-apiserver refuses to start with.
func TestNextReleaseGates(t *testing.T) {
	for args, want := range map[string]string{
		"--feature-gates DynamicResourceAllocation=true": "Error: --feature-gates: unrecognized feature gate: DynamicResourceAllocation (Kubernetes 1.38 has",
		"--feature-gates DRADeviceTaints=false":          "Error: --feature-gates: cannot set feature gate DRADeviceTaints to false, feature is locked to true\n",
	} {
		code, _, stderr := runValidate(t, betaClass, append([]string{"--to", "1.38", "-f", "-"}, strings.Fields(args)...)...)
		if code != ExitBadInput || !strings.HasPrefix(stderr, want) {
			t.Errorf("validate --to 1.38 %s: exit %d, %q; want exit 2, %q", args, code, stderr, want)
		}
	}
}
