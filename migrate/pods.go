package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// podSpecPaths are the kinds whose objects hold a pod spec, and where.
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

// podClaimFields name a pod's claim or template in its resourceClaims entry:
// under `source` in 1.26–1.30, directly in the entry from 1.31 on.
var podClaimFields = []string{"resourceClaimName", "resourceClaimTemplateName"}

// podShape rewrites the resourceClaims of a Pod or of a workload's pod
// template for the release serving version to (see podClaimFields; each
// apiserver rejects the other shape). Going back to 1.26–1.30, a container's
// resources.claims[].request is lost. obj is not modified; ok is false when
// obj is not such an object or needs no change.
func podShape(obj map[string]interface{}, target Target) (out map[string]interface{}, r changes, ok bool) {
	out = api.DeepCopyJSON(obj)
	specs := podSpecsOf(out)
	if len(specs) == 0 {
		return nil, r, false
	}
	for _, ps := range specs {
		rewritePodSpec(ps.spec, ps.prefix, target, &r)
	}
	if len(r.Changed) == 0 && len(r.Lost) == 0 {
		return nil, changes{}, false
	}
	return out, r, true
}

// rewritePodSpec rewrites one pod spec, at prefix in its object, for target.
func rewritePodSpec(spec map[string]interface{}, prefix string, target Target, r *changes) {
	claims, _ := spec["resourceClaims"].([]interface{})
	for i, c := range claims {
		claim, isMap := c.(map[string]interface{})
		if !isMap {
			continue
		}
		at := fmt.Sprintf("%sresourceClaims[%d]", prefix, i)
		if target.Devices {
			if source, isMap := claim["source"].(map[string]interface{}); isMap {
				moveClaimNames(source, claim, at+".source", at, target.Releases+" pods have no source", r)
				delete(claim, "source")
			}
			continue
		}
		source, had := claim["source"].(map[string]interface{})
		if !had {
			source = map[string]interface{}{}
		}
		moveClaimNames(claim, source, at, at+".source", target.Releases+" pods name it under source", r)
		if !had && len(source) > 0 {
			claim["source"] = source
		}
	}
	if !target.Devices {
		containerClaims(spec, prefix, func(path string, ref interface{}) {
			m, _ := ref.(map[string]interface{})
			if _, set := m["request"]; set {
				delete(m, "request")
				r.Lost = append(r.Lost, fmt.Sprintf("%s.request: Kubernetes %s gives a container the whole claim", path, target.Releases))
			}
		})
	}
}

// containerClaims calls f with each entry of the containers' and init
// containers' resources.claims in spec, a pod spec at prefix in its object,
// and the entry's path.
func containerClaims(spec map[string]interface{}, prefix string, f func(path string, ref interface{})) {
	for _, containers := range []string{"initContainers", "containers"} {
		list, _ := spec[containers].([]interface{})
		for i, c := range list {
			container, _ := c.(map[string]interface{})
			resources, _ := container["resources"].(map[string]interface{})
			refs, _ := resources["claims"].([]interface{})
			for j, ref := range refs {
				f(fmt.Sprintf("%s%s[%d].resources.claims[%d]", prefix, containers, i, j), ref)
			}
		}
	}
}

// migrateWorkload migrates a Pod or workload as Object migrates a claim
// (Workload, then ForCreate). One whose pod spec has a field the target
// release lacks is refused: its apiserver would reject or drop the field.
func migrateWorkload(obj map[string]interface{}, target Target, opts Options) (map[string]interface{}, changes, error) {
	out, r, rewritten := podShape(obj, target)
	if !rewritten {
		out = obj
	}
	out, created := forCreate(out, opts)
	r.Dropped = append(created.Dropped, r.Dropped...)
	if errs := append(append(nameErrors(out), claimRefErrors(out)...), podFieldErrors(out, target)...); len(errs) > 0 {
		_, _, _, kind, _ := api.TypeOf(out)
		return nil, r, refusal(kind, out, target, errs)
	}
	r.Warnings = append(r.Warnings, podFieldWarnings(out, target)...)
	return out, r, nil
}

// claimRefErrors returns, for a Pod or workload, each container's claim
// reference that no release reads (a string, not an object with a name),
// as "<path>: <message>".
func claimRefErrors(obj map[string]interface{}) []string {
	var errs []string
	for _, ps := range podSpecsOf(obj) {
		containerClaims(ps.spec, ps.prefix, func(path string, ref interface{}) {
			if _, ok := ref.(map[string]interface{}); !ok {
				errs = append(errs, fmt.Sprintf("%s: %s, where every release reads an object with a name (- name: <the pod's resourceClaims entry>)",
					path, conversion.JSONType(ref)))
			}
		})
	}
	return errs
}

// isWorkload reports whether obj is a Pod or a workload with a pod template
// (podSpecPaths), or an object of another kind (an Argo Rollout, a JobSet, a
// LeaderWorkerSet, a Kubeflow job) with pod templates that claim devices.
func isWorkload(obj map[string]interface{}) bool {
	apiVersion, _, _, kind, _ := api.TypeOf(obj)
	_, known := podSpecPaths[apiVersion+"/"+kind]
	return known || len(podSpecsOf(obj)) > 0
}

