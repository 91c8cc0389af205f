package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
)

// TestRealWorldManifests runs the manifests of test/manifests/realworld
// (DRA drivers' and the Kubernetes docs' manifests of 1.26–1.31, mixed
// kinds as published) through validate (all valid), convert to every
// version (claims and templates converted back give the original exactly,
// every other object is unchanged and in place) and migrate to every
// version (exit 0). test/envtest creates migrate's output in real
// apiservers.
func TestRealWorldManifests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "test", "manifests", "realworld", "*", "*", "*.yaml"))
	if err != nil || len(files) < 40 {
		t.Fatalf("%d real-world manifests (%v)", len(files), err)
	}
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(file))+"-"+filepath.Base(file), func(t *testing.T) {
			if code, out, errOut := run(t, "", "validate", "-f", file); code != ExitOK {
				t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
			}
			orig, err := manifest.ReadAll([]string{file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, to := range conversion.ChainVersions {
				code, out, errOut := run(t, "", "convert", "--to", to, "-f", file, "-q")
				if code != ExitOK {
					t.Fatalf("convert --to %s: exit %d: %s", to, code, errOut)
				}
				docs, err := manifest.Parse("converted", []byte(out))
				if err != nil {
					t.Fatal(err)
				}
				if len(docs) != len(orig) {
					t.Fatalf("convert --to %s wrote %d objects for %d", to, len(docs), len(orig))
				}
				for i, d := range docs {
					want := orig[i].Object
					got := d.Object
					if migrate.IsWorkload(want) {
						// Its resourceClaims in the target release's shape,
						// as migrate gives them.
						if w, _, ok := migrate.Workload(want, to); ok {
							want = w
						}
					}
					if _, from, _, err := conversion.Identify(want); err == nil {
						if got, err = conversion.Convert(got, from); err != nil {
							t.Fatalf("%s: back from %s: %v", orig[i].Position(), to, err)
						}
					}
					if !api.DeepEqualJSON(got, want) {
						t.Errorf("%s: via %s: got %v, want %v", orig[i].Position(), to, got, want)
					}
				}
				code, _, errOut = run(t, "", "migrate", "--to", to, "-f", file)
				// The website's class has name at the top level, as
				// published: a release with ResourceClasses would be given
				// it, and would reject it.
				unnamedClass := strings.Contains(errOut, "apiserver would reject it: metadata.name: Required value")
				if code != ExitOK && !(code == ExitInvalid && unnamedClass && !migrate.Targets[to].Devices) {
					t.Errorf("migrate --to %s: exit %d: %s", to, code, errOut)
				}
				// An object without a namespace is named without one,
				// never "Kind /name".
				if strings.Contains(errOut, " /") {
					t.Errorf("migrate --to %s names an object with an empty namespace:\n%s", to, errOut)
				}
			}
		})
	}
}
