package judge

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/validation"
)

// A StoredVerdict is what a release does with an object stored in etcd
// after an upgrade or a rollback in place.
type StoredVerdict struct {
	// Unreached says why the release does not reach the object: it has no
	// such kind, serves none of it, or cannot read it; "" when kept.
	Unreached string
	// Lost is the object's resource when the release cannot read it: LIST
	// of it fails.
	Lost string
	// Errors are the rules of the release that a kept template's spec
	// breaks: each claim made from it is a create.
	Errors []string
	// Warnings name each field the release does not have, which it reads
	// without and drops at its next write.
	Warnings []string
}

// Stored is release to's verdict, with c's settings, on obj of kind,
// stored as release from writes it: to keeps etcd, reads what is stored
// through the versions its scheme still has, and neither drops nor
// re-checks a stored field.
func Stored(obj map[string]interface{}, c api.Cluster, kind string, from, to int) (v StoredVerdict) {
	version, readable, served := c.Keeps(kind, from, to)
	switch resource := api.Resource(kind); {
	case !served && !slices.ContainsFunc(api.ConversionVersions, func(v string) bool { return api.Defaults(to).Has(v, kind) }):
		return StoredVerdict{Unreached: fmt.Sprintf("Kubernetes 1.%d has no %s: it stays in etcd, unread", to, kind)}
	case !served:
		return StoredVerdict{Unreached: fmt.Sprintf("Kubernetes 1.%d serves no %s with these flags: it stays in etcd, out of reach", to, kind)}
	case !readable:
		return StoredVerdict{Lost: resource, Unreached: fmt.Sprintf("stored in %s/%s, which Kubernetes 1.%d cannot read: there GET and UPDATE of it fail, and LIST of %s fails for every client, "+
			"the scheduler and kubelet too, until it is deleted", api.UpstreamGroup, version, to, resource)}
	}
	if kind == api.KindClaim {
		v.Warnings = statusUnknown(obj, to)
	}
	errs, warnings := counted(obj, c, kind, to)
	v.Errors, v.Warnings = append(v.Errors, errs...), append(v.Warnings, warnings...)
	v.Warnings = append(v.Warnings, unbound(obj, c, kind, to)...)
	v.Warnings = append(v.Warnings, ignored(obj, c, kind, to)...)
	if !slices.Contains(api.UpstreamOnlyVersions, versionOf(obj)) || kind == api.KindResourceSlice || kind == api.KindDeviceTaintRule {
		return v
	}
	_, unknown, _ := rules{Cluster: api.Defaults(to)}.strip(obj, versionOf(obj), kind)
	for _, e := range unknown {
		v.Warnings = append(v.Warnings, fmt.Sprintf("%s: Kubernetes 1.%d does not have it: it reads the stored object without it, and drops it at its next write", e.Field, to))
	}
	if kind != api.KindTemplate {
		return v
	}
	invalid, _ := Validate(validation.AsSubmitted(obj, validation.Create), c, kind)
	for _, e := range invalid {
		consequence := "keeps the template, but refuses each claim made from it: its Pods stay pending"
		if api.Has(to, api.TemplateUpdatesChecked) && !strings.Contains(e.Field, ".capacity.requests") { // unchanged, these are taken as stored
			consequence += ", and its next update of the template fails"
		}
		v.Errors = append(v.Errors, fmt.Sprintf("%v (Kubernetes 1.%d %s)", e, to, consequence))
	}
	return v
}

// statusUnknown names, once each, the fields of a stored claim's status
// (api.StatusFields) that release to does not have. The allocation's
// timestamp is named only with a result's bindingConditions: the
// scheduler times out their binding from it, and nothing else reads it
// (kube-scheduler's isClaimTimeout).
func statusUnknown(claim map[string]interface{}, to int) (warnings []string) {
	status := asObject(claim["status"])
	allocation := asObject(status["allocation"])
	type place struct {
		m    map[string]interface{}
		path string
		in   int
	}
	at := []place{{status, "status", api.InClaimStatus}, {allocation, "status.allocation", api.InAllocation}}
	said := map[string]bool{"allocationTimestamp": true} // until a result has bindingConditions
	for i, r := range asArray(asObject(allocation["devices"])["results"]) {
		at = append(at, place{asObject(r), fmt.Sprintf("status.allocation.devices.results[%d]", i), api.InResult})
		if asObject(r)["bindingConditions"] != nil {
			delete(said, "allocationTimestamp")
		}
	}
	for _, a := range at {
		for _, f := range api.StatusFields {
			if _, ok := a.m[f.Name]; ok && f.In == a.in && to < f.Added && !said[f.Name] {
				said[f.Name] = true
				warnings = append(warnings, fmt.Sprintf("%s.%s: Kubernetes 1.%d does not have it (1.%d+): it reads the claim without it, and its scheduler and controllers drop it at their next write of the status",
					a.path, f.Name, to, f.Added))
			}
		}
	}
	return warnings
}