// UsesClaims reports whether obj, a Pod or workload, has a pod spec with
// resourceClaims: claimbridge export reads only those.
func UsesClaims(obj map[string]interface{}) bool {
	return slices.ContainsFunc(podSpecsOf(obj), func(ps podSpecAt) bool {
		claims, _ := ps.spec["resourceClaims"].([]interface{})
		return len(claims) > 0
	})
}

// podSpecAt is a pod spec and its path in its object, ending in ".".
type podSpecAt struct {
	spec   map[string]interface{}
	prefix string
}

// podSpecsOf are the pod specs of obj: the one of a Pod or built-in
// workload (podSpecPaths); in an object of another kind outside the DRA
// groups, every object found by its shape (a containers list) that has
// resourceClaims.
func podSpecsOf(obj map[string]interface{}) []podSpecAt {
	apiVersion, group, _, kind, _ := api.TypeOf(obj)
	if _, known := podSpecPaths[apiVersion+"/"+kind]; known {
		if spec, prefix := podSpecOf(obj); spec != nil {
			return []podSpecAt{{spec, prefix}}
		}
		return nil
	}
	if api.IsGroup(group) || kind == "" {
		return nil
	}
	var found []podSpecAt
	var walk func(v interface{}, path string)
	walk = func(v interface{}, path string) {
		switch v := v.(type) {
		case map[string]interface{}:
			if _, ok := v["containers"].([]interface{}); ok {
				if _, claims := v["resourceClaims"]; claims {
					found = append(found, podSpecAt{v, path + "."})
				}
				return
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if path == "" && (k == "metadata" || k == "status") {
					continue
				}
				walk(v[k], strings.TrimPrefix(path+"."+k, "."))
			}
		case []interface{}:
			for i, e := range v {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(obj, "")
	return found
}

// controlledPod reports whether obj is a Pod a controller created, and names
// the controller: it re-creates the pod, so a copy would be one too many.
func controlledPod(obj map[string]interface{}) (owner string, ok bool) {
	if apiVersion, _, _, kind, _ := api.TypeOf(obj); apiVersion != "v1" || kind != "Pod" {
		return "", false
	}
	refs, _ := api.Metadata(obj)["ownerReferences"].([]interface{})
	for _, r := range refs {
		if ref, _ := r.(map[string]interface{}); ref["controller"] == true {
			return str(ref, "kind") + " " + refOf(str(api.Metadata(obj), "namespace"), str(ref, "name")), true
		}
	}
	return "", false
}

// forCreate returns a copy of a Pod or workload without what the old cluster
// set on it, as Object does for claims, and without a Pod's spec.nodeName:
// the pod must pass the new scheduler, which allocates its claims.
func forCreate(obj map[string]interface{}, opts Options) (map[string]interface{}, changes) {
	var r changes
	fresh, stale := withoutClientStale(obj)
	out := api.DeepCopyJSON(fresh)
	dropServerSet(api.Metadata(out), opts, &r)
	for _, k := range stale {
		r.Dropped = append(r.Dropped, "metadata.annotations["+k+"]")
	}
	api.PruneAnnotations(out)
	r.drop(out, "status", "status")
	if apiVersion, _, _, kind, _ := api.TypeOf(out); apiVersion == "v1" && kind == "Pod" {
		spec, _ := out["spec"].(map[string]interface{})
		r.drop(spec, "nodeName", "spec.nodeName (the old cluster's scheduler chose it; the new one schedules the pod and allocates its claims)")
	}
	return out, r
}

// moveClaimNames moves podClaimFields from the map at fromAt to the one at
// toAt. A field already there with another value keeps it; the moved one is lost.
func moveClaimNames(from, to map[string]interface{}, fromAt, toAt, why string, r *changes) {
	for _, f := range podClaimFields {
		v, set := from[f]
		if !set {
			continue
		}
		delete(from, f)
		if kept, there := to[f]; !there {
			to[f] = v
		} else if !api.DeepEqualJSON(kept, v) {
			r.Lost = append(r.Lost, fmt.Sprintf("%s.%s: %v, because the entry also has %s.%s: %v, which the target's pods read", fromAt, f, v, toAt, f, kept))
			continue
		}
		r.Changed = append(r.Changed, fmt.Sprintf("%s.%s -> %s.%s (Kubernetes %s)", fromAt, f, toAt, f, why))
	}
}

// podClaimNameAnnotation is the annotation the resourceclaim controller
// (1.28 and later) puts on the claim it generates for a pod from a
// ResourceClaimTemplate: the name of the pod's resourceClaims entry.
const podClaimNameAnnotation = "resource.kubernetes.io/pod-claim-name"

// generatedForPod reports whether the resourceclaim controller generated
// claim, a ResourceClaim, for a pod (its controller owner is a Pod), and
// returns the pod as
// "namespace/name" and, when annotated, its claim entry. migrate does not
// re-create such a claim: the new cluster's controller generates a new one
// for the re-created pod, so a copy would leak, or, with the old owner
// reference, be garbage collected at once.
func generatedForPod(claim map[string]interface{}) (pod, entry string, ok bool) {
	meta := api.Metadata(claim)
	refs, _ := meta["ownerReferences"].([]interface{})
	for _, r := range refs {
		ref, _ := r.(map[string]interface{})
		if ref["apiVersion"] == "v1" && ref["kind"] == "Pod" && ref["controller"] == true {
			entry, _ = api.Annotations(claim)[podClaimNameAnnotation].(string)
			return str(meta, "namespace") + "/" + str(ref, "name"), entry, true
		}
	}
	return "", "", false
}
