package webhook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
)

// ConvertFunc converts one ResourceClaim or ResourceClaimTemplate, decoded
// with json.Number numbers, to toVersion (v1alpha1, v1alpha2 or v1alpha3)
// of its group. It must not modify obj; the result may share with it.
type ConvertFunc func(obj map[string]interface{}, toVersion string) (map[string]interface{}, error)

// serveConvert serves /convert: a ConversionReview apiextensions.k8s.io/v1
// or v1beta1. Only a review that cannot be read gets an HTTP error; every
// conversion problem is a 200 with result.status Failure.
func (s *Server) serveConvert(x exchange) {
	var review apiextensionsv1.ConversionReview
	if !x.decode(&review, &review.TypeMeta, func() bool { return review.Request != nil && review.Request.UID != "" }) {
		return
	}
	req := review.Request
	x.log = x.log.WithValues("uid", logString(string(req.UID)), "desiredAPIVersion", logString(req.DesiredAPIVersion), "objects", len(req.Objects))
	resp := s.convertObjects(x.ctx, req)
	result := "success"
	if resp.Result.Status != metav1.StatusSuccess {
		result = "failure"
		x.log.Info("Conversion failed", "message", logString(resp.Result.Message))
	} else {
		x.log.V(4).Info("Converted objects", "duration", time.Since(x.start))
	}
	x.answer("", result, &apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: resp})
}

// convertObjects converts every object in order, or fails the whole review
// (no objects), also when ctx ends between two (client gone, timeout).
func (s *Server) convertObjects(ctx context.Context, req *apiextensionsv1.ConversionRequest) *apiextensionsv1.ConversionResponse {
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	version, served := servedVersion(req.DesiredAPIVersion)
	if !served {
		v := api.ServedVersions
		resp.Result = failure("desiredAPIVersion %q is not served: want %s/%s or %s", req.DesiredAPIVersion, api.Group, strings.Join(v[:len(v)-1], ", "), v[len(v)-1])
		return resp
	}
	to := schema.GroupVersion{Group: api.Group, Version: version}
	converted := make([]runtime.RawExtension, len(req.Objects))
	for i, o := range req.Objects {
		if err := ctx.Err(); err != nil {
			resp.Result = failure("objects[%d] and later not converted to %s: %v", i, req.DesiredAPIVersion, err)
			return resp
		}
		var err error
		if converted[i].Raw, err = s.convertObject(o.Raw, to); err != nil {
			resp.Result = failure("objects[%d] %v", i, err)
			return resp
		}
	}
	resp.ConvertedObjects = converted
	return resp
}