// counted says where release to's scheduler, with c's gates, counts what a
// stored slice offers or a claim holds otherwise than the release that
// wrote it. A slice's partitions read without their counters (before
// counters, or 1.34 reading counters kept in a slice of their own) are
// each allocated as a whole device: what they share goes to two claims (an
// error). A gate that is off, or 1.33 not finding a counter set, holds
// devices back (warnings).
func counted(obj map[string]interface{}, c api.Cluster, kind string, to int) (errs, warnings []string) {
	spec, counters, shares := asObject(obj["spec"]), api.FieldOf("consumesCounters"), api.FieldOf("allowMultipleAllocations")
	switch kind {
	case api.KindResourceSlice:
		own := map[string]bool{}
		for _, set := range asArray(spec["sharedCounters"]) {
			own[fmt.Sprint(asObject(set)["name"])] = true
		}
		first, partitions := devicesWith(obj, "consumesCounters")
		elsewhere := ""
		for i, d := range asArray(spec["devices"]) {
			d, at := asObject(d), fmt.Sprintf("spec.devices[%d]", i)
			if basic, ok := d["basic"]; ok { // v1alpha3, v1beta1
				d, at = asObject(basic), at+".basic"
			}
			for j, use := range asArray(d["consumesCounters"]) {
				if set := fmt.Sprint(asObject(use)["counterSet"]); !own[set] && elsewhere == "" {
					elsewhere = fmt.Sprintf("%s.consumesCounters[%d].counterSet: Kubernetes 1.%d looks for counter set %q in the device's own slice, and this slice does not hold it (from 1.%d a slice holds devices or counters, not both)",
						at, j, to, set, api.Since(api.SliceSplit))
				}
			}
		}
		switch {
		case partitions == 0:
		case to < counters.Added:
			errs = append(errs, fmt.Sprintf("%s: Kubernetes 1.%d has no counters: it reads the slice without them, and its scheduler allocates each device that consumes counters (%d in this slice) as a whole device, "+
				"so devices that share a counter are allocated to two claims at once", first, to, partitions))
		case !c.Enabled(counters.Gate):
			warnings = append(warnings, fmt.Sprintf("%s: Kubernetes 1.%d with %s off allocates no device that consumes counters (%d in this slice)", first, to, counters.Gate, partitions))
		case elsewhere == "" || api.Has(to, api.SliceSplit):
		case api.Has(to, api.UnheldCountersAllocated):
			errs = append(errs, elsewhere+": its scheduler allocates the devices that consume it without counting, so devices that share a counter are allocated to two claims at once")
		default:
			warnings = append(warnings, elsewhere+": its scheduler allocates none of the devices that consume it")
		}
	case api.KindClaim:
		if to < shares.Added || c.Enabled(shares.Gate) {
			return nil, nil
		}
		for i, r := range asArray(asObject(asObject(asObject(obj["status"])["allocation"])["devices"])["results"]) {
			if r := asObject(r); r["shareID"] != nil {
				warnings = append(warnings, fmt.Sprintf("status.allocation.devices.results[%d].shareID: Kubernetes 1.%d with %s off counts device %v/%v/%v as wholly allocated: "+
					"no other claim gets a share of it until every claim that shares it is released", i, to, shares.Gate, r["driver"], r["pool"], r["device"]))
			}
		}
	}
	return errs, warnings
}

