package webhook

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// decodeCanonicalConversionReview decodes a ConversionReview in the shape
// the apiserver sends — exactly the keys kind, apiVersion and request{uid,
// desiredAPIVersion, objects}, strings where strings belong and objects that
// are JSON objects, and the empty response kube-apiserver adds
// ({"uid":"","convertedObjects":null,"result":{"metadata":{}}}, see
// isEmptyConversionResponse) — in one pass over the body, objects included: the
// apiserver sends one object per review, so decoding the review and then its
// object again was half of the handler's decoding work. It returns ok=false
// for any other input, which decodeConversionReview then decodes (and
// judges) with encoding/json; for the inputs it accepts, the review is what
// decodeConversionReview would return, without the objects' raw bytes (each
// RawExtension is empty; decoded holds the objects).
//
// Nesting deeper than maxDepth is refused like any other input, so that the
// caller's depth check (which would fail) runs only on the slow path.
//
// The maps come from rc (which may be nil); the caller gives them back with
// rc.Release once nothing refers to the review or its objects.
func decodeCanonicalConversionReview(body []byte, maxDepth int, rc *jsontree.Recycler) (review apiextensionsv1.ConversionReview, decoded []map[string]interface{}, ok bool) {
	v, err := rc.UnmarshalOwned(body, maxDepth)
	if err != nil {
		return review, nil, false
	}
	top, _ := v.(map[string]interface{})
	if resp, ok := top["response"]; ok && (len(top) != 4 || !isEmptyConversionResponse(resp)) {
		return review, nil, false
	} else if !ok && len(top) != 3 {
		return review, nil, false
	}
	kind, ok1 := top["kind"].(string)
	apiVersion, ok2 := top["apiVersion"].(string)
	req, ok3 := top["request"].(map[string]interface{})
	if !ok1 || !ok2 || !ok3 || len(req) != 3 || kind != "ConversionReview" ||
		(apiVersion != "apiextensions.k8s.io/v1" && apiVersion != "apiextensions.k8s.io/v1beta1") {
		return review, nil, false
	}
	uid, ok1 := req["uid"].(string)
	desired, ok2 := req["desiredAPIVersion"].(string)
	objects, ok3 := req["objects"].([]interface{})
	if !ok1 || !ok2 || !ok3 || uid == "" {
		return review, nil, false
	}
	decoded = make([]map[string]interface{}, len(objects))
	for i, o := range objects {
		if decoded[i], _ = o.(map[string]interface{}); decoded[i] == nil {
			return review, nil, false
		}
	}
	review.Kind, review.APIVersion = kind, apiVersion
	review.Request = &apiextensionsv1.ConversionRequest{
		UID: types.UID(uid), DesiredAPIVersion: desired, Objects: make([]runtime.RawExtension, len(objects)),
	}
	return review, decoded, true
}

// isEmptyConversionResponse reports whether v is the response kube-apiserver
// writes into every ConversionReview it sends (an empty
// apiextensions.k8s.io ConversionResponse, encoded: uid "", convertedObjects
// null, result with empty metadata), or a part of it down to {}.
// encoding/json decodes it into a response the handler ignores; any other
// content is left to encoding/json to judge.
func isEmptyConversionResponse(v interface{}) bool {
	resp, ok := v.(map[string]interface{})
	if !ok {
		return false
	}
	for k, e := range resp {
		switch k {
		case "uid":
			if e != "" {
				return false
			}
		case "convertedObjects":
			if e != nil {
				return false
			}
		case "result":
			result, ok := e.(map[string]interface{})
			if !ok || len(result) > 1 {
				return false
			}
			if md, ok := result["metadata"]; len(result) == 1 && (!ok || !isEmptyObject(md)) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isEmptyObject(v interface{}) bool {
	m, ok := v.(map[string]interface{})
	return ok && len(m) == 0
}
