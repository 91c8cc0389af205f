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
// target breaks (by source), and the steps, in order. Each blocking row
// names the step that mends it (Row.Step).
type Plan struct {
	Rows     []report.Row
	Findings map[string][]report.Finding
	Steps    []string
}

// A step is one step of a plan and the rows (indexes in Plan.Rows) it
// mends.
type step struct {
	text string
	rows []int
}

// PlanChange judges cl for the change of cluster from (as it runs) to
// target (with the flags it will run with). refused is set when
// kube-apiserver's flags must change first.
func PlanChange(cl Clients, from, target api.Cluster, refused bool) Plan {
	p := Plan{Findings: map[string][]report.Finding{}}
	up := target.Minor >= from.Minor
	var steps []step
	for _, w := range slices.SortedFunc(maps.Keys(cl.Writes), func(a, b Writer) int { return strings.Compare(a.Manager+"/"+a.Version, b.Manager+"/"+b.Version) }) {
		steps = append(steps, p.writer(w, cl.Writes[w], from, target)...)
	}
	for _, r := range cl.Requested {
		steps = append(steps, p.request(r, from, target)...)
	}
	first, after, serve := p.nodes(cl.Kubelets, cl.Unknown, from, target)
	if dropped := slices.DeleteFunc(slices.Clone(api.GRPC(from.Minor, api.Kubelet)), func(v string) bool {
		return slices.Contains(api.GRPC(target.Minor, api.Kubelet), v)
	}); len(dropped) > 0 && len(cl.Kubelets) > 0 && len(api.GRPC(target.Minor, api.Kubelet)) > 0 {
		steps = append(steps, step{text: fmt.Sprintf("Make sure every DRA driver serves DRA gRPC %s, which kubelet 1.%d speaks (it drops %s): drivers built with k8s.io/dynamic-resource-allocation %s do.",
			strings.Join(api.GRPC(target.Minor, api.Kubelet), " or "), target.Minor, strings.Join(dropped, ", "), api.Libraries(target.Minor))})
	}
	steps = append(steps, first...)
	control := fmt.Sprintf("%s the control plane to 1.%d: kube-apiserver first, then kube-controller-manager and kube-scheduler", verb(up), target.Minor)
	if refused {
		control += ", with kube-apiserver's flags changed as named above"
	}
	if len(serve) > 0 {
		control += fmt.Sprintf(", keeping --runtime-config=%s until those nodes are upgraded", strings.Join(serve, ","))
	}
	steps = append(steps, step{text: control + "."})
	for _, s := range append(steps, after...) {
		if n := len(p.Steps); n > 0 && p.Steps[n-1] == s.text {
			s.text = "" // the same step again: its rows are the last one's
		} else {
			p.Steps = append(p.Steps, s.text)
		}
		for _, i := range s.rows {
			p.Rows[i].Step = len(p.Steps)
		}
	}
	return p
}

