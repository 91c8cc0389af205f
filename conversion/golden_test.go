package conversion_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
)

// The golden fixtures: every conversion/testdata/<case>.<version>.yaml is
// converted to each other version and compared with
// conversion/testdata/golden/<case>.<from>-to-<to>.yaml, both as decoded
// trees and as the exact bytes of the sigs.k8s.io/yaml rendering.
//
// Regenerate the golden files with
//
//	UPDATE_GOLDEN=1 go test ./conversion -run TestGolden
//
// and read the diff: the golden files are the reviewed statement of the
// mapping (docs/conversion.md quotes them).

const (
	goldenInputDir = "testdata"
	goldenDir      = "testdata/golden"
)

type goldenInput struct {
	name    string // <case>.<version>
	caseID  string
	version string
	path    string
}

func goldenInputs(t *testing.T) []goldenInput {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenInputDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []goldenInput
	for _, p := range paths {
		base := strings.TrimSuffix(filepath.Base(p), ".yaml")
		dot := strings.LastIndex(base, ".")
		if dot < 0 || !goldenIsVersion(base[dot+1:]) {
			t.Fatalf("%s: input files must be named <case>.<version>.yaml", p)
		}
		inputs = append(inputs, goldenInput{name: base, caseID: base[:dot], version: base[dot+1:], path: p})
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs in " + goldenInputDir)
	}
	return inputs
}

func goldenIsVersion(v string) bool {
	for _, known := range api.ServedVersions {
		if v == known {
			return true
		}
	}
	return false
}

func goldenPath(in goldenInput, to string) string {
	return filepath.Join(goldenDir, fmt.Sprintf("%s.%s-to-%s.yaml", in.caseID, in.version, to))
}

