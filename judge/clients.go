package judge

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/report"
)

// Clients are who reads and writes a cluster's DRA objects besides its
// control plane: its nodes' kubelets, the field managers of its stored
// objects, and the deprecated versions requested of its kube-apiserver.
type Clients struct {
	// Kubelets are the kubelet version of each node, by node name
	// (status.nodeInfo.kubeletVersion, or a kind node's image tag).
	Kubelets map[string]string
	// Writes count the objects of each kind by what last wrote them: a
	// managedFields entry's manager and apiVersion's version.
	Writes map[Writer]map[string]int
	// Requested are the versions of resource.k8s.io requested since
	// kube-apiserver started (apiserver_requested_deprecated_apis).
	Requested []Request
	// Unknown count, by kubelet release, the stored claims that use each
	// field the release does not have (AddWrites, once Kubelets are set).
	Unknown map[int]map[string]int
}

// A Writer is a field manager and the resource.k8s.io version it wrote
// through.
type Writer struct{ Manager, Version string }

// A Request is a deprecated resource requested of kube-apiserver: its
// version, resource and the release that removes it ("1.38").
type Request struct{ Version, Resource, Removed string }

// AddWrites counts obj of kind under what each of its field managers last
// wrote it through: of a manager's managedFields entries (one per version
// it updated through), the newest; of two written in the same second
// (entries keep seconds), the newer version.
func (c *Clients) AddWrites(obj map[string]interface{}, kind string) {
	entries, _ := api.Metadata(obj)["managedFields"].([]interface{})
	last := map[string][2]string{} // by manager: time, version
	for _, e := range entries {
		m, _ := e.(map[string]interface{})
		manager, _ := m["manager"].(string)
		apiVersion, _ := m["apiVersion"].(string)
		at, _ := m["time"].(string) // RFC 3339, UTC: ordered as strings
		group, version, _ := strings.Cut(apiVersion, "/")
		newer := at > last[manager][0] || at == last[manager][0] && slices.Index(api.ConversionVersions, version) > slices.Index(api.ConversionVersions, last[manager][1])
		if group == api.UpstreamGroup && manager != "" && newer {
			last[manager] = [2]string{at, version}
		}
	}
	if kind == api.KindClaim {
		c.addUnknown(obj)
	}
	for manager, l := range last {
		if c.Writes == nil {
			c.Writes = map[Writer]map[string]int{}
		}
		w := Writer{manager, l[1]}
		if c.Writes[w] == nil {
			c.Writes[w] = map[string]int{}
		}
		c.Writes[w][kind]++
	}
}

// addUnknown counts the fields of claim that each kubelet release of the
// nodes does not have: it reads the claim without them.
func (c *Clients) addUnknown(claim map[string]interface{}) {
	if c.Unknown == nil {
		c.Unknown = map[int]map[string]int{}
		for _, version := range c.Kubelets {
			if k, ok := api.ParseMinor(version); ok {
				c.Unknown[k] = map[string]int{}
			}
		}
	}
	for k, counts := range c.Unknown {
		_, unknown, _ := rules{Cluster: api.Defaults(k)}.strip(claim, versionOf(claim), api.KindClaim)
		seen := map[string]bool{}
		for _, e := range unknown {
			if name := e.Field[strings.LastIndex(e.Field, ".")+1:]; !seen[name] {
				seen[name] = true
				counts[name]++
			}
		}
	}
}

// controlPlane are the managers that move with the control plane: their
// entries name the release that wrote them, not the next one.
var controlPlane = []string{api.Scheduler, api.ControllerManager, "kube-apiserver", api.Kubelet}

// tools are the managers of people's tools: what they last wrote fails
// only when a person writes it again through the same version.
var tools = []string{"kubectl", "helm", "claimbridge", "argocd"}

// A Plan is what the clients of a cluster need for the change from one
// release to another: a row per client, a finding for each that the
// target breaks (by source), and the steps, in order.
type Plan struct {
	Rows     []report.Row
	Findings map[string][]report.Finding
	Steps    []string
}

