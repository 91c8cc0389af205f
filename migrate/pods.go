package migrate

import (
	"fmt"

	"github.com/claimbridge/claimbridge/api"
)

// podSpecPaths are the kinds whose objects hold a pod spec, and where: the
// Pods and workloads that DRA manifests carry beside their claims and
// templates.
var podSpecPaths = map[string][]string{
	"v1/Pod":                   {"spec"},
	"v1/PodTemplate":           {"template", "spec"},
	"v1/ReplicationController": {"spec", "template", "spec"},
	"apps/v1/Deployment":       {"spec", "template", "spec"},
	"apps/v1/ReplicaSet":       {"spec", "template", "spec"},
	"apps/v1/StatefulSet":      {"spec", "template", "spec"},
	"apps/v1/DaemonSet":        {"spec", "template", "spec"},
	"batch/v1/Job":             {"spec", "template", "spec"},
	"batch/v1/CronJob":         {"spec", "jobTemplate", "spec", "template", "spec"},
}

// podClaimFields are the fields of a pod's resourceClaims entry that name
// its claim or template: under `source` in 1.26–1.30 (v1alpha1, v1alpha2),
// directly in the entry from 1.31 on (v1alpha3 and later), which removed
// `source`.
var podClaimFields = []string{"resourceClaimName", "resourceClaimTemplateName"}

// Workload rewrites the pod-level resourceClaims of a Pod, or of the pod
// template of a workload (podSpecPaths), for the release serving version
// to: 1.26–1.30 pods name their claim or template under
// resourceClaims[].source, 1.31 and later directly in resourceClaims[]
// (a 1.31+ apiserver rejects `source` as an unknown field, a 1.26–1.30 one
// the direct fields). Going back to 1.26–1.30, a container's
// resources.claims[].request (1.31+: one request of the claim) has no
// place and is lost. obj is not modified; ok is false when obj is not such
// an object or needs no change.
func Workload(obj map[string]interface{}, to string) (out map[string]interface{}, r Report, ok bool) {
	target, err := targetFor(to)
	if err != nil {
		return nil, r, false
	}
	apiVersion, _, _, kind, _ := api.TypeOf(obj)
	path, known := podSpecPaths[apiVersion+"/"+kind]
	if !known {
		return nil, r, false
	}
	out = api.DeepCopyJSON(obj)
	spec := map[string]interface{}(out)
	prefix := ""
	for _, p := range path {
		next, isMap := spec[p].(map[string]interface{})
		if !isMap {
			return nil, r, false
		}
		spec = next
		prefix += p + "."
	}
	claims, _ := spec["resourceClaims"].([]interface{})
	for i, c := range claims {
		claim, isMap := c.(map[string]interface{})
		if !isMap {
			continue
		}
		at := fmt.Sprintf("%sresourceClaims[%d]", prefix, i)
		if target.Devices {
			source, isMap := claim["source"].(map[string]interface{})
			if !isMap {
				continue
			}
			for _, f := range podClaimFields {
				if v, set := source[f]; set {
					if _, direct := claim[f]; !direct {
						claim[f] = v
					}
					r.Changed = append(r.Changed, fmt.Sprintf("%s.source.%s -> %s.%s (Kubernetes %s pods have no source)", at, f, at, f, target.Releases))
				}
			}
			delete(claim, "source")
			continue
		}
		source, _ := claim["source"].(map[string]interface{})
		for _, f := range podClaimFields {
			v, set := claim[f]
			if !set {
				continue
			}
			if source == nil {
				source = map[string]interface{}{}
				claim["source"] = source
			}
			if _, there := source[f]; !there {
				source[f] = v
			}
			delete(claim, f)
			r.Changed = append(r.Changed, fmt.Sprintf("%s.%s -> %s.source.%s (Kubernetes %s pods name it under source)", at, f, at, f, target.Releases))
		}
	}
	if !target.Devices {
		for _, containers := range []string{"initContainers", "containers"} {
			list, _ := spec[containers].([]interface{})
			for i, c := range list {
				container, _ := c.(map[string]interface{})
				resources, _ := container["resources"].(map[string]interface{})
				refs, _ := resources["claims"].([]interface{})
				for j, ref := range refs {
					m, _ := ref.(map[string]interface{})
					if _, set := m["request"]; set {
						delete(m, "request")
						r.Lost = append(r.Lost, fmt.Sprintf("%s%s[%d].resources.claims[%d].request: Kubernetes %s gives a container the whole claim", prefix, containers, i, j, target.Releases))
					}
				}
			}
		}
	}
	if len(r.Changed) == 0 && len(r.Lost) == 0 {
		return nil, Report{}, false
	}
	return out, r, true
}
