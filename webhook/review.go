package webhook

import (
	"encoding/json"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// decodeReview decodes a review of kind in group/v1 or group/v1beta1 and
// checks that it has a request (request reports whether it does, and its
// uid) with a uid.
func decodeReview(body []byte, review interface{}, tm *metav1.TypeMeta, kind, group string, request func() (bool, types.UID)) *httpError {
	if err := json.Unmarshal(body, review); err != nil {
		return errorf(http.StatusBadRequest, "decoding %s: %v", kind, err)
	}
	if tm.Kind != kind || (tm.APIVersion != group+"/v1" && tm.APIVersion != group+"/v1beta1") {
		return errorf(http.StatusBadRequest, "unsupported review %s %q: want %s %s/v1 or v1beta1", tm.Kind, tm.APIVersion, kind, group)
	}
	ok, uid := request()
	if !ok {
		return errorf(http.StatusBadRequest, "%s has no request", kind)
	}
	if uid == "" {
		return errorf(http.StatusBadRequest, "%s request has no uid", kind)
	}
	return nil
}