// writer judges what manager w.Manager wrote through w.Version, a row per
// kind; it returns the step that mends the kinds the target does not
// serve in it.
func (p *Plan) writer(w Writer, kinds map[string]int, from, target api.Cluster) []step {
	if slices.Contains(controlPlane, w.Manager) {
		return nil
	}
	source := "manager:" + w.Manager
	if !slices.Contains(api.ConversionVersions, w.Version) {
		objects := 0
		for _, n := range kinds {
			objects += n
		}
		msg := fmt.Sprintf("wrote %s through %s/%s, a version no Kubernetes release has: not judged", countOf(kinds, slices.Sorted(maps.Keys(kinds))), api.UpstreamGroup, w.Version)
		p.Rows = append(p.Rows, report.Row{Subject: "manager", Name: w.Manager, Version: w.Version, Objects: objects, Verdict: "unknown", Message: msg})
		p.Findings[source] = append(p.Findings[source], report.Finding{Severity: report.Warning, Message: msg})
		return nil
	}
	tool := slices.ContainsFunc(tools, func(t string) bool { return strings.HasPrefix(w.Manager, t) })
	var gaps []api.Gap
	broken := map[api.Gap][]string{} // the kinds the target does not serve in the version, by why
	var rows []int
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		row := report.Row{Subject: "manager", Name: w.Manager, Version: w.Version, Kind: kind, Objects: kinds[kind], Verdict: "ok"}
		if !target.Serves(w.Version, kind) {
			gap := target.Gap(w.Version, kind)
			if broken[gap] == nil {
				gaps = append(gaps, gap)
			}
			broken[gap] = append(broken[gap], kind)
			row.Verdict = map[bool]string{true: "advice", false: "blocking"}[tool]
			row.Message = fmt.Sprintf("wrote %s through %s/%s, %s", countOf(kinds, []string{kind}), api.UpstreamGroup, w.Version, gap.Why)
			rows = append(rows, len(p.Rows))
		}
		p.Rows = append(p.Rows, row)
	}
	if len(gaps) == 0 {
		return nil
	}
	var texts []string
	for _, gap := range gaps {
		severity, follows := report.Error, "its next write of them through it fails"
		switch {
		case tool:
			severity, follows = report.Warning, "applied again through it, they fail: update the manifests (claimbridge migrate)"
		case slices.Contains(broken[gap], api.KindResourceSlice):
			follows += ": a driver stops publishing its slices"
		case slices.Contains(broken[gap], api.KindClaim):
			follows += ": a controller stops updating claims"
		}
		p.Findings[source] = append(p.Findings[source], report.Finding{Severity: severity,
			Message: fmt.Sprintf("wrote %s through %s/%s, %s: %s", countOf(kinds, broken[gap]), api.UpstreamGroup, w.Version, gap.Why, follows)})
		for _, kind := range broken[gap] {
			want := bridge(from, target, kind)
			text := fmt.Sprintf("its %s through %s/%s", plural(kind, 2), api.UpstreamGroup, want)
			switch created := api.CreatedIn(kind, target.Minor); {
			case want == "" && created == "":
				text = fmt.Sprintf("no %s (Kubernetes 1.%d has none)", plural(kind, 2), target.Minor)
			case want == "":
				want = created
				text = fmt.Sprintf("its %s through %s/%s (%s)", plural(kind, 2), api.UpstreamGroup, want, target.Gap(want, kind).Why)
			}
			if libs := api.LibrariesWriting(kind, want); libs != "" {
				text += fmt.Sprintf(" (a driver built with k8s.io/dynamic-resource-allocation %s can)", libs)
			}
			texts = append(texts, text+mend(gap, w.Version, target.Minor))
		}
	}
	if tool {
		return nil
	}
	return []step{{fmt.Sprintf("%s %s to a release that writes %s.", verb(target.Minor >= from.Minor), w.Manager, strings.Join(texts, "; and ")), rows}}
}

// mend says when a client must move off a version the target does not
// serve (gap): before the control plane, unless a flag or a stopgap
// serves it meanwhile.
func mend(gap api.Gap, version string, target int) string {
	switch {
	case gap.Flag != "":
		return fmt.Sprintf(", before the control plane, or start kube-apiserver 1.%d with %s until it does", target, gap.Flag)
	case gap.Stopgap(target) != "":
		return ", before the control plane (" + gap.Stopgap(target) + ")"
	}
	return fmt.Sprintf(", before the control plane: no flag of kube-apiserver 1.%d serves %s/%s", target, api.UpstreamGroup, version)
}

// countOf says how many objects of each of kinds there are: "2
// DeviceClasses, 1 ResourceSlice".
func countOf(n map[string]int, kinds []string) string {
	var out []string
	for _, kind := range kinds {
		out = append(out, fmt.Sprintf("%d %s", n[kind], plural(kind, n[kind])))
	}
	return strings.Join(out, ", ")
}

// request judges a deprecated version requested; it returns the step that
// mends it when the target does not serve it.
func (p *Plan) request(r Request, from, target api.Cluster) []step {
	kind := api.KindOfResource(r.Resource)
	row := report.Row{Subject: "requests", Name: r.Resource, Version: r.Version, Verdict: "ok"}
	if kind == "" || target.Serves(r.Version, kind) {
		p.Rows = append(p.Rows, row)
		return nil
	}
	gap := target.Gap(r.Version, kind)
	row.Verdict = "blocking"
	row.Message = fmt.Sprintf("clients requested %s/%s %s since kube-apiserver started (apiserver_requested_deprecated_apis), %s: "+
		"their requests fail; the audit log names them (annotation k8s.io/removed-release)", api.UpstreamGroup, r.Version, r.Resource, gap.Why)
	source := fmt.Sprintf("requests:%s/%s %s", api.UpstreamGroup, r.Version, r.Resource)
	p.Findings[source] = append(p.Findings[source], report.Finding{Severity: report.Error, Message: row.Message})
	p.Rows = append(p.Rows, row)
	return []step{{fmt.Sprintf("Move every client that requests %s/%s %s to %s/%s%s.", api.UpstreamGroup, r.Version, r.Resource, api.UpstreamGroup, bridge(from, target, kind), mend(gap, r.Version, target.Minor)),
		[]int{len(p.Rows) - 1}}}
}

