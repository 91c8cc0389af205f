// Package support says which Kubernetes releases, with which kube-apiserver
// settings, a DRA driver release runs on. It reads the driver's Go module
// (the k8s.io/dynamic-resource-allocation it builds with, its own typed
// calls) and renders its Helm chart with each release's capabilities, and
// judges both by what each release serves (api.Cluster) and what each
// library release reads, writes and speaks (api.Through, api.GRPC).
package support

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// Verdicts of a Cell.
const (
	Works      = "works"       // the driver runs with the cell's setting
	NeedsFlags = "needs-flags" // it runs only with the cell's flags
	Cannot     = "cannot"      // no kube-apiserver flag makes it run
	Refused    = "refused"     // the chart's kubeVersion refuses the release
	Unjudged   = "unjudged"    // the chart renders on no release: the input is at fault
)

// Defaults is the setting of a release at its own defaults: an unmodified
// kube-apiserver, scheduler, controller-manager and kubelet of it (before
// 1.34, no DRA at all).
const Defaults = "defaults"

// A Cell is the verdict on the driver for one release with one setting.
type Cell struct {
	Release string `json:"release"`
	// Setting is Defaults, or the flags the cell runs with.
	Setting string `json:"setting"`
	Verdict string `json:"verdict"`
	// Flags are the least flags that make the driver run, when any do.
	Flags   string   `json:"flags,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// GRPC says where the verdict on the DRA gRPC between the release's
	// kubelet and the library's kubeletplugin comes from: FromRun or
	// FromSources; "" when the module does not build with the library.
	GRPC string `json:"grpc,omitempty"`
}

// GRPCRun are the first and last release whose kubelet, and library line
// whose kubeletplugin, have registered and called each other with their
// own code in claimbridge's tests (test/envtest/libprobe).
var GRPCRun = [2]int{31, 37}

// Where a cell's DRA gRPC verdict comes from.
const (
	FromRun     = "run"     // both sides' code, run (GRPCRun)
	FromSources = "sources" // the versions both sides' sources define (api.GRPC)
)

// grpcFrom is where the DRA gRPC verdict on the kubelet of release minor
// and the kubeletplugin of library line lib comes from.
func grpcFrom(minor, lib int) string {
	if lib == 0 {
		return ""
	}
	if min(minor, lib) >= GRPCRun[0] && max(minor, lib) <= GRPCRun[1] {
		return FromRun
	}
	return FromSources
}

// A Judge is validate --to's verdict on a rendered object created on
// cluster c: its errors and its warnings.
type Judge func(obj map[string]interface{}, c api.Cluster) (errs, warnings []string)

// A Driver is what is known of a driver release: the binaries it runs,
// its chart, its install manifests.
type Driver struct {
	Binaries  []Binary
	Chart     *Chart
	Manifests []manifest.Document
	Judge     Judge
}

// kinds are the kinds of resource.k8s.io a release may serve.
var kinds = []string{api.KindClaim, api.KindTemplate, api.KindDeviceClass, api.KindResourceSlice, api.KindDeviceTaintRule,
	api.KindResourceClass, api.KindClaimParameters, api.KindClassParameters}

// kindGate is the feature gate without which release minor's
// kube-apiserver does not serve kind in any version: DRADeviceTaintRules
// for DeviceTaintRules from 1.35, DRADeviceTaints in 1.33 and 1.34; ""
// for the other kinds.
func kindGate(minor int, kind string) string {
	if kind != api.KindDeviceTaintRule {
		return ""
	}
	for _, gate := range []string{"DRADeviceTaintRules", "DRADeviceTaints"} {
		if _, ok := api.Gate(minor, gate); ok {
			return gate
		}
	}
	return ""
}

// served reports whether c serves kind in version, its gate included.
func served(c api.Cluster, version, kind string) bool {
	gate := kindGate(c.Minor, kind)
	return c.Serves(version, kind) && (gate == "" || c.Enabled(gate))
}

// A need is a kind the driver reads or writes, through the newest of
// versions the release serves; who says what needs it, and without why
// the driver runs without it, when it does.
type need struct {
	versions []string
	kind     string
	who      string
	without  string
}

// needs are what the driver's binaries need every release to serve: the
// library's ResourceSlices and claims (the kubeletplugin writes the one
// and reads the other on every node), then their own typed calls; with
// more than one binary, each says whose it is.
func (d Driver) needs() []need {
	var out []need
	whose := map[string][]string{}
	add := func(n need, bin string) {
		if _, seen := whose[n.who]; !seen {
			out = append(out, n)
		}
		whose[n.who] = append(whose[n.who], bin)
	}
	for _, b := range d.Binaries {
		for _, kind := range []string{api.KindResourceSlice, api.KindClaim} {
			if vs := api.Through(b.Library, api.DriverLibrary, kind); b.Library != 0 && len(vs) > 0 {
				add(need{vs, kind, fmt.Sprintf("%s v0.%d (%s)", LibraryModule, b.Library, api.Resource(kind)), ""}, b.Path)
			}
		}
		for _, c := range b.Calls {
			without := ""
			if c.Logged != "" {
				without = fmt.Sprintf("which %s needs; its error is only logged", c.Logged)
			}
			if c.Flag != "" {
				without = fmt.Sprintf("needed only with --%s, which is off by default", c.Flag)
			}
			add(need{[]string{c.Version}, c.Kind, c.Position + " " + c.Expr, without}, b.Path)
		}
	}
	if len(d.Binaries) > 1 {
		for i := range out {
			out[i].who = strings.Join(whose[out[i].who], ", ") + ": " + out[i].who
		}
	}
	return out
}

// An evaluation is one release's verdict as it is found.
type evaluation struct {
	defaults, flagged api.Cluster // flagged: the defaults with the least flags found
	cannot, fixable   []string    // what no flag fixes; what flags fix
	warnings          []string
	render            string // why the chart does not render
}

// fit records whether the release serves n, at its defaults or with flags,
// and adds the flags to e.flagged; false when no flag makes it serve n.
// A need the driver runs without is a warning, and adds no flag.
func (e *evaluation) fit(n need) bool {
	if slices.ContainsFunc(n.versions, func(v string) bool { return served(e.defaults, v, n.kind) }) {
		return true
	}
	has := slices.DeleteFunc(slices.Clone(n.versions), func(v string) bool { return !e.defaults.Has(v, n.kind) })
	if len(has) == 0 {
		if msg := n.who + ": " + absent(e.defaults.Minor, n.versions, n.kind); n.without != "" {
			e.warnings = appendNew(e.warnings, fmt.Sprintf("%s, %s: the rest of the driver runs", msg, n.without))
		} else {
			e.cannot = appendNew(e.cannot, msg)
		}
		return n.without != ""
	}
	version := has[len(has)-1] // the newest
	gates, runtime := flagsFor(e.defaults, version, n.kind)
	flags := api.Bare(e.defaults.Minor)
	if err := flags.Set(gates, runtime); err != nil {
		e.cannot = appendNew(e.cannot, n.who+": "+err.Error())
		return false
	}
	msg := fmt.Sprintf("%s: kube-apiserver 1.%d serves %s/%s %s only with %s",
		n.who, e.defaults.Minor, api.UpstreamGroup, version, api.Resource(n.kind), flags.SettingsString())
	if n.without != "" {
		e.warnings = appendNew(e.warnings, fmt.Sprintf("%s, %s: without them, the rest of the driver runs", msg, n.without))
		return true
	}
	e.fixable = appendNew(e.fixable, msg)
	_ = e.flagged.Set(gates, runtime)
	return true
}

// flagsFor are the --feature-gates and --runtime-config values that make
// c serve kind in version: the version, and the kind's gate with its
// dependencies that are off.
func flagsFor(c api.Cluster, version, kind string) (gates, runtime string) {
	var on []string
	if !c.Enabled(api.DynamicResourceAllocation) && c.Minor < 34 {
		on = append(on, api.DynamicResourceAllocation+"=true")
		c.SetEnabled(map[string]bool{api.DynamicResourceAllocation: true})
	}
	if !c.Serves(version, kind) {
		runtime = api.UpstreamGroup + "/" + version + "=true"
	}
	if gate := kindGate(c.Minor, kind); gate != "" {
		spec, _ := api.Gate(c.Minor, gate) // its dependencies' own are on
		for _, name := range append(slices.Clone(spec.Deps), gate) {
			if !c.Enabled(name) {
				on = append(on, name+"=true")
			}
		}
	}
	return strings.Join(on, ","), runtime
}

// absent says that release minor serves kind in none of versions.
func absent(minor int, versions []string, kind string) string {
	if len(versions) == 1 {
		return fmt.Sprintf("%s/%s %s, %s", api.UpstreamGroup, versions[0], api.Resource(kind), api.Defaults(minor).Gap(versions[0], kind).Why)
	}
	return fmt.Sprintf("Kubernetes 1.%d has no %s in %s/%s", minor, api.Resource(kind), api.UpstreamGroup, strings.Join(versions, ", "))
}

// appendNew appends s to list unless it holds it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// grpc records that release minor's kubelet cannot call the library's
// kubeletplugin: they share no DRA gRPC version, or the kubelet refuses
// its registration.
func (e *evaluation) grpc(lib int) {
	minor := e.defaults.Minor
	kubelet, plugin := api.GRPC(minor, api.Kubelet), api.GRPC(lib, api.DriverLibrary)
	switch {
	case lib == 0 || len(plugin) == 0 || len(api.SharedGRPC(minor, lib)) > 0:
	case slices.ContainsFunc(plugin, func(v string) bool { return slices.Contains(kubelet, v) }): // both speak one
		e.cannot = append(e.cannot, fmt.Sprintf("the kubelet of 1.%d refuses the registration of the kubeletplugin of %s v0.%d: it reads a plugin's versions as semantic versions, and from v0.%d the kubeletplugin registers gRPC service names",
			minor, LibraryModule, lib, api.ServiceNames))
	default:
		e.cannot = append(e.cannot, fmt.Sprintf("the kubelet of 1.%d speaks DRA gRPC %s; the kubeletplugin of %s v0.%d serves %s",
			minor, strings.Join(kubelet, ", "), LibraryModule, lib, strings.Join(plugin, ", ")))
	}
}

// Cells are the cells of release minor: at its defaults, and, when flags
// make the driver run, with them.
func (d Driver) Cells(minor int) []Cell {
	cells, _ := d.cells(minor)
	return cells
}

// cells are Cells, and why the chart does not render on the release.
func (d Driver) cells(minor int) ([]Cell, string) {
	release := fmt.Sprintf("1.%d", minor)
	if d.Chart != nil && !d.Chart.Admits(minor) {
		return []Cell{{Release: release, Setting: Defaults, Verdict: Refused,
			Reasons: []string{fmt.Sprintf("the chart's kubeVersion %q refuses Kubernetes %s (%s)", d.Chart.KubeVersion(), release, kubeVersion(minor))}}}, ""
	}
	e := &evaluation{defaults: api.Bare(minor), flagged: api.Bare(minor)}
	from := ""
	for _, b := range d.Binaries {
		if f := grpcFrom(minor, b.Library); f > from { // "sources" when any is
			from = f
		}
		e.grpc(b.Library)
	}
	for _, n := range d.needs() {
		e.fit(n)
	}
	d.install(e)
	if len(e.cannot) == 0 && e.flagged.Enabled(api.DynamicResourceAllocation) && !e.defaults.Enabled(api.DynamicResourceAllocation) {
		e.fixable = append([]string{fmt.Sprintf("Kubernetes 1.%d runs no DRA at its defaults: the %s feature gate goes on kube-apiserver, kube-scheduler, kube-controller-manager and every kubelet, and kube-apiserver serves resource.k8s.io only with --runtime-config",
			minor, api.DynamicResourceAllocation)}, e.fixable...)
	}
	cell := Cell{Release: release, Setting: Defaults, Verdict: Cannot, Reasons: slices.Concat(e.cannot, e.fixable), GRPC: from}
	switch {
	case len(e.cannot) > 0:
		return []Cell{cell}, e.render
	case len(e.fixable) == 0:
		cell.Verdict, cell.Reasons = Works, e.warnings
		return []Cell{cell}, ""
	}
	cell.Verdict, cell.Flags = NeedsFlags, e.flagged.SettingsString()
	return []Cell{cell, {Release: release, Setting: cell.Flags, Verdict: Works, Flags: cell.Flags, Reasons: e.warnings, GRPC: from}}, ""
}

// install renders the chart on the release with the flags found, adds
// the flags its DRA objects and the manifests' need and renders again
// until they need no more, then judges each object as validate --to does.
func (d Driver) install(e *evaluation) {
	var objs []installed
	for settings := "-"; settings != e.flagged.SettingsString(); {
		settings = e.flagged.SettingsString()
		objs = nil
		for _, doc := range d.Manifests {
			objs = append(objs, installed{doc, fmt.Sprintf("%s (%s)", api.Describe(doc.Object), manifest.DisplayName(doc.Source))})
		}
		if d.Chart != nil {
			docs, err := d.Chart.Render(e.flagged)
			if err != nil {
				e.render = strings.Join(strings.Fields(err.Error()), " ")
				e.cannot = append(e.cannot, "the chart does not render: "+e.render)
				return
			}
			for _, doc := range docs {
				objs = append(objs, installed{doc, fmt.Sprintf("chart %s (%s)", api.Describe(doc.Object), doc.Source)})
			}
		}
		objs = slices.DeleteFunc(objs, func(o installed) bool {
			_, group, version, kind, _ := api.TypeOf(o.doc.Object)
			return group == api.UpstreamGroup && !e.fit(need{[]string{version}, kind, o.who, ""})
		})
	}
	for _, o := range objs {
		if _, group, _, _, _ := api.TypeOf(o.doc.Object); group != api.UpstreamGroup {
			e.warnings = append(e.warnings, admitsNone(o, e.flagged)...)
			continue
		}
		errs, warnings := d.Judge(o.doc.Object, e.flagged)
		for _, msg := range errs {
			e.cannot = append(e.cannot, o.who+": "+msg)
		}
		for _, msg := range warnings {
			e.warnings = append(e.warnings, o.who+": "+msg)
		}
	}
}

// An installed object is a manifest's or a rendered chart's, with who
// names it: "chart DeviceClass gpu.example.com (gpu/templates/class.yaml)".
type installed struct {
	doc manifest.Document
	who string
}
