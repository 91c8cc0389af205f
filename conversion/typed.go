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

// typedScheme knows the Go types of every version of the chain.
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

// typedKind returns the group, version and kind of obj's Go type.
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
		case api.KindClaim, api.KindTemplate, api.KindClaimList, api.KindTemplateList:
			return gvk, nil
		}
	}
	return schema.GroupVersionKind{}, fmt.Errorf("%T is not a claim, template or list type of claimbridge's api/v1alpha1, v1alpha2 or v1alpha3 "+
		"or of k8s.io/api/resource/v1beta1, v1beta2 or v1", obj)
}

// ToTree returns obj, a typed claim, template or list of claimbridge's api
// packages or of k8s.io/api/resource, as the JSON tree Convert takes,
// without the nulls the Go types write. apiVersion and kind come from
// TypeMeta, or from the Go type when TypeMeta is empty, as it is for
// objects read through a client. A TypeMeta that does not fit the Go type
// is an error, and so is an unstructured object. obj is not modified.
func ToTree(obj runtime.Object) (map[string]interface{}, error) {
	gvk, err := typedKind(obj)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	var tree map[string]interface{}
	if err := api.DecodeJSON(data, &tree); err != nil {
		return nil, fmt.Errorf("decoding %T: %w", obj, err)
	}
	group := gvk.Group
	if apiVersion, _ := tree["apiVersion"].(string); apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil, fmt.Errorf("%T has apiVersion %q: %w", obj, apiVersion, err)
		}
		// A claimbridge type may also hold resource.k8s.io objects.
		if gv.Version != gvk.Version || gv.Group != gvk.Group && (gvk.Group != api.Group || gv.Group != api.UpstreamGroup) {
			return nil, fmt.Errorf("%T has apiVersion %q, which its type cannot hold: want %s/%s or an empty apiVersion", obj, apiVersion, gvk.Group, gvk.Version)
		}
		group = gv.Group
	} else if gvk.Group == api.Group && itemsGroup(tree) == api.UpstreamGroup {
		// A list whose items are resource.k8s.io objects is of that group:
		// Convert converts items from the list's apiVersion.
		group = api.UpstreamGroup
	}
	if kind, _ := tree["kind"].(string); kind != "" && kind != gvk.Kind {
		return nil, fmt.Errorf("%T has kind %q: want %s or an empty kind", obj, kind, gvk.Kind)
	}
	dropNulls(tree)
	tree["apiVersion"] = group + "/" + gvk.Version
	tree["kind"] = gvk.Kind
	return tree, nil
}

// itemsGroup is the group all items of a list tree name, or "".
func itemsGroup(tree map[string]interface{}) string {
	group := ""
	for _, item := range asSlice(tree["items"]) {
		apiVersion := asString(asMap(item)["apiVersion"])
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

// dropNulls removes the null members of every object of v. A Go type
// writes null only for what it does not have, and the apiserver drops them
// from a custom resource; kept, they would end up in a restore annotation.
// Opaque driver JSON (opaqueMembers) is kept as it is.
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
// claims and templates.
var opaqueMembers = map[string]bool{
	"vendorClassParameters": true, "vendorClaimParameters": true, "vendorRequestParameters": true,
	"parameters": true, "data": true,
}

// ConvertTyped converts in into out, typed objects of the same kind, to the
// version of out's Go type. It is ConvertWithWarnings of ToTree(in),
// decoded into out.
//
// The group is kept: to convert to k8s.io/api's types, give in an
// apiVersion of group resource.k8s.io. out gets the result's apiVersion and
// kind. in is not modified; out is replaced, and left alone on an error.
// The decode is strict: a field out's type lacks is an error.
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
