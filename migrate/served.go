package migrate

import (
	"fmt"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

// NotServed says why the release serving version to rejects obj, a
// resource.k8s.io object that is not converted: another version, or a kind
// that version does not have there. "" for any other object.
func NotServed(obj map[string]interface{}, target Target) string {
	to := target.Version
	_, group, version, kind, _ := api.TypeOf(obj)
	switch {
	case group != api.UpstreamGroup:
		return ""
	case kind == api.KindDeviceTaintRule && api.CreatedIn(kind, target.Minor) == "":
		return fmt.Sprintf("kind: Kubernetes %s has no %s in %s/%s: its apiserver rejects this object", target.Releases, kind, group, to)
	case version != to:
		return fmt.Sprintf("apiVersion: Kubernetes %s serves %s/%s, not %s: its apiserver rejects this object", target.Releases, group, to, version)
	case api.CreatedIn(kind, target.Minor) != to:
		return fmt.Sprintf("kind: Kubernetes %s has no %s in %s/%s: its apiserver rejects this object", target.Releases, kind, group, to)
	}
	return ""
}

// nameErrors are the errors an apiserver gives for the name of obj, a Pod,
// a workload or a resource.k8s.io object: all have DNS subdomain names.
func nameErrors(obj map[string]interface{}) []string {
	meta := api.Metadata(obj)
	path := field.NewPath("metadata")
	name, _ := meta["name"].(string)
	generateName, _ := meta["generateName"].(string)
	var errs []string
	switch {
	case name != "":
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(path.Child("name"), name, msg).Error())
		}
	case generateName != "":
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(generateName, true) {
			errs = append(errs, field.Invalid(path.Child("generateName"), generateName, msg).Error())
		}
	default:
		errs = append(errs, field.Required(path.Child("name"), "name or generateName is required").Error())
	}
	return errs
}
