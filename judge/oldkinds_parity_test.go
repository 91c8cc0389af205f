package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// TestOldKindsParityCorpus: the corpora test/envtest/ga records against
// kube-apiserver 1.26 and 1.30 agree with CheckKind at that release: it
// refuses exactly the files named invalid-*, each for one error, and
// creates the valid-* files without a warning.
func TestOldKindsParityCorpus(t *testing.T) {
	for dir, release := range map[string]int{"parity-kinds-1.26": 26, "parity-kinds-1.30": 30} {
		files, err := filepath.Glob(filepath.Join("..", "test", "envtest", "ga", "testdata", dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no corpus in %s: %v", dir, err)
		}
		for _, file := range files {
			name := filepath.Base(file)
			t.Run(dir+"/"+name, func(t *testing.T) {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				var obj map[string]interface{}
				if err := yaml.Unmarshal(data, &obj); err != nil {
					t.Fatal(err)
				}
				version, kind := KindOf(obj)
				if version != api.CreatedIn(kind, release) {
					t.Fatalf("%s %s: not a kind that 1.%d serves", version, kind, release)
				}
				errs, warnings := CheckKind(obj, withBetas(release), kind)
				switch invalid := strings.HasPrefix(name, "invalid-"); {
				case !invalid && !strings.HasPrefix(name, "valid-"):
					t.Errorf("name it valid-* or invalid-*")
				case invalid && len(errs) != 1:
					t.Errorf("1.%d finds %d errors, want one (a file breaks one rule):\n%s", release, len(errs), strings.Join(errs, "\n"))
				case !invalid && len(errs) > 0:
					t.Errorf("1.%d refuses it:\n%s", release, strings.Join(errs, "\n"))
				}
				if len(warnings) > 0 {
					t.Errorf("warnings: %q", warnings)
				}
			})
		}
	}
}
