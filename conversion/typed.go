package conversion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
)

// typedScheme knows the Go types of every version of the chain:
// claimbridge's (api/v1alpha1 … v1alpha3, registered for Group) and
// k8s.io/api's resource v1beta1, v1beta2 and v1 (UpstreamGroup). Only the
// kinds conversion converts are used from it.
var typedScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		v1alpha1.AddToScheme, v1alpha2.AddToScheme, v1alpha3.AddToScheme,
		resourcev1beta1.AddToScheme, resourcev1beta2.AddToScheme, resourcev1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	return s
})

// typedKind returns the group, version and kind of obj's Go type: Group and
// the package's version for claimbridge's types, UpstreamGroup for
// k8s.io/api's.
func typedKind(obj runtime.Object) (schema.GroupVersionKind, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return schema.GroupVersionKind{}, fmt.Errorf("no object (%T)", obj)
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		// The scheme would take any apiVersion and kind it declares.
		return schema.GroupVersionKind{}, fmt.Errorf("%T is not typed: convert its JSON tree (UnstructuredContent) with Convert or ConvertWithWarnings", obj)
	}
	gvks, _, err := typedScheme().ObjectKinds(obj)
	if err == nil && len(gvks) == 1 {
		switch gvk := gvks[0]; gvk.Kind {
		case KindClaim, KindTemplate, KindClaimList, KindTemplateList:
			return gvk, nil
		}
	}
	return schema.GroupVersionKind{}, fmt.Errorf("%T is not a claim, template or list type of claimbridge's api/v1alpha1, v1alpha2 or v1alpha3 "+
		"or of k8s.io/api/resource/v1beta1, v1beta2 or v1", obj)
}

// ToTree returns obj, a typed claim, template or list of claimbridge's
// api/v1alpha1, v1alpha2 or v1alpha3 or of k8s.io/api/resource/v1beta1,
// v1beta2 or v1, as the JSON tree that Convert, ConvertWithWarnings and
// validation.Validate take: encoding/json's, numbers as json.Number, without
// the null members the Go types write for what they do not have (dropNulls).
//
// Its apiVersion and kind are obj's TypeMeta, where set, and otherwise its Go
// type's (for a list of claimbridge's types whose items all name
// resource.k8s.io, that group): a typed object built in Go, or read through
// a client-go or controller-runtime client, has an empty TypeMeta, which
// Convert and Validate refuse. A claimbridge type gets group resource.claimbridge.dev
// unless TypeMeta names resource.k8s.io (a claimbridge type stands for
// upstream's resource.k8s.io/v1alpha1 … v1alpha3 too, whose claims k8s.io/api
// no longer has); a k8s.io/api type gets resource.k8s.io. A TypeMeta that names
// another version or kind than the Go type, or another group than these,
// is an error. An unstructured object is refused: its content already is a
// tree (UnstructuredContent) for Convert. obj is not modified.
func ToTree(obj runtime.Object) (map[string]interface{}, error) {
	gvk, err := typedKind(obj)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree map[string]interface{}
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decoding %T: %w", obj, err)
	}
	group := gvk.Group
	if apiVersion, _ := tree["apiVersion"].(string); apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil, fmt.Errorf("%T has apiVersion %q: %w", obj, apiVersion, err)
		}
		// A claimbridge type may hold an object of either group; a
		// k8s.io/api type only one of its own.
		if gv.Version != gvk.Version || gv.Group != gvk.Group && (gvk.Group != Group || gv.Group != UpstreamGroup) {
			return nil, fmt.Errorf("%T has apiVersion %q, which its type cannot hold: want %s/%s or an empty apiVersion", obj, apiVersion, gvk.Group, gvk.Version)
		}
		group = gv.Group
	} else if gvk.Group == Group && itemsGroup(tree) == UpstreamGroup {
		// A list of claimbridge's types without TypeMeta, whose items name
		// resource.k8s.io (as ConvertTyped's results do), is of that group:
		// Convert converts items from the list's apiVersion.
		group = UpstreamGroup
	}
	if kind, _ := tree["kind"].(string); kind != "" && kind != gvk.Kind {
		return nil, fmt.Errorf("%T has kind %q: want %s or an empty kind", obj, kind, gvk.Kind)
	}
	dropNulls(tree)
	tree["apiVersion"] = group + "/" + gvk.Version
	tree["kind"] = gvk.Kind
	return tree, nil
}

