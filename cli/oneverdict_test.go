package cli

import (
	"strings"
	"testing"
)

// TestConvertWarnsAsValidate: a file whose version the target keeps gets
// the same words from convert as from validate --to about what the
// release drops with its default feature gates.
func TestConvertWarnsAsValidate(t *testing.T) {
	const chart = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu-shared
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        capacity:
          requests:
            memory: 1Gi
`
	want := "<stdin>: document 1 (line 1): warning: DeviceClass gpu.example.com: spec.extendedResourceName: Kubernetes 1.34 drops it on a create: its DRAExtendedResource feature gate is off by default (on from 1.36)\n" +
		"<stdin>: document 2 (line 8): warning: ResourceClaim ml/gpu-shared: spec.devices.requests[0].exactly.capacity: Kubernetes 1.34 drops it on a create: its DRAConsumableCapacity feature gate is off by default (on from 1.36)\n"
	for _, cmd := range []string{"convert", "validate"} {
		code, _, stderr := run(t, chart, cmd, "-q", "--to", "1.34", "-f", "-")
		if code != ExitOK || stderr != want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant:\n%s", cmd, code, stderr, want)
		}
	}
	// 1.36 enables both gates: nothing to say.
	for _, cmd := range []string{"convert", "validate"} {
		if code, _, stderr := run(t, chart, cmd, "-q", "--to", "1.36", "-f", "-"); code != ExitOK || strings.Contains(stderr, "drops") {
			t.Errorf("%s --to 1.36: exit %d, stderr:\n%s", cmd, code, stderr)
		}
	}
}
