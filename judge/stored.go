package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// Stored is release to's verdict, with c's settings, on obj of kind,
// stored by release from, after an upgrade or a rollback in place: it
// keeps etcd, reads what is stored through the versions its scheme still
// has, and neither drops nor re-checks a stored field. An error when to has
// no such kind, serves none of it, or cannot read it (lost is then its
// resource: LIST of it fails); a warning for each field to does not have,
// which it reads without and drops at its next write.
func Stored(obj map[string]interface{}, c api.Cluster, kind string, from, to int) (errs, warnings []string, lost string) {
	version, readable, served := c.Keeps(kind, from, to)
	switch resource := api.Resource(kind); {
	case !served && !slices.ContainsFunc(api.ConversionVersions, func(v string) bool { return api.Defaults(to).Has(v, kind) }):
		return []string{fmt.Sprintf("Kubernetes 1.%d has no %s: it stays in etcd, unread", to, kind)}, nil, ""
	case !served:
		return []string{fmt.Sprintf("Kubernetes 1.%d serves no %s with these flags: it stays in etcd, out of reach", to, kind)}, nil, ""
	case !readable:
		return []string{fmt.Sprintf("stored in %s/%s, which Kubernetes 1.%d cannot read: there GET and UPDATE of it fail, and LIST of %s fails for every client, "+
			"the scheduler and kubelet too, until it is deleted", api.UpstreamGroup, version, to, resource)}, nil, resource
	}
	if !slices.Contains(api.UpstreamOnlyVersions, versionOf(obj)) || kind == api.KindResourceSlice || kind == api.KindDeviceTaintRule {
		return nil, nil, ""
	}
	_, unknown, _ := rules{Cluster: api.Defaults(to)}.strip(obj, versionOf(obj), kind)
	for _, e := range unknown {
		warnings = append(warnings, fmt.Sprintf("%s: Kubernetes 1.%d does not have it: it reads the stored object without it, and drops it at its next write", e.Field, to))
	}
	return nil, warnings, ""
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