// unbound says what release to's scheduler does with binding conditions
// when it has them and its gates are off: it allocates no device of a
// slice that has them (the allocator's isSelectable), and binds a Pod whose
// claim waits on them at once (its PreBind). A release before 1.34 has no
// binding conditions: statusUnknown names them.
func unbound(obj map[string]interface{}, c api.Cluster, kind string, to int) (warnings []string) {
	binding := api.FieldOf("bindingConditions")
	off := binding.Gate
	switch {
	case to < binding.Added, c.Enabled(off) && c.Enabled("DRAResourceClaimDeviceStatus"):
		return nil
	case c.Enabled(off):
		off = "DRAResourceClaimDeviceStatus"
	}
	switch kind {
	case api.KindResourceSlice:
		if first, n := devicesWith(obj, "bindingConditions"); n > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: Kubernetes 1.%d with %s off allocates no device with binding conditions (%d in this slice)", first, to, off, n))
		}
	case api.KindClaim:
		status := asObject(obj["status"])
		for i, r := range asArray(asObject(asObject(status["allocation"])["devices"])["results"]) {
			r := asObject(r)
			if cond := unmet(r, status); cond != "" {
				held := ""
				if holders := Holders(obj); len(holders) > 0 {
					held = " (" + HeldBy(holders) + ")"
				}
				warnings = append(warnings, fmt.Sprintf("status.allocation.devices.results[%d].bindingConditions: Kubernetes 1.%d with %s off does not wait for them, and condition %q of device %v/%v/%v is not True yet: "+
					"a Pod of the claim not yet on a node is bound there before the device is ready%s; change once it is True", i, to, off, cond, r["driver"], r["pool"], r["device"], held))
			}
		}
	}
	return warnings
}

// ignored says what release to, where it has the field and its gate is
// off, ignores of a stored object: a class's extended resource (its
// scheduler gives no Pod the resource from the class, and counts the
// devices Pods hold through it) and a slice's device taints (its scheduler
// allocates tainted devices, and its controller-manager evicts no Pod).
func ignored(obj map[string]interface{}, c api.Cluster, kind string, to int) []string {
	switch kind {
	case api.KindDeviceClass:
		f := api.FieldOf("extendedResourceName")
		if name, ok := asObject(obj["spec"])["extendedResourceName"]; ok && to >= f.Added && !c.Enabled(f.Gate) {
			return []string{fmt.Sprintf("spec.extendedResourceName: Kubernetes 1.%d with %s off gives no Pod %v from this class: a Pod that requests it stays pending, "+
				"unless a device plugin offers it; the devices Pods hold through it stay theirs", to, f.Gate, name)}
		}
	case api.KindResourceSlice:
		f := api.FieldOf("taints")
		if first, n := devicesWith(obj, "taints"); n > 0 && to >= f.Added && !c.Enabled(f.Gate) {
			return []string{fmt.Sprintf("%s: Kubernetes 1.%d with %s off ignores device taints: its scheduler allocates the tainted devices (%d in this slice), "+
				"and no Pod is evicted for a NoExecute taint", first, to, f.Gate, n)}
		}
	}
	return nil
}

// devicesWith is the path of the first device of a stored slice that has
// field (in its basic in v1alpha3 and v1beta1), and how many have it.
func devicesWith(slice map[string]interface{}, field string) (first string, n int) {
	for i, d := range asArray(asObject(slice["spec"])["devices"]) {
		d, at := asObject(d), fmt.Sprintf("spec.devices[%d]", i)
		if basic, ok := d["basic"]; ok {
			d, at = asObject(basic), at+".basic"
		}
		if len(asArray(d[field])) > 0 {
			first = cmp.Or(first, at+"."+field)
			n++
		}
	}
	return first, n
}

// unmet is the first of an allocation result's bindingConditions that the
// claim's status.devices does not hold True for its device; "" when all
// are.
func unmet(result, status map[string]interface{}) string {
	for _, want := range asArray(result["bindingConditions"]) {
		met := slices.ContainsFunc(asArray(status["devices"]), func(v interface{}) bool {
			d := asObject(v)
			return d["driver"] == result["driver"] && d["pool"] == result["pool"] && d["device"] == result["device"] &&
				slices.ContainsFunc(asArray(d["conditions"]), func(c interface{}) bool { return asObject(c)["type"] == want && asObject(c)["status"] == "True" })
		})
		if !met {
			return fmt.Sprint(want)
		}
	}
	return ""
}

