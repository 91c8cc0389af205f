//go:build envtest

package ga

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// derivedHeader starts a corpus file of 1.32 or 1.33 that TestParityCorpus
// derives from the v1 corpus; files without it are written by hand.
const derivedHeader = "# Derived from testdata/parity/%s.yaml by TestParityCorpus (UPDATE_GOLDEN=1 regenerates it).\n"

// TestParityCorpus: the v1beta1 and v1beta2 corpora (testdata/parity-1.32,
// parity-1.33) hold every object of the v1 corpus (testdata/parity) as
// claimbridge converts it (conversion.Convert, as `claimbridge convert
// --to` does), with no restore annotation: the apiserver under test must
// see the object as a user of that version writes it. Refresh with:
//
//	UPDATE_GOLDEN=1 go test ./test/envtest/ga/ -run TestParityCorpus
func TestParityCorpus(t *testing.T) {
	update := os.Getenv("UPDATE_GOLDEN") != ""
	sources, err := filepath.Glob(filepath.Join("testdata", "parity", "*.yaml"))
	if err != nil || len(sources) == 0 {
		t.Fatalf("no corpus in testdata/parity: %v", err)
	}
	for _, r := range []parityRelease{parity132, parity133} {
		t.Run(r.name, func(t *testing.T) {
			want := map[string]bool{}
			for _, source := range sources {
				name := strings.TrimSuffix(filepath.Base(source), ".yaml")
				want[name] = true
				derived, err := derive(source, name, r.version)
				if err != nil {
					t.Fatalf("%s: %v", source, err)
				}
				file := filepath.Join("testdata", r.corpora[0].dir, name+".yaml")
				if update {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, derived, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				got, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./test/envtest/ga/ -run TestParityCorpus)", err)
				}
				if !bytes.Equal(got, derived) {
					t.Errorf("%s is not %s converted to %s (run UPDATE_GOLDEN=1 go test ./test/envtest/ga/ -run TestParityCorpus)", file, source, r.version)
				}
			}
			// A derived file whose source is gone.
			files, _ := filepath.Glob(filepath.Join("testdata", r.corpora[0].dir, "*.yaml"))
			for _, file := range files {
				name := strings.TrimSuffix(filepath.Base(file), ".yaml")
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.HasPrefix(data, []byte("# Derived from")) && !want[name] {
					t.Errorf("%s has no source in testdata/parity: delete it", file)
				}
			}
			for name := range r.corpora[0].changed {
				if !want[name] {
					t.Errorf("changed names %s, which testdata/parity does not have", name)
				}
			}
		})
	}
}

// derive converts the v1 object in source to version, without the restore
// annotation conversion adds for what the version cannot hold.
func derive(source, name, version string) ([]byte, error) {
	data, err := os.ReadFile(source)
	if err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	out, err := conversion.Convert(obj, version)
	if err != nil {
		return nil, err
	}
	if meta, ok := out["metadata"].(map[string]interface{}); ok {
		if ann, ok := meta["annotations"].(map[string]interface{}); ok {
			for key := range ann {
				if strings.HasPrefix(key, api.RestoreAnnotationPrefix) {
					delete(ann, key)
				}
			}
			if len(ann) == 0 {
				delete(meta, "annotations")
			}
		}
	}
	body, err := yaml.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append([]byte(fmt.Sprintf(derivedHeader, name)), body...), nil
}