// itemsGroup is the group that every item of a list tree names in its
// apiVersion, or "" if they name none or several.
func itemsGroup(tree map[string]interface{}) string {
	items, _ := tree["items"].([]interface{})
	group := ""
	for _, item := range items {
		m, _ := item.(map[string]interface{})
		apiVersion, _ := m["apiVersion"].(string)
		if apiVersion == "" {
			continue
		}
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil || group != "" && gv.Group != group {
			return ""
		}
		group = gv.Group
	}
	return group
}

// dropNulls removes the members of every object of v that are null. A Go
// type encodes as null only what it does not have (an empty RawExtension,
// whose omitempty does not apply, a zero metav1.Time, a nil slice without
// omitempty), and the apiserver drops them from a custom resource (no field
// of the CRD is nullable); kept, a conversion back would record them in a
// restore annotation as something the other version could not hold. The
// content of a RawExtension (opaqueMembers) is a driver's own JSON, kept as
// it is: a null there is the driver's, as it is in a custom resource.
func dropNulls(v interface{}) {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, e := range v {
			switch {
			case e == nil:
				delete(v, k)
			case !opaqueMembers[k]:
				dropNulls(e)
			}
		}
	case []interface{}:
		for _, e := range v {
			dropNulls(e)
		}
	}
}

// opaqueMembers are the JSON names of the RawExtension fields of the typed
// claims and templates: v1alpha2's vendor*Parameters, the opaque
// configuration's parameters of v1alpha3 and the GA versions, and the GA
// status.devices[].data.
var opaqueMembers = map[string]bool{
	"vendorClassParameters": true, "vendorClaimParameters": true, "vendorRequestParameters": true,
	"parameters": true, "data": true,
}

// ConvertTyped converts in into out, typed objects of the same kind (claim,
// template or their list) of claimbridge's api/v1alpha1, v1alpha2 or
// v1alpha3 or of k8s.io/api/resource/v1beta1, v1beta2 or v1: the target
// version is out's Go type's. It is ConvertWithWarnings of ToTree(in), with
// its warnings, decoded into out.
//
// The group is kept, as by Convert: a claimbridge claim of group
// resource.claimbridge.dev converts to claimbridge's types only; for
// k8s.io/api's types, give in the apiVersion of group resource.k8s.io
// (resource.k8s.io/v1alpha2 on a *v1alpha2.ResourceClaim). out gets the
// result's apiVersion and kind in its TypeMeta (resource.k8s.io/v1alpha3 in
// a *v1alpha3.ResourceClaim converted from resource.k8s.io). in is not
// modified; out is replaced, not merged into, and left alone on an error.
//
// The decode is strict: a field of the result that out's type does not have
// is an error rather than dropped. Converting maps and decoding them yourself,
// use encoding/json: runtime.DefaultUnstructuredConverter.FromUnstructured
// refuses the json.Number values conversion writes ("unrecognized type:
// int64").
func ConvertTyped(in, out runtime.Object) ([]Warning, error) {
	inKind, err := typedKind(in)
	if err != nil {
		return nil, err
	}
	outKind, err := typedKind(out)
	if err != nil {
		return nil, err
	}
	if inKind.Kind != outKind.Kind {
		return nil, fmt.Errorf("cannot convert a %s (%T) into a %s (%T)", inKind.Kind, in, outKind.Kind, out)
	}
	tree, err := ToTree(in)
	if err != nil {
		return nil, err
	}
	result, warnings, err := ConvertWithWarnings(tree, outKind.Version)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("encoding the converted %s: %w", api.Describe(result), err)
	}
	fresh := reflect.New(reflect.TypeOf(out).Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(fresh.Interface()); err != nil {
		return nil, fmt.Errorf("decoding the converted %s into %T: %w", api.Describe(result), out, err)
	}
	reflect.ValueOf(out).Elem().Set(fresh.Elem())
	return warnings, nil
}
