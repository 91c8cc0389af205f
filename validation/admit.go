package validation

import (
	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/defaulting"
)

// Admit is the admission of a write read from a manifest, as a cluster
// with claimbridge's webhooks runs it: kube-apiserver names the object
// (AsSubmitted) and gives an update the stored object in its version; the
// /default webhook patches a claim or template of the CRD's group
// (defaulting.Patch); /validate judges the result (Validate). Warnings are
// /default's, then /validate's. `claimbridge validate` and `migrate` call
// it; the webhook runs the same two steps as its two endpoints.
func Admit(req Request) (Response, error) {
	t, err := parseObjectType(req.Object)
	if err != nil {
		return Response{}, err
	}
	req.Object = AsSubmitted(req.Object, req.Operation)
	if req.OldObject != nil {
		req.OldObject = api.InDefaultNamespace(req.OldObject)
		if old, err := oldInVersion(req.OldObject, t); err == nil {
			req.OldObject = old
		} // else Validate says why
	}
	var defaulted []string
	if t.group == api.Group && req.SubResource == "" {
		old := func() (map[string]interface{}, error) { return req.OldObject, nil }
		ops, warnings, err := defaulting.Patch(req.Object, old, t.version, t.kind)
		if err != nil {
			return Response{}, err
		}
		if len(ops) > 0 {
			obj := api.DeepCopyJSON(req.Object)
			if err := conversion.ApplyPatch(obj, ops); err != nil {
				return Response{}, err
			}
			req.Object = obj
		}
		defaulted = warnings
	}
	resp, err := validate(t, req)
	resp.Warnings = append(defaulted, resp.Warnings...)
	return resp, err
}

// AsSubmitted is obj as kube-apiserver hands a write of op to admission:
// in namespace "default" when it names none (kubectl takes its context's),
// and, for a create, with the name its generateName gives
// (WithGeneratedName). obj is not modified.
func AsSubmitted(obj map[string]interface{}, op Operation) map[string]interface{} {
	obj = api.InDefaultNamespace(obj)
	if op == Create {
		obj = WithGeneratedName(obj)
	}
	return obj
}
