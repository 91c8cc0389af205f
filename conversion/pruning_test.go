package conversion_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// crdSchemas loads the structural schema of every version of the generated
// CRDs, keyed by kind and version.
func crdSchemas(t *testing.T) map[string]*structuralschema.Structural {
	t.Helper()
	schemas := map[string]*structuralschema.Structural{}
	for _, file := range []string{"resource.claimbridge.dev_resourceclaims.yaml", "resource.claimbridge.dev_resourceclaimtemplates.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", file))
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, v := range crd.Spec.Versions {
			var internal apiextensions.JSONSchemaProps
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
				t.Fatal(err)
			}
			s, err := structuralschema.NewStructural(&internal)
			if err != nil {
				t.Fatalf("%s %s: %v", file, v.Name, err)
			}
			if errs := structuralschema.ValidateStructural(nil, s); len(errs) > 0 {
				t.Fatalf("%s %s is not structural: %v", file, v.Name, errs.ToAggregate())
			}
			schemas[crd.Spec.Names.Kind+"/"+v.Name] = s
		}
	}
	if len(schemas) != 6 {
		t.Fatalf("found %d schemas, want 6 (two kinds × three versions)", len(schemas))
	}
	return schemas
}

// TestPruningKeepsFuzzedObjects proves that no Go field is missing from the
// generated CRD schema: random objects of every version, and their
// conversions to every other version, lose nothing to the apiserver's
// pruning.
func TestPruningKeepsFuzzedObjects(t *testing.T) {
	schemas := crdSchemas(t)
	n := roundTripIterations(t) / 10
	for vi, version := range api.ServedVersions {
		t.Run(version, func(t *testing.T) {
			f := newFiller(int64(5000 + vi))
			for i := 0; i < n; i++ {
				obj := randomObject(t, f, version, i%2 == 1)
				objects := []map[string]interface{}{obj}
				for _, to := range api.ServedVersions {
					if to != version {
						converted, err := conversion.Convert(obj, to)
						if err != nil {
							t.Fatal(err)
						}
						objects = append(objects, converted)
					}
				}
				for _, o := range objects {
					kind := o["kind"].(string)
					_, v, _ := cutVersion(o)
					pruned := pruning.PruneWithOptions(decodeTree(t, []byte(mustJSON(o))), schemas[kind+"/"+v], true,
						structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
					if len(pruned) > 0 {
						t.Fatalf("iteration %d: %s %s lost fields to pruning: %v\n%s", i, kind, v, pruned, mustJSON(o))
					}
				}
			}
		})
	}
}

func cutVersion(obj map[string]interface{}) (group, version string, ok bool) {
	av, _ := obj["apiVersion"].(string)
	for i := len(av) - 1; i >= 0; i-- {
		if av[i] == '/' {
			return av[:i], av[i+1:], true
		}
	}
	return "", av, false
}
