package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/test/migratetest"
)

// driverManifests are the manifests of test/manifests/drivers: the
// project's own, written in the shapes DRA drivers and the Kubernetes docs
// published for 1.26–1.31 (mixed kinds, vendor parameter objects, the
// docs' ResourceClass with name at the top level …; see its README).
func driverManifests(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "test", "manifests", "drivers", "*.yaml"))
	if err != nil || len(files) < 30 {
		t.Fatalf("%d driver-style manifests in test/manifests/drivers (%v)", len(files), err)
	}
	return files
}

// checkConverted checks what `convert --to to` wrote (out) for the objects
// of orig: one object for each, in place; each claim and template converted
// back to its version is the original exactly; each workload is the
// original with its resourceClaims in the target release's shape, as
// migrate gives them; every other object is unchanged.
func checkConverted(t *testing.T, orig []manifest.Document, to, out string) {
	t.Helper()
	docs, err := manifest.Parse("converted", []byte(out))
	if err != nil {
		t.Errorf("convert --to %s wrote no manifest: %v", to, err)
		return
	}
	if len(docs) != len(orig) {
		t.Errorf("convert --to %s wrote %d objects for %d", to, len(docs), len(orig))
		return
	}
	for i, d := range docs {
		want := orig[i].Object
		got := d.Object
		// A workload's resourceClaims in the target release's shape, as
		// migrate gives them.
		if v := migrate.Convert(want, migratetest.Target(t, to)); v.Outcome == report.Rewritten {
			want = v.Object
		}
		if _, from, _, err := conversion.Identify(want); err == nil {
			if got, err = conversion.Convert(got, from); err != nil {
				t.Errorf("%s: back from %s: %v", orig[i].Position(), to, err)
				continue
			}
		} else if _, _, version, kind, _ := api.TypeOf(want); kind == "DeviceClass" || kind == "ResourceSlice" {
			got = migrate.Convert(got, migratetest.Target(t, version)).Object // classes and slices get the target's version too
		}
		if !api.DeepEqualJSON(got, want) {
			t.Errorf("%s: via %s: got %v, want %v", orig[i].Position(), to, got, want)
		}
	}
}

// TestRealWorldManifests runs the manifests of test/manifests/drivers
// (written in the shapes of DRA drivers' and the Kubernetes docs'
// manifests of 1.26–1.31, mixed kinds as published) through validate (all
// valid but the docs' unnamed class), convert to every version (claims and templates converted back
// give the original exactly, every other object is unchanged and in place)
// and migrate to every version (exit 0). TestCorpusManifests (-tags corpus)
// runs the published manifests themselves.
func TestRealWorldManifests(t *testing.T) {
	unnamedClasses := 0
	for _, file := range driverManifests(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			// All valid but the docs' class with name at the top level,
			// which a strict 1.30 apiserver refuses.
			code, out, errOut := run(t, "", "validate", "-f", file)
			if unnamed := strings.Count(out, "ResourceClass (unnamed): "); code != ExitOK && !(code == ExitInvalid && unnamed > 0 && unnamed == strings.Count(out, "\n")) {
				t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
			}
			orig, err := manifest.ReadAll([]string{file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, to := range api.ConversionVersions {
				code, out, errOut := run(t, "", "convert", "--to", to, "-f", file, "-q")
				// Exit 1, written all the same: a class the target does not
				// serve, or the docs' unnamed one.
				if code != ExitOK && !(code == ExitInvalid && strings.Contains(errOut, "ResourceClass ")) {
					t.Fatalf("convert --to %s: exit %d: %s", to, code, errOut)
				}
				checkConverted(t, orig, to, out)
				code, _, errOut = run(t, "", "migrate", "--to", to, "-f", file)
				// The docs' class has name at the top level, as the
				// Kubernetes website published it: a release with
				// ResourceClasses would be given it, and would reject it.
				unnamedClass := strings.Contains(errOut, "apiserver would reject it: metadata.name: Required value")
				if unnamedClass {
					unnamedClasses++
				}
				if code != ExitOK && !(code == ExitInvalid && unnamedClass && !migratetest.Target(t, to).Devices) {
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
	// v1alpha2-docs-top-level-name.yaml, refused by 1.26 and 1.27–1.30.
	if unnamedClasses == 0 {
		t.Error("no manifest has the docs' ResourceClass with name at the top level (v1alpha2-docs-top-level-name.yaml)")
	}
}
