// Command crdmeta gives the embedded ObjectMeta of a ResourceClaimTemplate's
// spec.metadata, in the CRDs controller-gen generated, the schema of every
// field of metav1.ObjectMeta. make generate runs it on
// config/crd/bases/resource.claimbridge.dev_resourceclaimtemplates.yaml.
//
// controller-gen's embedded ObjectMeta (crd:generateEmbeddedObjectMeta) has
// only name, namespace, labels, annotations and finalizers, so the apiserver
// prunes every other field before the validating webhook sees it:
// generateName or ownerReferences, which upstream refuses in a template
// ("cannot be set"), were dropped in silence, and creationTimestamp: null,
// which every 1.26–1.31 export of a template writes there, was an unknown
// field to kubectl's strict field validation. With the full schema the
// webhook answers as upstream for the known fields, the apiserver keeps
// pruning (or, strictly, refusing) fields ObjectMeta does not have, and the
// types hold even when the webhook is not called.
package main

import (
	"fmt"
	"os"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	for _, path := range os.Args[1:] {
		if err := rewrite(path); err != nil {
			fmt.Fprintf(os.Stderr, "crdmeta: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
}

func rewrite(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		return err
	}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return fmt.Errorf("version %s has no schema", v.Name)
		}
		root := v.Schema.OpenAPIV3Schema
		spec, ok := root.Properties["spec"]
		if !ok {
			return fmt.Errorf("version %s has no spec", v.Name)
		}
		meta, ok := spec.Properties["metadata"]
		if !ok {
			return fmt.Errorf("version %s has no spec.metadata", v.Name)
		}
		meta.Properties = objectMetaProperties()
		spec.Properties["metadata"] = meta
		root.Properties["spec"] = spec
	}
	// As controller-gen writes a CRD: a document marker, no status and no
	// creationTimestamp.
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	var m map[string]interface{}
	if err := yaml.Unmarshal(out, &m); err != nil {
		return err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]interface{}); ok {
		delete(meta, "creationTimestamp")
	}
	if out, err = yaml.Marshal(m); err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

// objectMetaProperties is the schema of metav1.ObjectMeta's fields, as
// their JSON decoder reads them (a null is pruned: absent). Labels and
// annotations carry their upstream documentation, as kubectl explain shows
// it for a built-in template; every other field the first sentence of its
// own and the rule that a template leaves it empty (a full description of
// fields a template cannot set would double the CRD).
func objectMetaProperties() map[string]apiextensionsv1.JSONSchemaProps {
	doc := metav1.ObjectMeta{}.SwaggerDoc()
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	time := apiextensionsv1.JSONSchemaProps{Type: "string", Format: "date-time"}
	int64 := apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	boolean := apiextensionsv1.JSONSchemaProps{Type: "boolean"}
	stringMap := apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
		Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}
	array := func(items apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}}
	}
	object := func(properties map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: properties}
	}
	preserve := true
	props := map[string]apiextensionsv1.JSONSchemaProps{
		"annotations":                stringMap,
		"creationTimestamp":          time,
		"deletionGracePeriodSeconds": int64,
		"deletionTimestamp":          time,
		"finalizers":                 array(str),
		"generateName":               str,
		"generation":                 int64,
		"labels":                     stringMap,
		"managedFields": array(object(map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion":  str,
			"fieldsType":  str,
			"fieldsV1":    {Type: "object", XPreserveUnknownFields: &preserve},
			"manager":     str,
			"operation":   str,
			"subresource": str,
			"time":        time,
		})),
		"name":      str,
		"namespace": str,
		"ownerReferences": array(object(map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion":         str,
			"blockOwnerDeletion": boolean,
			"controller":         boolean,
			"kind":               str,
			"name":               str,
			"uid":                str,
		})),
		"resourceVersion": str,
		"selfLink":        str,
		"uid":             str,
	}
	for name, p := range props {
		if name == "labels" || name == "annotations" {
			p.Description = doc[name]
		} else {
			p.Description = firstSentence(doc[name]) + " " + templateOnlyLabelsAndAnnotations
		}
		props[name] = p
	}
	return props
}

// templateOnlyLabelsAndAnnotations is said of every field but labels and
// annotations (upstream's ValidateTemplateObjectMeta; the webhook's
// common.ValidateTemplateObjectMeta).
const templateOnlyLabelsAndAnnotations = "A template may not set it: its metadata holds only labels and annotations " +
	"(Forbidden: cannot be set, as in Kubernetes 1.26–1.31)."

// firstSentence is doc up to its first full stop that ends a sentence.
func firstSentence(doc string) string {
	if i := strings.Index(doc, ". "); i >= 0 {
		return doc[:i+1]
	}
	if i := strings.Index(doc, ".\n"); i >= 0 {
		return doc[:i+1]
	}
	return strings.TrimSpace(doc)
}
