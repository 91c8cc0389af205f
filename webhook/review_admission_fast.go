package webhook

import (
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// decodeCanonicalAdmissionReview decodes an AdmissionReview in the shape
// the apiserver sends in one pass over the body, its objects included (the
// slow path decodes the review with encoding/json and then each object
// again). It accepts only the keys the apiserver writes, each with its JSON
// type (null where encoding/json would leave a field empty), and returns
// ok=false for anything else, which decodeAdmissionReview then decodes and
// judges. For the inputs it accepts, the review is what
// decodeAdmissionReview returns, except that object, oldObject and options
// carry the decoded value (an *unstructured.Unstructured in
// RawExtension.Object for the objects, the re-encoded JSON for options)
// instead of the raw bytes. Nesting deeper than maxDepth is refused.
func decodeCanonicalAdmissionReview(body []byte, maxDepth int) (review admissionv1.AdmissionReview, ok bool) {
	v, err := jsontree.UnmarshalOwnedUniqueKeys(body, maxDepth)
	if err != nil {
		return review, false
	}
	top, _ := v.(map[string]interface{})
	if len(top) != 3 {
		return review, false
	}
	kind, ok1 := top["kind"].(string)
	apiVersion, ok2 := top["apiVersion"].(string)
	req, ok3 := top["request"].(map[string]interface{})
	if !ok1 || !ok2 || !ok3 || kind != "AdmissionReview" ||
		(apiVersion != "admission.k8s.io/v1" && apiVersion != "admission.k8s.io/v1beta1") {
		return review, false
	}
	out := &admissionv1.AdmissionRequest{}
	for k, v := range req {
		var good bool
		switch k {
		case "uid":
			var s string
			s, good = v.(string)
			out.UID = types.UID(s)
		case "kind":
			good = decodeGVK(v, &out.Kind)
		case "resource":
			good = decodeGVR(v, &out.Resource)
		case "subResource":
			out.SubResource, good = v.(string)
		case "requestKind":
			good = v == nil
			if !good {
				out.RequestKind = &metav1.GroupVersionKind{}
				good = decodeGVK(v, out.RequestKind)
			}
		case "requestResource":
			good = v == nil
			if !good {
				out.RequestResource = &metav1.GroupVersionResource{}
				good = decodeGVR(v, out.RequestResource)
			}
		case "requestSubResource":
			out.RequestSubResource, good = v.(string)
		case "name":
			out.Name, good = v.(string)
		case "namespace":
			out.Namespace, good = v.(string)
		case "operation":
			var s string
			s, good = v.(string)
			out.Operation = admissionv1.Operation(s)
		case "userInfo":
			good = decodeUserInfo(v, &out.UserInfo)
		case "object":
			out.Object, good = decodedObject(v)
		case "oldObject":
			out.OldObject, good = decodedObject(v)
		case "dryRun":
			good = v == nil
			if b, isBool := v.(bool); isBool {
				out.DryRun, good = &b, true
			}
		case "options":
			good = v == nil
			if m, isMap := v.(map[string]interface{}); isMap && m != nil {
				raw, err := jsontree.Append(nil, m, true)
				out.Options, good = runtime.RawExtension{Raw: raw}, err == nil
			}
		}
		if !good {
			return review, false
		}
	}
	if out.UID == "" {
		return review, false
	}
	review.Kind, review.APIVersion, review.Request = kind, apiVersion, out
	return review, true
}

// decodedObject holds a decoded object (a JSON object, or null for none).
func decodedObject(v interface{}) (runtime.RawExtension, bool) {
	if v == nil {
		return runtime.RawExtension{}, true
	}
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return runtime.RawExtension{}, false
	}
	return runtime.RawExtension{Object: &unstructured.Unstructured{Object: m}}, true
}

// decodedTree returns the JSON tree decodeCanonicalAdmissionReview put in
// raw, if it did.
func decodedTree(raw runtime.RawExtension) (map[string]interface{}, bool) {
	if u, ok := raw.Object.(*unstructured.Unstructured); ok && raw.Raw == nil {
		return u.Object, true
	}
	return nil, false
}

// stringFields assigns the string members of v (a JSON object) named in
// fields; any other member, or a member of another type, fails.
func stringFields(v interface{}, fields map[string]*string) bool {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return false
	}
	for k, e := range m {
		dst, known := fields[k]
		s, isString := e.(string)
		if !known || !isString {
			return false
		}
		*dst = s
	}
	return true
}

func decodeGVK(v interface{}, gvk *metav1.GroupVersionKind) bool {
	return stringFields(v, map[string]*string{"group": &gvk.Group, "version": &gvk.Version, "kind": &gvk.Kind})
}

func decodeGVR(v interface{}, gvr *metav1.GroupVersionResource) bool {
	return stringFields(v, map[string]*string{"group": &gvr.Group, "version": &gvr.Version, "resource": &gvr.Resource})
}

func decodeUserInfo(v interface{}, u *authenticationv1.UserInfo) bool {
	m, ok := v.(map[string]interface{})
	if !ok || m == nil {
		return false
	}
	for k, e := range m {
		var good bool
		switch k {
		case "username":
			u.Username, good = e.(string)
		case "uid":
			u.UID, good = e.(string)
		case "groups":
			u.Groups, good = stringSlice(e)
		case "extra":
			good = e == nil
			if extra, isMap := e.(map[string]interface{}); isMap && extra != nil {
				u.Extra, good = make(map[string]authenticationv1.ExtraValue, len(extra)), true
				for name, values := range extra {
					s, isSlice := stringSlice(values)
					if !isSlice {
						return false
					}
					u.Extra[name] = s
				}
			}
		}
		if !good {
			return false
		}
	}
	return true
}

// stringSlice decodes a JSON array of strings (null is a nil slice).
func stringSlice(v interface{}) ([]string, bool) {
	if v == nil {
		return nil, true
	}
	a, ok := v.([]interface{})
	if !ok {
		return nil, false
	}
	out := make([]string, len(a))
	for i, e := range a {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}