// Reservations judges a stored claim's status.reservedFor against what
// release to, patch (-1: not known), allows: over its limit, each update of
// the claim's status fails; a claim re-created there (recreated: the
// runbook's, for a claim to cannot read) is held by as many Pods as the
// limit, and the others stay pending. It returns an error, or a warning
// when the patch decides, naming the Pods that hold the claim; "" when it
// fits.
func Reservations(claim map[string]interface{}, to, patch int, recreated bool) (severity, msg string) {
	reserved := asArray(asObject(claim["status"])["reservedFor"])
	limit, sure := api.ReservedForLimit(to, patch)
	if len(reserved) <= limit {
		return "", ""
	}
	consequence := "each update of its status fails, so no Pod's reservation is released and no new Pod can use it"
	if recreated {
		consequence = fmt.Sprintf("re-created there, as the runbook says, it is held by %d of its Pods, and the other %d stay pending", limit, len(reserved)-limit)
	}
	if !sure {
		return report.Warning, fmt.Sprintf("it holds %d reservations: Kubernetes 1.32.0 allows %d, 1.32.1 and later 256; name the patch the change lands on (--to v1.32.1), else on 1.32.0 %s (%s)",
			len(reserved), limit, consequence, HeldBy(Holders(claim)))
	}
	return report.Error, fmt.Sprintf("it holds %d reservations, and Kubernetes 1.%d allows %d: %s (%s)", len(reserved), to, limit, consequence, HeldBy(Holders(claim)))
}

// Holders names the Pods that hold a claim (its status.reservedFor):
// "Pod ns/name holds claim ns/claim", each.
func Holders(claim map[string]interface{}) []string {
	meta := api.Metadata(claim)
	var out []string
	for _, pod := range Pods(claim) {
		out = append(out, fmt.Sprintf("Pod %s holds claim %v/%v", pod, meta["namespace"], meta["name"]))
	}
	return out
}

// Pods are the Pods that hold a claim (its status.reservedFor), each
// "namespace/name".
func Pods(claim map[string]interface{}) []string {
	ns, _ := api.Metadata(claim)["namespace"].(string)
	var out []string
	for _, r := range asArray(asObject(claim["status"])["reservedFor"]) {
		if ref, _ := r.(map[string]interface{}); ref["resource"] == "pods" {
			out = append(out, fmt.Sprintf("%s/%v", ns, ref["name"]))
		}
	}
	return out
}

// HeldBy says holders (Holders), five at the most, then how many more.
func HeldBy(holders []string) string { return strings.Join(capped(holders, " Pods"), "; ") }

// Runbook says how to keep the objects stored by release from that release
// to cannot read (lost: how many of each resource), gentlest first. Where
// from's kube-apiserver can store what to reads (--min-compatibility-version,
// from 1.35, down to three releases back), they are rewritten in place:
// nothing is deleted. Else they are saved, deleted and re-created, and the
// Pods that hold the claims deleted (held, Holders) are named, five at the
// most.
func Runbook(from, to int, lost map[string]int, held []string) string {
	var counts []string
	resources := slices.Sorted(maps.Keys(lost))
	for _, resource := range resources {
		counts = append(counts, fmt.Sprintf("%s: %d", resource, lost[resource]))
	}
	msg := fmt.Sprintf("Kubernetes 1.%d cannot read the objects stored by 1.%d (%s), and lists none of their kinds while one is stored: before the change, ", to, from, strings.Join(counts, ", "))
	if Rewritable(from, to, resources) {
		return msg + fmt.Sprintf("keep them in place with `claimbridge upgrade --to 1.%d`: it has you restart kube-apiserver 1.%d with --min-compatibility-version=1.%d, "+
			"so that it stores what 1.%d reads, then rewrites each as it is; nothing is deleted and no Pod stops", to, from, to, to)
	}
	msg += fmt.Sprintf("save them with `claimbridge upgrade --to 1.%d --save dra.yaml`, which deletes them once saved (the drivers publish their ResourceSlices again), "+
		"change the release, then run it again on 1.%d: it re-creates them", to, to)
	if len(held) > 0 {
		msg += fmt.Sprintf(". Deleting the claims stops what runs: %s. A claim a Pod holds stays Terminating until the Pod ends (its delete-protection finalizer): "+
			"stop these Pods first, and start them again once the claims are re-created", HeldBy(held))
	}
	return msg
}

// Rewritable reports whether the kube-apiserver of release from can store
// each of resources as release to reads it: with --min-compatibility-version
// (1.35 and later, down to three releases back) it stores what the release
// after to would.
func Rewritable(from, to int, resources []string) bool {
	if from < 35 || to >= from || to < from-3 {
		return false
	}
	return !slices.ContainsFunc(resources, func(resource string) bool {
		kind := api.KindOfResource(resource)
		return !api.FollowsCompatibility(kind) || !api.Decodes(kind, api.StoredIn(kind, to+1), to)
	})
}
