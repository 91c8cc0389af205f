package migrate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
)

// TestObjectWarnsAtLeastAsConvert migrates every claim and template of
// conversion/testdata and examples (in group resource.k8s.io, as a cluster
// of their release exports them) and of this package's tests to every
// version, and compares with convert's conversion of the same object: every
// warning of conversion.ConvertWithWarnings is in the report, and so are,
// as lost, the fields of every restore annotation of convert's output
// (migrate drops them). A refused object must report them too. Left out, as
// documented: warnings about the status (migrate drops it), about the
// finalizers of a claim allocated by a classic driver (its allocation is
// dropped, and so is the driver's finalizer for the GA targets), and about
// parametersRef for the targets that translate 1.30 parameters (migrate
// warns about it itself). For those targets, parametersRef and an
// allocationMode WaitForFirstConsumer are not lost (coveredFields).
func TestObjectWarnsAtLeastAsConvert(t *testing.T) {
	objects := parityInputs(t)
	for name, in := range objects {
		_, from, _, err := conversion.Identify(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, to := range api.ConversionVersions {
			t.Run(name+"/"+to, func(t *testing.T) {
				converted, ws, err := conversion.ConvertWithWarnings(in, to)
				if err != nil {
					t.Fatalf("convert: %v", err)
				}
				_, report, err := migrateOne(t, in, versionTarget(to), Options{})
				if err != nil && !strings.Contains(err.Error(), "apiserver would reject the migrated object") {
					t.Fatalf("migrate: %v", err)
				}
				translates := versionTarget(to).Devices && (from == api.V1alpha1 || from == api.V1alpha2)
				seen := map[string]bool{} // each field once, as migrate reports it
				for _, w := range ws {
					switch {
					case w.Path == "status" || strings.HasPrefix(w.Path, "status."):
						continue
					case strings.HasPrefix(w.Path, "metadata.finalizers["):
						continue
					case translates && strings.HasSuffix(w.Path, "spec.parametersRef"):
						continue
					}
					line := w.Text(to) // as migrate phrases it, for the target
					if path, _, _ := strings.Cut(line, ": "); seen[path] {
						continue
					} else {
						seen[path] = true
					}
					if !slices.Contains(report.Warnings, line) {
						t.Errorf("convert warns %q; migrate's warnings:\n%s", line, strings.Join(report.Warnings, "\n"))
					}
				}
				meta, _ := converted["metadata"].(map[string]interface{})
				ann, _ := meta["annotations"].(map[string]interface{})
				for k := range ann {
					version, ok := strings.CutPrefix(k, api.AnnotationPrefix+"restore-")
					if !ok {
						continue
					}
					_, _, kind, _ := conversion.Identify(in)
					covered := coveredFields(in, from, kind, versionTarget(to))
					var fields []string
					for _, f := range conversion.RestoredSpecFields(converted, version) {
						if !covered[f] {
							fields = append(fields, f)
						}
					}
					if len(fields) == 0 {
						continue
					}
					line := lostLine(strings.Join(fields, ", "), version, to)
					if !slices.Contains(report.Lost, line) {
						t.Errorf("convert keeps %s in %s; migrate reports as lost:\n%s", fields, k, strings.Join(report.Lost, "\n"))
					}
				}
			})
		}
	}
}

// parityInputs are the claims and templates of the fixtures, examples and
// this package's tests, by name; items of typed lists one by one.
func parityInputs(t *testing.T) map[string]map[string]interface{} {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "conversion", "testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]interface{}{}
	for _, f := range append(files, examples...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte(api.Group+"/"), []byte(api.UpstreamGroup+"/"))
		docs, err := manifest.Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range docs {
			add(out, fmt.Sprintf("%s#%d", filepath.Base(f), i), d.Object)
		}
	}
	for name, s := range map[string]string{
		"exported130": exported130, "classicClaim131": classicClaim131, "claimWithParameters": claimWithParameters,
		"countAndSelector131": countAndSelector131, "firstAvailableV1": firstAvailableV1,
	} {
		add(out, name, obj(t, s))
	}
	if len(out) < 30 {
		t.Fatalf("only %d inputs", len(out))
	}
	return out
}

// add adds a claim or template, or the items of a typed list.
func add(out map[string]map[string]interface{}, name string, o map[string]interface{}) {
	kind, _ := o["kind"].(string)
	if !strings.HasSuffix(kind, "List") {
		out[name] = o
		return
	}
	items, _ := o["items"].([]interface{})
	for i, it := range items {
		item, _ := it.(map[string]interface{})
		if _, ok := item["apiVersion"]; !ok {
			item["apiVersion"], item["kind"] = o["apiVersion"], strings.TrimSuffix(kind, "List")
		}
		out[fmt.Sprintf("%s[%d]", name, i)] = item
	}
}