// PlanChange judges cl for the change of cluster from (as it runs) to
// target (with the flags it will run with). refused is set when
// kube-apiserver's flags must change first.
func PlanChange(cl Clients, from, target api.Cluster, refused bool) Plan {
	p := Plan{Findings: map[string][]report.Finding{}}
	up := target.Minor >= from.Minor
	var clientSteps []string
	for _, w := range slices.SortedFunc(maps.Keys(cl.Writes), func(a, b Writer) int { return strings.Compare(a.Manager+"/"+a.Version, b.Manager+"/"+b.Version) }) {
		if step := p.writer(w, cl.Writes[w], from, target); step != "" {
			clientSteps = append(clientSteps, step)
		}
	}
	for _, r := range cl.Requested {
		if step := p.request(r, from, target); step != "" {
			clientSteps = append(clientSteps, step)
		}
	}
	first, after, serve := p.nodes(cl.Kubelets, cl.Unknown, from, target)
	p.Steps = append(p.Steps, slices.Compact(clientSteps)...)
	if dropped := slices.DeleteFunc(slices.Clone(api.GRPC(from.Minor, api.Kubelet)), func(v string) bool {
		return slices.Contains(api.GRPC(target.Minor, api.Kubelet), v)
	}); len(dropped) > 0 && len(cl.Kubelets) > 0 && len(api.GRPC(target.Minor, api.Kubelet)) > 0 {
		p.Steps = append(p.Steps, fmt.Sprintf("Make sure every DRA driver serves DRA gRPC %s, which kubelet 1.%d speaks (it drops %s): drivers built with k8s.io/dynamic-resource-allocation %s do.",
			strings.Join(api.GRPC(target.Minor, api.Kubelet), " or "), target.Minor, strings.Join(dropped, ", "), api.Libraries(target.Minor)))
	}
	p.Steps = append(p.Steps, first...)
	control := fmt.Sprintf("%s the control plane to 1.%d: kube-apiserver first, then kube-controller-manager and kube-scheduler", verb(up), target.Minor)
	if refused {
		control += ", with kube-apiserver's flags changed as named above"
	}
	if len(serve) > 0 {
		control += fmt.Sprintf(", keeping --runtime-config=%s until those nodes are upgraded", strings.Join(serve, ","))
	}
	p.Steps = append(p.Steps, control+".")
	p.Steps = append(p.Steps, after...)
	return p
}

// writer judges what manager w.Manager wrote through w.Version; it
// returns the step that mends it, "" when the target serves it.
func (p *Plan) writer(w Writer, kinds map[string]int, from, target api.Cluster) string {
	if slices.Contains(controlPlane, w.Manager) {
		return ""
	}
	var counts, broken []string
	objects := 0
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		counts = append(counts, fmt.Sprintf("%d %s", kinds[kind], plural(kind, kinds[kind])))
		objects += kinds[kind]
		if !target.Serves(w.Version, kind) {
			broken = append(broken, kind)
		}
	}
	row := report.Row{Subject: "manager", Name: w.Manager, Version: w.Version, Objects: objects, Verdict: "ok"}
	defer func() { p.Rows = append(p.Rows, row) }()
	if !slices.Contains(api.ConversionVersions, w.Version) {
		row.Verdict, row.Message = "unknown", fmt.Sprintf("wrote %s through %s/%s, a version no Kubernetes release has: not judged", strings.Join(counts, ", "), api.UpstreamGroup, w.Version)
		p.Findings["manager:"+w.Manager] = append(p.Findings["manager:"+w.Manager], report.Finding{Severity: report.Warning, Message: row.Message})
		return ""
	}
	if len(broken) == 0 {
		return ""
	}
	severity, follows := report.Error, "its next write of them through it fails"
	switch {
	case slices.ContainsFunc(tools, func(t string) bool { return strings.HasPrefix(w.Manager, t) }):
		severity, follows = report.Warning, "applied again through it, they fail: update the manifests (claimbridge migrate)"
	case slices.Contains(broken, api.KindResourceSlice):
		follows += ": a driver stops publishing its slices"
	case slices.Contains(broken, api.KindClaim):
		follows += ": a controller stops updating claims"
	}
	row.Verdict = map[string]string{report.Error: "blocking", report.Warning: "advice"}[severity]
	row.Message = fmt.Sprintf("wrote %s through %s/%s, which Kubernetes 1.%d does not serve with these flags: %s",
		strings.Join(counts, ", "), api.UpstreamGroup, w.Version, target.Minor, follows)
	p.Findings["manager:"+w.Manager] = append(p.Findings["manager:"+w.Manager], report.Finding{Severity: severity, Message: row.Message})
	if severity != report.Error {
		return ""
	}
	want := bridge(from, target, broken[0])
	step := fmt.Sprintf("%s %s to a release that writes %s/%s", verb(target.Minor >= from.Minor), w.Manager, api.UpstreamGroup, want)
	if libs := api.LibrariesWriting(broken[0], want); libs != "" {
		step += fmt.Sprintf(" (a driver built with k8s.io/dynamic-resource-allocation %s can write %s through it)", libs, plural(broken[0], 2))
	}
	return step + ", before the control plane."
}

