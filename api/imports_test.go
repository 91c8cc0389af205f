package api_test

import (
	"os/exec"
	"strings"
	"testing"

	// Imported so that go test's cache key covers them: the test reads
	// their imports through a child process, which the cache does not see.
	_ "github.com/claimbridge/claimbridge/api/v1alpha1"
	_ "github.com/claimbridge/claimbridge/api/v1alpha2"
	_ "github.com/claimbridge/claimbridge/api/v1alpha3"
)

// TestTypesImportOnlyAPIMachinery: a driver author imports the types of
// api/v1alpha1, v1alpha2 and v1alpha3 to read and write claims, so they
// depend on what Kubernetes' own API packages depend on (apimachinery, the
// standard library) and not on a client or server framework: the scheme
// builders were controller-runtime's, which put controller-runtime, and its
// version, into every importer's build (found by staticcheck's deprecation
// of scheme.Builder for API packages).
func TestTypesImportOnlyAPIMachinery(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, forbidden := range []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "k8s.io/apiserver", "k8s.io/apiextensions-apiserver", "github.com/prometheus"} {
			if pkg == forbidden || strings.HasPrefix(pkg, forbidden+"/") {
				t.Errorf("the api packages import %s", pkg)
			}
		}
	}
}