// convertObject converts one object, raw as the review carries it, from
// the cache when it has the answer, and checks what the apiserver
// requires of the result. Errors name the object, never its contents.
func (s *Server) convertObject(raw []byte, to schema.GroupVersion) ([]byte, error) {
	key := s.cache.key(to.Version, raw)
	if data, from, ok := s.cache.get(key); ok {
		s.metrics.conversion(from, to.Version, "success")
		return data, nil
	}
	obj, err := api.DecodeObject(raw)
	if err != nil {
		return nil, err
	}
	id := identify(obj)
	apiVersion, _ := obj["apiVersion"].(string)
	from, served := servedVersion(apiVersion)
	if !served || !api.IsKind(id.kind) {
		s.metrics.conversion(from, to.Version, "unsupported")
		return nil, fmt.Errorf("%s: unsupported apiVersion %q or kind %q: want %s %s or %s", id, apiVersion, id.kind, api.Group, api.KindClaim, api.KindTemplate)
	}
	data, err := s.convertChecked(obj, id, to)
	if err != nil {
		s.metrics.conversion(from, to.Version, "failure")
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	s.cache.put(key, data, from)
	s.metrics.conversion(from, to.Version, "success")
	return data, nil
}

// convertChecked converts obj and encodes the result once it passes the
// apiserver's contract and the depth a review can carry.
func (s *Server) convertChecked(obj map[string]interface{}, id objectID, to schema.GroupVersion) (data []byte, err error) {
	defer s.catch("/convert", func(p any) { data, err = nil, fmt.Errorf("converter panicked: %v", p) })
	out, err := s.cfg.Converter(obj, to.Version)
	if err != nil {
		return nil, err // it says "converting <kind> <name> from … to …"
	}
	if err := checkConverted(obj, out, id, to); err != nil {
		return nil, fmt.Errorf("converted from %s to %s: %w", obj["apiVersion"], to, err)
	}
	if _, ok := out["metadata"].(map[string]interface{}); !ok {
		// kube-apiserver refuses a converted object without metadata, also
		// when it sent none (a server-side apply prunes whole sections);
		// it puts the object's own metadata back over it.
		out = maps.Clone(out)
		out["metadata"] = map[string]interface{}{}
	}
	if data, err = api.AppendJSON(nil, out); err != nil {
		return nil, fmt.Errorf("encoding converted object: %w", err)
	}
	// Conversion can nest deeper than its input (restore data, 1.30 handle
	// data as parameters). Stored, such an object could be read through no
	// version; refused here, the write that would store it fails instead.
	if err := checkDepth(data, convertedDepth(s.cfg.MaxJSONDepth)); err != nil {
		return nil, fmt.Errorf("converted to %s: the result nests deeper than a review may carry (--max-json-depth %d): %w", to, s.cfg.MaxJSONDepth, err)
	}
	return data, nil
}

// servedVersion is the version of apiVersion, and whether the CRD serves
// it: the webhook's one judgement of a desired or a sent version.
func servedVersion(apiVersion string) (string, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return gv.Version, err == nil && gv.Group == api.Group && api.IsServed(gv.Version)
}

// objectID names an object in messages and logs without its contents.
type objectID struct{ kind, namespace, name, uid string }

func identify(obj map[string]interface{}) (id objectID) {
	id.kind, _ = obj["kind"].(string)
	id.namespace, id.name, id.uid = api.Meta(obj)
	return id
}

func (id objectID) String() string {
	s := api.Describe(map[string]interface{}{"kind": id.kind, "metadata": map[string]interface{}{"namespace": id.namespace, "name": id.name}})
	if id.uid != "" {
		s += " (uid " + id.uid + ")"
	}
	return s
}

// checkConverted enforces the apiserver's contract: apiVersion is the
// desired one; kind, name, namespace and uid are unchanged; metadata
// changes only in labels and annotations, which stay string maps.
func checkConverted(in, out map[string]interface{}, id objectID, to schema.GroupVersion) error {
	if out == nil {
		return errors.New("converter returned no object")
	}
	if v, _ := out["apiVersion"].(string); v != to.String() {
		return fmt.Errorf("converter returned apiVersion %q", v)
	}
	if got := identify(out); got != id {
		return fmt.Errorf("converter changed the identity to %s", got)
	}
	inMeta, _ := in["metadata"].(map[string]interface{})
	outMeta, ok := out["metadata"].(map[string]interface{})
	if !ok && out["metadata"] != nil {
		return errors.New("converter returned metadata that is not an object")
	}
	for _, k := range []string{"labels", "annotations"} {
		m, ok := outMeta[k].(map[string]interface{})
		if !ok && outMeta[k] != nil {
			return fmt.Errorf("converter returned metadata.%s that is not an object", k)
		}
		for key, v := range m {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("converter returned metadata.%s that has a non-string value at %q", k, key)
			}
		}
	}
	// Each way: every key but labels and annotations is in both, equal.
	same := func(a, b map[string]interface{}) bool {
		for k, v := range a {
			if w, ok := b[k]; k != "labels" && k != "annotations" && (!ok || !api.DeepEqualJSON(v, w)) {
				return false
			}
		}
		return true
	}
	if !same(inMeta, outMeta) || !same(outMeta, inMeta) {
		return errors.New("converter changed metadata other than labels and annotations")
	}
	return nil
}

func failure(format string, args ...any) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Message: fmt.Sprintf(format, args...)}
}