// request judges a deprecated version requested; it returns the step that
// mends it, "" when the target serves it.
func (p *Plan) request(r Request, from, target api.Cluster) string {
	kind := api.KindOfResource(r.Resource)
	row := report.Row{Subject: "requests", Name: r.Resource, Version: r.Version, Verdict: "ok"}
	defer func() { p.Rows = append(p.Rows, row) }()
	if kind == "" || target.Serves(r.Version, kind) {
		return ""
	}
	row.Verdict = "blocking"
	row.Message = fmt.Sprintf("clients requested %s since kube-apiserver started (apiserver_requested_deprecated_apis, removed in %s), and Kubernetes 1.%d does not serve it with these flags: "+
		"their requests fail; the audit log names them (annotation k8s.io/removed-release)", r.Version+" "+r.Resource, r.Removed, target.Minor)
	source := fmt.Sprintf("requests:%s/%s %s", api.UpstreamGroup, r.Version, r.Resource)
	p.Findings[source] = append(p.Findings[source], report.Finding{Severity: report.Error, Message: row.Message})
	return fmt.Sprintf("Move every client that requests %s/%s %s to %s/%s, before the control plane.", api.UpstreamGroup, r.Version, r.Resource, api.UpstreamGroup, bridge(from, target, kind))
}

// nodes judges each kubelet under the target's kube-apiserver, and says
// which fields of the stored claims (unknown, by kubelet release) it
// reads without; it returns
// the steps for nodes before and after the control plane, and the
// versions the target must keep serving for nodes that cannot move first.
func (p *Plan) nodes(kubelets map[string]string, unknown map[int]map[string]int, from, target api.Cluster) (first, after, serve []string) {
	up := target.Minor >= from.Minor
	moveTo := map[int][]string{}  // nodes to move before the control plane, by release
	var stay, late, rest []string // nodes that need the target to keep serving, that break until upgraded, and the others
	for _, name := range slices.Sorted(maps.Keys(kubelets)) {
		row := report.Row{Subject: "node", Name: name, Release: kubelets[name], Verdict: "ok"}
		k, ok := api.ParseMinor(kubelets[name])
		if !ok {
			row.Verdict, row.Message = "unknown", fmt.Sprintf("kubelet version %q is not a Kubernetes release: the node is not judged", kubelets[name])
			p.Rows = append(p.Rows, row)
			p.Findings["node:"+name] = append(p.Findings["node:"+name], report.Finding{Severity: report.Warning, Message: row.Message})
			continue
		}
		row.Version = api.Reads(k, api.Kubelet, api.KindClaim)
		for _, field := range slices.Sorted(maps.Keys(unknown[k])) {
			p.Findings["node:"+name] = append(p.Findings["node:"+name], report.Finding{Severity: report.Warning,
				Message: fmt.Sprintf("kubelet 1.%d reads ResourceClaims without %s (Kubernetes 1.%d+), which %d stored %s: it prepares them as if they had none",
					k, field, api.FieldOf(field).Added, unknown[k][field], map[bool]string{true: "claim uses", false: "claims use"}[unknown[k][field] == 1])})
		}
		var problems []string
		if s := api.Skew(target.Minor, k); s != "" {
			problems = append(problems, s)
		}
		if row.Version != "" && !target.Serves(row.Version, api.KindClaim) {
			problems = append(problems, fmt.Sprintf("kubelet 1.%d reads ResourceClaims through %s/%s, which Kubernetes 1.%d does not serve with these flags: "+
				"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)", k, api.UpstreamGroup, row.Version, target.Minor))
		}
		if len(problems) == 0 {
			if k != target.Minor {
				rest = append(rest, name)
			}
			p.Rows = append(p.Rows, row)
			continue
		}
		row.Verdict, row.Message = "blocking", strings.Join(problems, "; ")
		p.Rows = append(p.Rows, row)
		for _, msg := range problems {
			p.Findings["node:"+name] = append(p.Findings["node:"+name], report.Finding{Severity: report.Error, Message: msg})
		}
		if r := firstMove(k, from, target); r != 0 {
			moveTo[r] = append(moveTo[r], name)
			rest = append(rest, name)
		} else if v := row.Version; up && api.Registered(v, target.Minor) {
			stay = append(stay, name)
			serve = append(serve, api.UpstreamGroup+"/"+v+"=true")
		} else if up {
			late = append(late, name)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(moveTo)) {
		bound := "or newer"
		if !up {
			bound = "or older"
		}
		first = append(first, fmt.Sprintf("%s the kubelets of %s to 1.%d %s, before the control plane.", verb(up), names(moveTo[r]), r, bound))
	}
	if len(late) > 0 {
		after = append(after, fmt.Sprintf("Then upgrade the kubelets of %s to 1.%d at once: until then their Pods with claims stay in ContainerCreating.", names(late), target.Minor))
	}
	if up && len(rest)+len(stay) > 0 {
		after = append(after, fmt.Sprintf("Then upgrade the kubelets of %s to 1.%d, none newer than kube-apiserver.", names(append(stay, rest...)), target.Minor))
	}
	slices.Sort(serve)
	return first, after, slices.Compact(serve)
}

// firstMove is the release a kubelet of release k moves to before the
// control plane changes from from to target: the nearest one within the
// skew policy of both apiservers whose claim reads the target serves; 0
// when there is none.
func firstMove(k int, from, target api.Cluster) int {
	ok := func(r int) bool {
		v := api.Reads(r, api.Kubelet, api.KindClaim)
		return api.Skew(from.Minor, r) == "" && api.Skew(target.Minor, r) == "" && v != "" && target.Serves(v, api.KindClaim)
	}
	if target.Minor >= from.Minor {
		for r := k + 1; r <= from.Minor; r++ {
			if ok(r) {
				return r
			}
		}
		return 0
	}
	for r := min(k-1, target.Minor); r >= api.Releases[0].Minor; r-- {
		if ok(r) {
			return r
		}
	}
	return 0
}

// bridge is the version a client of kind writes through across the change:
// the newest that both releases serve, else the newest the target serves.
func bridge(from, target api.Cluster, kind string) string {
	fallback := ""
	for _, v := range slices.Backward(api.ConversionVersions) {
		if target.Serves(v, kind) {
			if from.Serves(v, kind) {
				return v
			}
			fallback = cmp.Or(fallback, v)
		}
	}
	return fallback
}

// capped is xs with at most five of them, the others counted: "and 3
// more" (more names what they are).
func capped(xs []string, more string) []string {
	if len(xs) > 5 {
		return append(xs[:5:5], fmt.Sprintf("and %d more%s", len(xs)-5, more))
	}
	return xs
}

// names lists node names, five at the most.
func names(ns []string) string {
	slices.Sort(ns)
	return strings.Join(capped(ns, ""), ", ")
}

// verb is the change a step makes: an upgrade or a rollback.
func verb(up bool) string {
	if up {
		return "Upgrade"
	}
	return "Roll back"
}

// plural is kind's plural when n is not 1: "ResourceSlices".
func plural(kind string, n int) string {
	if n == 1 {
		return kind
	}
	if strings.HasSuffix(kind, "ss") {
		return kind + "es"
	}
	return kind + "s"
}