// goldenDecodeYAML decodes YAML (or JSON) into a JSON tree the way the webhook and
// the CLI do: numbers as json.Number.
func goldenDecodeYAML(t *testing.T, data []byte) map[string]interface{} {
	t.Helper()
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatalf("YAMLToJSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	return obj
}

func goldenReadTree(t *testing.T, path string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return goldenDecodeYAML(t, data)
}

func goldenConvert(t *testing.T, obj map[string]interface{}, to string) map[string]interface{} {
	t.Helper()
	out, err := conversion.Convert(obj, to)
	if err != nil {
		t.Fatalf("Convert to %s: %v", to, err)
	}
	return out
}

// goldenTypedObject returns an empty typed object of the version and kind.
func goldenTypedObject(version, kind string) interface{} {
	switch version + "/" + kind {
	case "v1alpha1/ResourceClaim":
		return &v1alpha1.ResourceClaim{}
	case "v1alpha1/ResourceClaimTemplate":
		return &v1alpha1.ResourceClaimTemplate{}
	case "v1alpha1/ResourceClaimList":
		return &v1alpha1.ResourceClaimList{}
	case "v1alpha1/ResourceClaimTemplateList":
		return &v1alpha1.ResourceClaimTemplateList{}
	case "v1alpha2/ResourceClaim":
		return &v1alpha2.ResourceClaim{}
	case "v1alpha2/ResourceClaimTemplate":
		return &v1alpha2.ResourceClaimTemplate{}
	case "v1alpha2/ResourceClaimList":
		return &v1alpha2.ResourceClaimList{}
	case "v1alpha2/ResourceClaimTemplateList":
		return &v1alpha2.ResourceClaimTemplateList{}
	case "v1alpha3/ResourceClaim":
		return &v1alpha3.ResourceClaim{}
	case "v1alpha3/ResourceClaimTemplate":
		return &v1alpha3.ResourceClaimTemplate{}
	case "v1alpha3/ResourceClaimList":
		return &v1alpha3.ResourceClaimList{}
	case "v1alpha3/ResourceClaimTemplateList":
		return &v1alpha3.ResourceClaimTemplateList{}
	}
	return nil
}

// goldenCheckOwnFields fails when obj has a field that the Go types of version do
// not know: converted objects carry only their own version's fields.
func goldenCheckOwnFields(t *testing.T, obj map[string]interface{}, version string) {
	t.Helper()
	kind, _ := obj["kind"].(string)
	typed := goldenTypedObject(version, kind)
	if typed == nil {
		t.Fatalf("no Go type for %s %s", version, kind)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(typed); err != nil {
		t.Errorf("the %s object does not decode strictly into the %s Go types: %v", kind, version, err)
	}
}

func TestGolden(t *testing.T) {
	update := os.Getenv("UPDATE_GOLDEN") != ""
	wanted := map[string]bool{}
	for _, in := range goldenInputs(t) {
		t.Run(in.name, func(t *testing.T) {
			input := goldenReadTree(t, in.path)
			goldenCheckOwnFields(t, input, in.version)
			for _, to := range api.ServedVersions {
				if to == in.version {
					continue
				}
				golden := goldenPath(in, to)
				wanted[filepath.Base(golden)] = true
				t.Run("to-"+to, func(t *testing.T) {
					out := goldenConvert(t, input, to)
					rendered, err := yaml.Marshal(out)
					if err != nil {
						t.Fatalf("rendering: %v", err)
					}
					if update {
						if err := os.WriteFile(golden, rendered, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want, err := os.ReadFile(golden)
					if err != nil {
						t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./conversion -run TestGolden)", err)
					}
					if diff := cmp.Diff(goldenDecodeYAML(t, want), out); diff != "" {
						t.Errorf("converted tree differs from %s (-want +got):\n%s", golden, diff)
					}
					if diff := cmp.Diff(string(want), string(rendered)); diff != "" {
						t.Errorf("rendering differs from %s (-want +got):\n%s", golden, diff)
					}
					goldenCheckOwnFields(t, out, to)
					if got, _ := out["apiVersion"].(string); !strings.HasSuffix(got, "/"+to) ||
						strings.Split(got, "/")[0] != strings.Split(input["apiVersion"].(string), "/")[0] {
						t.Errorf("apiVersion %q: want the input's group and version %s", got, to)
					}
					goldenCheckMetadata(t, input, out)

					// A→B→A is exact.
					back := goldenConvert(t, out, in.version)
					if diff := cmp.Diff(input, back); diff != "" {
						t.Errorf("%s→%s→%s is not the input (-want +got):\n%s", in.version, to, in.version, diff)
					}
					// A→B→C→A is exact, C the third version.
					for _, via := range api.ServedVersions {
						if via == in.version || via == to {
							continue
						}
						third := goldenConvert(t, out, via)
						goldenCheckOwnFields(t, third, via)
						back := goldenConvert(t, third, in.version)
						if diff := cmp.Diff(input, back); diff != "" {
							t.Errorf("%s→%s→%s→%s is not the input (-want +got):\n%s", in.version, to, via, in.version, diff)
						}
					}
				})
			}
		})
	}
	if t.Failed() {
		return
	}
	// Every golden file belongs to an input.
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var orphans []string
	for _, f := range files {
		if !wanted[filepath.Base(f)] {
			orphans = append(orphans, f)
		}
	}
	sort.Strings(orphans)
	for _, f := range orphans {
		if update {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s has no input (delete it, or run with UPDATE_GOLDEN=1)", f)
	}
}

// goldenCheckMetadata fails when conversion changed metadata other
// than claimbridge's own annotations (for lists: the items' metadata).
func goldenCheckMetadata(t *testing.T, in, out map[string]interface{}) {
	t.Helper()
	if items, ok := in["items"].([]interface{}); ok {
		if diff := cmp.Diff(in["metadata"], out["metadata"]); diff != "" {
			t.Errorf("list metadata changed (-in +out):\n%s", diff)
		}
		outItems, _ := out["items"].([]interface{})
		if len(outItems) != len(items) {
			t.Fatalf("list has %d items, want %d", len(outItems), len(items))
		}
		for i := range items {
			goldenCheckMetadata(t, items[i].(map[string]interface{}), outItems[i].(map[string]interface{}))
		}
		return
	}
	strip := func(obj map[string]interface{}) interface{} {
		meta, ok := obj["metadata"].(map[string]interface{})
		if !ok {
			return obj["metadata"]
		}
		cp := map[string]interface{}{}
		for k, v := range meta {
			cp[k] = v
		}
		if ann, ok := meta["annotations"].(map[string]interface{}); ok {
			rest := map[string]interface{}{}
			for k, v := range ann {
				if !strings.HasPrefix(k, api.AnnotationPrefix) {
					rest[k] = v
				}
			}
			cp["annotations"] = rest
			if len(rest) == 0 {
				delete(cp, "annotations")
			}
		}
		if len(cp) == 0 {
			return nil
		}
		return cp
	}
	if diff := cmp.Diff(strip(in), strip(out)); diff != "" {
		t.Errorf("metadata changed beyond claimbridge annotations (-in +out):\n%s", diff)
	}
	if tin, ok := in["spec"].(map[string]interface{}); ok && in["kind"] == api.KindTemplate {
		tout, _ := out["spec"].(map[string]interface{})
		if diff := cmp.Diff(tin["metadata"], tout["metadata"]); diff != "" {
			t.Errorf("template spec.metadata changed (-in +out):\n%s", diff)
		}
	}
}
