package webhook

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
)

// A Guard tells each resource.k8s.io write what the release it guards for
// will do with it (/guard): the upgrade guard.
type Guard struct {
	// Release names the guarded release: "1.38".
	Release string
	// Judge is `claimbridge validate --to`'s verdict on one object of
	// resource.k8s.io: what the release rejects, and what it warns of.
	Judge func(obj map[string]interface{}) (errs, warnings []string)
	// Enforce denies what the release rejects; otherwise it is a warning.
	Enforce bool
}

// handleGuard decides /guard: a created or updated object (never a
// subresource) is admitted with the guarded release's findings as
// warnings, in the judge's words; with Enforce, what that release rejects
// is denied.
func (s *Server) handleGuard(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse {
	g := s.cfg.Guard
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update || req.SubResource != "" || req.Kind.Group != api.UpstreamGroup {
		return allowed(nil)
	}
	obj, err := api.DecodeObject(req.Object.Raw)
	if err != nil {
		return allowed(nil) // the apiserver decoded it: nothing the guard can add
	}
	errs, warnings := g.Judge(obj)
	s.metrics.guarded(req.Kind.Kind, g.Release, errs, warnings)
	rejects := make([]string, len(errs))
	for i, e := range errs {
		rejects[i] = fmt.Sprintf("Kubernetes %s would reject this: %s", g.Release, e)
	}
	if g.Enforce && len(errs) > 0 {
		gr := schema.GroupResource{Group: req.Resource.Group, Resource: req.Resource.Resource}
		return denied(apierrors.NewForbidden(gr, req.Name, fmt.Errorf("%s", strings.Join(rejects, "; "))))
	}
	return allowed(append(rejects, warnings...))
}

// guardReason is the reason label of a finding of the guard: rejected,
// dropped (a field its gates drop), deprecated or warning.
func guardReason(warning string) string {
	switch {
	case strings.Contains(warning, " drops it on a create: "):
		return "dropped"
	case strings.Contains(warning, " is deprecated in Kubernetes "):
		return "deprecated"
	}
	return "warning"
}
