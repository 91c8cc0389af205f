package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
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

// Runbook says how to keep the objects stored by release from that release
// to cannot read (lost: how many of each resource), in claimbridge's
// commands; drivers publish their ResourceSlices again.
func Runbook(from, to int, lost map[string]int) string {
	var counts []string
	for _, resource := range slices.Sorted(maps.Keys(lost)) {
		counts = append(counts, fmt.Sprintf("%s: %d", resource, lost[resource]))
	}
	return fmt.Sprintf("Kubernetes 1.%d cannot read the objects stored by 1.%d (%s), and lists none of their kinds while one is stored: before the change, "+
		"save them with `claimbridge export --context CONTEXT > dra.yaml`, delete them (the drivers publish their ResourceSlices again), "+
		"change the release, then re-create them with `claimbridge migrate -f dra.yaml --target-context CONTEXT --apply`",
		to, from, strings.Join(counts, ", "))
}
