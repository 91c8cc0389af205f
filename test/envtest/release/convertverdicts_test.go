package release

import (
	"path/filepath"
	"testing"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// convertInputs are the manifests TestConvertVerdicts converts: the
// drivers' shapes, the examples, the real exports, workloads of
// every kind, the conversion fixtures, and the v1 objects, valid and
// invalid, of the GA parity corpus.
var convertInputs = []string{
	"../../manifests/drivers/*.yaml",
	"../../../examples/*.yaml",
	"../../../examples/migrate/*.yaml",
	"../../manifests/exports/*/claims.yaml",
	"../../manifests/workloads/*.yaml",
	"../../../conversion/testdata/*.yaml",
	"../ga/testdata/parity/*.yaml",
}

// TestConvertVerdicts sends every object `claimbridge convert --to <version>`
// writes to the kube-apiserver of the release that serves the version, as a
// strict server-side dry run: each one it rejects must be named by a warning.
func TestConvertVerdicts(t *testing.T) {
	var files []string
	for _, glob := range convertInputs {
		m, err := filepath.Glob(glob)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %d files (%v)", glob, len(m), err)
		}
		files = append(files, m...)
	}
	for _, r := range releases {
		t.Run(r.name, func(t *testing.T) {
			c := clusters[r.name]
			sent, rejected := harness.ConvertVerdicts(t, c.dynamic, c.discovery, c.createNamespace(t, "convert"), r.version, files)
			t.Logf("Kubernetes %s: %d objects sent, %d rejected, each named by a warning", r.name, sent, rejected)
			if sent < 100 {
				t.Errorf("only %d objects sent", sent)
			}
		})
	}
}
