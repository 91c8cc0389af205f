package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFn: claimbridge fn converts the DRA objects of a ResourceList as
// convert does, leaves the others as they are (comments too), and reports
// as KRM results: warnings with the object and field, refusals as errors
// (exit 1), a config without data.to as unusable input (exit 2).
func TestFn(t *testing.T) {
	const config = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: claimbridge}\n  data: {to: v1alpha2}\n"
	const settings = "# The settings.\n- apiVersion: v1\n  kind: ConfigMap # kind first\n  metadata: {name: settings}\n  data:\n    mode: 'shared'\n"
	const claim = "# The claim.\n- apiVersion: resource.k8s.io/v1\n  kind: ResourceClaim\n  metadata: {name: gpu, namespace: ml}\n" +
		"  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}]}}\n"
	for _, c := range []struct {
		name, in       string
		code           int
		stdout, stderr string
	}{{
		name: "converted-and-passed-through",
		in:   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + settings + claim + config,
		stdout: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + settings +
			"# The claim.\n- apiVersion: resource.k8s.io/v1alpha2\n  kind: ResourceClaim\n  metadata:\n    annotations:\n" +
			"      claimbridge.dev/restore-v1alpha3: '{\"spec\":{\"base\":\"f7db5b3a5438dc25\",\"patch\":[{\"op\":\"replace\",\"path\":\"/spec/devices/requests/0/count\",\"value\":2}," +
			"{\"op\":\"replace\",\"path\":\"/spec/devices/requests/0/name\",\"value\":\"gpu\"},{\"op\":\"remove\",\"path\":\"/spec/devices/requests/0/allocationMode\"}]}}'\n" +
			"    name: gpu\n    namespace: ml\n  spec:\n    allocationMode: WaitForFirstConsumer\n    resourceClassName: gpu.example.com\n" + config +
			"results:\n- message: 1.27–1.30 allocates one device of the class, not 2\n" +
			"  severity: warning\n  resourceRef:\n    apiVersion: resource.k8s.io/v1\n    kind: ResourceClaim\n    name: gpu\n    namespace: ml\n" +
			"  field:\n    path: spec.devices.requests[0].count\n",
		stderr: "[warning] resource.k8s.io/v1/ResourceClaim/ml/gpu spec.devices.requests[0].count: 1.27–1.30 allocates one device of the class, not 2\n",
	}, {
		name: "refused",
		in:   "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: resource.k8s.io/v1alpha4, kind: ResourceClaim, metadata: {name: a}}\n" + config,
		code: ExitInvalid,
		stdout: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: resource.k8s.io/v1alpha4, kind: ResourceClaim, metadata: {name: a}}\n" + config +
			"results:\n- message: 'not converted: apiVersion \"resource.k8s.io/v1alpha4\": unsupported version \"v1alpha4\" (supported: v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)'\n" +
			"  severity: error\n  resourceRef:\n    apiVersion: resource.k8s.io/v1alpha4\n    kind: ResourceClaim\n    name: a\n",
		stderr: "[error] resource.k8s.io/v1alpha4/ResourceClaim/a: not converted: apiVersion \"resource.k8s.io/v1alpha4\": unsupported version \"v1alpha4\" (supported: v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)\n" +
			"Error: the ResourceList was not converted\n",
	}, {
		name:   "no-target",
		in:     "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
		code:   ExitBadInput,
		stdout: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
		stderr: "Error: the function config must be a ConfigMap with data.to, a release (1.26 … 1.38) or a version (v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1); got \"\"\n",
	}} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := run(t, c.in, "fn")
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if d := cmp.Diff(c.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}