// nodes judges each kubelet under the target's kube-apiserver, and says
// which fields of the stored claims (unknown, by kubelet release) it
// reads without; it returns the steps for nodes before and after the
// control plane, and the versions the target must keep serving for nodes
// that cannot move first.
func (p *Plan) nodes(kubelets map[string]string, unknown map[int]map[string]int, from, target api.Cluster) (first, after []step, serve []string) {
	up := target.Minor >= from.Minor
	moveTo := map[[2]int][]string{}        // nodes to move before the control plane, by release and 1 for an upgrade
	var stay, late, replace, rest []string // nodes that need the target to keep serving, that break until upgraded, that no release bridges, and the others
	rows := map[string]int{}               // the row of each blocking node
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
		gap := api.Gap{}
		if row.Version != "" && !target.Serves(row.Version, api.KindClaim) {
			gap = target.Gap(row.Version, api.KindClaim)
			problems = append(problems, fmt.Sprintf("kubelet 1.%d reads ResourceClaims through %s/%s, %s: "+
				"its Pods with claims stay in ContainerCreating (failed to fetch ResourceClaim)", k, api.UpstreamGroup, row.Version, gap.Why))
		}
		if len(problems) == 0 {
			if k != target.Minor {
				rest = append(rest, name)
			}
			p.Rows = append(p.Rows, row)
			continue
		}
		row.Verdict, row.Message = "blocking", strings.Join(problems, "; ")
		rows[name] = len(p.Rows)
		p.Rows = append(p.Rows, row)
		for _, msg := range problems {
			p.Findings["node:"+name] = append(p.Findings["node:"+name], report.Finding{Severity: report.Error, Message: msg})
		}
		switch r := firstMove(k, from, target); {
		case r != 0:
			key := [2]int{r, 0}
			if r > k {
				key[1] = 1
			}
			moveTo[key] = append(moveTo[key], name)
			if r != target.Minor {
				rest = append(rest, name)
			}
		case up && k < target.Minor && gap.Flag != "":
			stay = append(stay, name)
			serve = append(serve, strings.TrimPrefix(gap.Flag, "--runtime-config="))
		case up && k < target.Minor:
			late = append(late, name)
		default:
			replace = append(replace, name)
		}
	}
	these := func(ns []string) []int {
		var out []int
		for _, n := range ns {
			out = append(out, rows[n])
		}
		return out
	}
	for _, key := range slices.SortedFunc(maps.Keys(moveTo), func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) }) {
		bound := map[bool]string{true: "or newer", false: "or older"}[key[1] == 1]
		first = append(first, step{fmt.Sprintf("%s the kubelets of %s to 1.%d %s, before the control plane.", verb(key[1] == 1), names(moveTo[key]), key[0], bound), these(moveTo[key])})
	}
	if len(replace) > 0 {
		first = append(first, step{fmt.Sprintf("Replace the kubelets of %s with kubelet 1.%d: drain each node before the control plane, and start its new kubelet once the control plane is 1.%[2]d "+
			"(no kubelet release runs under both kube-apiserver 1.%d and 1.%[2]d).", names(replace), target.Minor, from.Minor), these(replace)})
	}
	if len(late) > 0 {
		after = append(after, step{fmt.Sprintf("Then upgrade the kubelets of %s to 1.%d at once: until then their Pods with claims stay in ContainerCreating.", names(late), target.Minor), these(late)})
	}
	if up && len(rest)+len(stay) > 0 {
		after = append(after, step{fmt.Sprintf("Then upgrade the kubelets of %s to 1.%d, none newer than kube-apiserver.", names(append(stay, rest...)), target.Minor), these(stay)})
	}
	slices.Sort(serve)
	return first, after, slices.Compact(serve)
}

// firstMove is the release a kubelet of release k moves to before the
// control plane changes from from to target: the nearest one within the
// skew policy of both apiservers whose claim reads both serve; 0 when
// there is none.
func firstMove(k int, from, target api.Cluster) int {
	best := 0
	for _, rel := range api.Releases {
		r, v := rel.Minor, api.Reads(rel.Minor, api.Kubelet, api.KindClaim)
		if api.Skew(from.Minor, r) != "" || api.Skew(target.Minor, r) != "" || v == "" || !target.Serves(v, api.KindClaim) || !from.Serves(v, api.KindClaim) {
			continue
		}
		if best == 0 || abs(r-k) < abs(best-k) {
			best = r
		}
	}
	return best
}

func abs(n int) int { return max(n, -n) }

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
