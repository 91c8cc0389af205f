// Package libprobe proves `claimbridge support`'s matrix with the real code
// of both sides: each line of k8s.io/dynamic-resource-allocation (v0.31 …
// v0.37), built as a small program (testdata/probe), runs its own
// ResourceSlice controller and claim reader against the real
// kube-apiservers 1.31–1.37, at their defaults and with every non-GA
// version of resource.k8s.io served, and those servers dry-run support's
// fixture charts; the kubelet of each release 1.31–1.37 (testdata/kubelet)
// registers and calls each line's kubeletplugin (testdata/plugin).
//
// Under `make record` the programs are built (cached in
// $CLAIMBRIDGE_CACHE/probes) and run, and testdata/probes.json and
// testdata/grpc.json are written; otherwise the recordings are replayed
// against support's cells.
package libprobe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/support"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
)

const recording = "testdata/probes.json"

// The releases and library lines proven.
const first, last = 31, 37

// The settings each release is started with.
const (
	// defaults is the release as the project takes its defaults (before
	// 1.34 with DRA on and its own versions: api.Defaults' Sketch; the
	// release's own defaults there run no DRA: support says needs-flags).
	defaults = support.Defaults
	// everyVersion is the defaults with every non-GA version of
	// resource.k8s.io the release has served (v1alpha3 until 1.33, the
	// betas from 1.32): the least flags the matrix ever asks for are
	// among them.
	everyVersion = "every-version"
)

// book is the recording.
type book struct {
	// Pinned are the versions of kube-apiserver of each release
	// ("kube-apiserver 1.31") and of the library of each line
	// ("dynamic-resource-allocation v0.31") that answered, the digest
	// of testdata/probe ("probe sources") the probes were built from, and
	// that of the fixture charts dry-run.
	Pinned   map[string]string
	Releases []release
}

type release struct {
	Release  string
	Settings []setting
}

type setting struct {
	Name                        string
	FeatureGates, RuntimeConfig string
	// Claim is the version the probes' claim was created through.
	Claim string
	// Probes are the results by library line ("v0.31").
	Probes map[string]result
	// Charts are the server's refusals of each of support's fixture
	// charts (harness.SupportCharts), rendered for the setting.
	Charts map[string][]string
}

// result is what a probe printed.
type result struct {
	Publish        string `json:"publish"`
	PublishVersion string `json:"publishVersion,omitempty"`
	Read           string `json:"read"`
	ReadVersion    string `json:"readVersion,omitempty"`
}

// runs: published, and read where the line has a claim reader.
func (r result) runs() bool { return r.Publish == "ok" && (r.Read == "ok" || r.Read == "none") }

func line(lib int) string { return fmt.Sprintf("v0.%d", lib) }

// TestLibraryProbes: at a release's defaults, the matrix says `works`
// exactly where the library's own code published its ResourceSlice (and
// read a claim, where its kubeletplugin reads claims); `needs-flags` where
// it did so only with every version served, and those flags hold the
// matrix's; `cannot` where it did neither. Each slice and claim went
// through a version api.Through names for the library, and from v0.34 the
// newest of them the release served. The DRA gRPC half of a cell is
// TestKubeletPlugins'. Each fixture chart: checkChart.
func TestLibraryProbes(t *testing.T) {
	pinned := pins(t, "probe")
	b := recorded.File(t, recording, pinned, func(b book) map[string]string { return b.Pinned }, func() book { return record(t, pinned) })
	if len(b.Releases) != last-first+1 {
		t.Fatalf("%s has %d releases, want 1.%d–1.%d: run `make record`", recording, len(b.Releases), first, last)
	}
	for _, r := range b.Releases {
		minor, _ := api.ParseMinor(r.Release)
		at := map[string]setting{}
		for _, s := range r.Settings {
			at[s.Name] = s
		}
		for lib := first; lib <= last; lib++ {
			t.Run(fmt.Sprintf("%s/%s", line(lib), r.Release), func(t *testing.T) {
				def, every := at[defaults], at[everyVersion]
				want := support.Cannot
				switch {
				case def.Probes[line(lib)].runs() && !noDRA(minor):
					want = support.Works
				case def.Probes[line(lib)].runs() || every.Probes[line(lib)].runs():
					want = support.NeedsFlags
				}
				cells := support.Driver{Binaries: []support.Binary{{Path: ".", Library: lib}}}.Cells(minor)
				if got := cells[0].Verdict; got != want {
					t.Errorf("support says %s %s at its defaults (%q); the library's code: %s at defaults %+v, %s with %s %s: %+v",
						got, r.Release, cells[0].Reasons, want, def.Probes[line(lib)], every.Name, every.FeatureGates, every.RuntimeConfig, every.Probes[line(lib)])
				}
				if want == support.NeedsFlags && cells[0].Verdict == want {
					recorded := items("--feature-gates=" + every.FeatureGates + " --runtime-config=" + every.RuntimeConfig + "," + def.RuntimeConfig)
					for _, f := range items(cells[0].Flags) {
						if !slices.Contains(recorded, f) {
							t.Errorf("support's flags %s: %s is not among the recorded %s", cells[0].Flags, f, recorded)
						}
					}
				}
				for _, s := range r.Settings {
					checkVersions(t, minor, lib, s)
				}
			})
		}
		for _, chart := range harness.SupportCharts {
			t.Run("chart-"+chart+"/"+r.Release, func(t *testing.T) { checkChart(t, chart, minor, at) })
		}
	}
}

// checkChart: support says the chart works at a release's defaults
// exactly where that kube-apiserver created its objects rendered for the
// defaults, and that it runs with flags exactly where it created them with
// every version served. A release the chart's kubeVersion refuses is
// Helm's to refuse: its objects are not compared.
func checkChart(t *testing.T, chart string, minor int, at map[string]setting) {
	verdict, err := harness.SupportVerdict(chart, minor, support.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	def, okDef := at[defaults].Charts[chart]
	every, okEvery := at[everyVersion].Charts[chart]
	switch {
	case !okDef || !okEvery:
		t.Fatalf("%s has no dry run of chart %s on 1.%d: run `make record`", recording, chart, minor)
	case verdict == support.Refused:
	case noDRA(minor) && verdict == support.Works:
		t.Errorf("support says %s at the defaults of 1.%d, which run no DRA", verdict, minor)
	case !noDRA(minor) && (verdict == support.Works) != (len(def) == 0):
		t.Errorf("support says %s at the defaults of 1.%d; kube-apiserver 1.%d refused %q", verdict, minor, minor, def)
	case (verdict == support.Works || verdict == support.NeedsFlags) != (len(every) == 0 || noDRA(minor) && len(def) == 0):
		t.Errorf("support says %s at the defaults of 1.%d; kube-apiserver 1.%d with every version refused %q", verdict, minor, minor, every)
	}
}

// noDRA reports whether release minor runs no DRA at its own defaults:
// there the recording's defaults are api.Defaults' Sketch, and support's
// cell with flags is what they ran.
func noDRA(minor int) bool { return api.Defaults(minor).Sketch() != "" }

// items are flags one value each: "--runtime-config=resource.k8s.io/v1beta1=true".
func items(flags string) []string {
	var out []string
	for _, f := range strings.Fields(flags) {
		key, values, _ := strings.Cut(f, "=")
		for _, v := range strings.Split(values, ",") {
			if v != "" {
				out = append(out, key+"="+v)
			}
		}
	}
	return out
}

// checkVersions: the probe of lib wrote and read through versions
// api.Through names for the library (components.tsv), from v0.34 the
// newest the release served with s; it read nothing where Through names
// no claims.
func checkVersions(t *testing.T, minor, lib int, s setting) {
	t.Helper()
	res := s.Probes[line(lib)]
	c, err := harness.Cluster(fmt.Sprintf("1.%d", minor), s.FeatureGates, s.RuntimeConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, io := range []struct{ kind, status, version string }{
		{api.KindResourceSlice, res.Publish, res.PublishVersion},
		{api.KindClaim, res.Read, res.ReadVersion},
	} {
		through := api.Through(lib, api.DriverLibrary, io.kind)
		if len(through) == 0 {
			if io.status != "none" {
				t.Errorf("%s: api.Through names no %s for %s, but the probe read them (%s)", s.Name, io.kind, line(lib), io.status)
			}
			continue
		}
		if io.status == "none" {
			t.Errorf("%s: api.Through names %s %s for %s, but the probe has no reader", s.Name, through, io.kind, line(lib))
		}
		if io.status != "ok" {
			continue
		}
		if !slices.Contains(through, io.version) {
			t.Errorf("%s: %s went through %s, which api.Through(%d) does not name (%s)", s.Name, io.kind, io.version, lib, through)
		}
		newest := ""
		for _, v := range through {
			if c.Serves(v, io.kind) {
				newest = v
			}
		}
		if newest != io.version {
			t.Errorf("%s: %s went through %s; the newest of %s that 1.%d serves is %q", s.Name, io.kind, io.version, through, minor, newest)
		}
	}
}

// pins are the versions hack/tools pins of kube-apiserver 1.31–1.37 (and
// so of the kubelet), those api/featuregates.tsv names of the library
// v0.31–v0.37, and the digests of the sources of programs.
func pins(t *testing.T, programs ...string) map[string]string {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for minor := first; minor <= last; minor++ {
		if pinned[fmt.Sprintf("kube-apiserver 1.%d", minor)], err = recorded.Pinned(filepath.Join(tools(root, minor), "go.mod")); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(root, "api", "featuregates.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^#\s+1\.(\d+): k8s\.io/kubernetes@\S+ \+ k8s\.io/\{[^}]*\bdynamic-resource-allocation\b[^}]*\}@(v0\.\d+\.\d+)\s`)
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		if minor, _ := api.ParseMinor("1." + m[1]); minor >= first && minor <= last {
			pinned["dynamic-resource-allocation v0."+m[1]] = m[2]
		}
	}
	if len(pinned) != 2*(last-first+1) {
		t.Fatalf("api/featuregates.tsv names no library version of some of v0.%d–v0.%d: %v", first, last, pinned)
	}
	for _, p := range programs {
		_, pinned[p+" sources"] = sources(t, p)
	}
	if slices.Contains(programs, "probe") {
		pinned["fixture charts"] = charts(t, root)
	}
	return pinned
}

// tools is the module of hack/tools that builds kube-apiserver 1.minor.
func tools(root string, minor int) string {
	if minor == last {
		return filepath.Join(root, "hack", "tools", "kube-apiserver")
	}
	return filepath.Join(root, "hack", "tools", fmt.Sprintf("kube-apiserver-1.%d", minor))
}

// settings are the flags release minor is started with: its defaults, and
// those with every non-GA version of resource.k8s.io it has.
func settings(minor int) []setting {
	var gates, runtime string
	for _, f := range strings.Fields(api.Defaults(minor).Sketch()) {
		if v, ok := strings.CutPrefix(f, "--feature-gates="); ok {
			gates = v
		}
		if v, ok := strings.CutPrefix(f, "--runtime-config="); ok {
			runtime = v
		}
	}
	var every []string
	for _, v := range []string{api.V1alpha3, api.V1beta1, api.V1beta2} {
		if api.Bare(minor).Has(v, api.KindResourceSlice) || api.Bare(minor).Has(v, api.KindClaim) {
			every = append(every, api.UpstreamGroup+"/"+v+"=true")
		}
	}
	return []setting{
		{Name: defaults, FeatureGates: gates, RuntimeConfig: runtime},
		{Name: everyVersion, FeatureGates: gates, RuntimeConfig: strings.Join(every, ",")},
	}
}

// record builds the probes, then asks each release with each setting.
func record(t *testing.T, pinned map[string]string) book {
	probes := map[int]string{}
	for lib := first; lib <= last; lib++ {
		start := time.Now()
		probes[lib] = buildLibrary(t, "probe", fmt.Sprintf("lib0%d", min(lib, 34)), pinned["dynamic-resource-allocation "+line(lib)]) // v0.34 and later share an API
		t.Logf("probe %s: %s (%s)", line(lib), probes[lib], time.Since(start).Round(time.Second))
	}
	b := book{Pinned: pinned}
	for minor := first; minor <= last; minor++ {
		r := release{Release: fmt.Sprintf("1.%d", minor)}
		for _, s := range settings(minor) {
			start := time.Now()
			s.Probes = ask(t, minor, &s, probes)
			t.Logf("1.%d %s: %s", minor, s.Name, time.Since(start).Round(time.Second))
			r.Settings = append(r.Settings, s)
		}
		b.Releases = append(b.Releases, r)
	}
	return b
}

// buildLibrary builds program with tag against the library (and its
// client-go) at version.
func buildLibrary(t *testing.T, program, tag, version string) string {
	return build(t, program, tag, version, func(string) [][]string {
		return [][]string{
			{"mod", "init", "claimbridge.dev/" + program},
			{"get", "k8s.io/dynamic-resource-allocation@" + version, "k8s.io/client-go@" + version},
		}
	})
}

// build builds program (testdata/PROGRAM) with tag in a module of its
// own, which setup prepares in dir or returns the go commands that do,
// or finds it built in $CLAIMBRIDGE_CACHE/probes under the name of what it
// is built against and the digest of its sources.
func build(t *testing.T, program, tag, against string, setup func(dir string) [][]string) string {
	files, sum := sources(t, program)
	bin := filepath.Join(cacheDir(t), "probes", against+"-"+sum, program)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	dir := t.TempDir()
	for _, src := range files {
		data, _ := os.ReadFile(src)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	for _, args := range append(setup(dir), []string{"build", "-tags", tag, "-o", bin + ".tmp", "."}) {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: go %s: %v\n%s", program, against, strings.Join(args, " "), err, out)
		}
	}
	if err := os.Rename(bin+".tmp", bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// sources are the files of testdata/PROGRAM and their digest, which
// names the programs built from them and is pinned in the recordings.
func sources(t *testing.T, program string) (files []string, digest string) {
	files, err := filepath.Glob(filepath.Join("testdata", program, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/%s: %v", program, err)
	}
	sum := sha256.New()
	for _, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(sum, "%s\n%d\n", filepath.Base(src), len(data))
		sum.Write(data)
	}
	return files, hex.EncodeToString(sum.Sum(nil))[:12]
}

// charts is the digest of support's fixture charts that the recording
// dry-runs (harness.SupportCharts).
func charts(t *testing.T, root string) string {
	sum := sha256.New()
	for _, chart := range harness.SupportCharts {
		err := filepath.WalkDir(filepath.Join(root, "support", "testdata", "charts", chart), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			fmt.Fprintf(sum, "%s\n%d\n", filepath.ToSlash(strings.TrimPrefix(path, root)), len(data))
			sum.Write(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(sum.Sum(nil))[:12]
}

// cacheDir is hack/cache.sh's cache.
func cacheDir(t *testing.T) string {
	if dir := os.Getenv("CLAIMBRIDGE_CACHE"); dir != "" {
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "claimbridge")
}

// assets is release minor's assets directory, as `make record` sets it.
func assets(minor int) (string, error) {
	if minor == last {
		return harness.AssetsDirFrom("KUBEBUILDER_ASSETS", "--print-assets-dir")
	}
	name := fmt.Sprintf("1.%d", minor)
	return harness.AssetsDirFrom("ENVTEST_ASSETS_"+strings.ReplaceAll(name, ".", "_"), "--print-assets-dir="+name)
}

// ask starts release minor with s's flags, creates the Node the probes
// publish for and a claim in the newest version it serves, and runs every
// probe on it at once.
func ask(t *testing.T, minor int, s *setting, probes map[int]string) map[string]result {
	name := fmt.Sprintf("1.%d", minor)
	dir, err := assets(minor)
	if err == nil {
		err = harness.CheckRelease(dir, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: dir, ControlPlaneStartTimeout: 90 * time.Second}
	apiserver := env.ControlPlane.GetAPIServer()
	apiserver.Path = filepath.Join(dir, "kube-apiserver")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(dir, "etcd")}
	var output bytes.Buffer
	apiserver.Err = &output
	args := apiserver.Configure()
	if s.FeatureGates != "" {
		args.Set("feature-gates", s.FeatureGates)
	}
	if s.RuntimeConfig != "" {
		args.Set("runtime-config", s.RuntimeConfig)
	}
	config, err := env.Start()
	if err != nil {
		_ = harness.StopControlPlane(env, "")
		t.Fatalf("starting Kubernetes %s with %+v: %v\n%s", name, s, err, output.String())
	}
	defer func() {
		if err := harness.StopControlPlane(env, ""); err != nil {
			t.Error(err)
		}
	}()
	if err := prepare(config, name, s); err != nil {
		t.Fatalf("%s %s: %v", name, s.Name, err)
	}
	if s.Charts, err = dryRun(config, name, s); err != nil {
		t.Fatalf("%s %s: %v", name, s.Name, err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: config.Host, CertificateAuthorityData: config.CAData}
	kc.AuthInfos["c"] = &clientcmdapi.AuthInfo{ClientCertificateData: config.CertData, ClientKeyData: config.KeyData}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "c"}
	kc.CurrentContext = "c"
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	results := map[string]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for lib, bin := range probes {
		wg.Go(func() {
			cmd := exec.Command(bin, "-kubeconfig", kubeconfig, "-driver", fmt.Sprintf("probe-v0-%d.example.com", lib), "-claim", "probe", "-timeout", "10s")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var r result
			if err == nil {
				err = json.Unmarshal(out, &r)
			}
			if err != nil {
				r = result{Publish: fmt.Sprintf("probe failed: %v: %s", err, stderr.String()), Read: "-"}
			}
			mu.Lock()
			results[line(lib)] = r
			mu.Unlock()
		})
	}
	wg.Wait()
	return results
}

// dryRun creates the objects of each of support's fixture charts,
// rendered for s, with a server-side dry run, and returns the refusals.
func dryRun(config *rest.Config, name string, s *setting) (map[string][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	c, err := harness.Cluster(name, s.FeatureGates, s.RuntimeConfig)
	if err != nil {
		return nil, err
	}
	refused := map[string][]string{}
	for _, chart := range harness.SupportCharts {
		if refused[chart], err = harness.SupportRefusals(ctx, d, chart, c); err != nil {
			return nil, err
		}
	}
	return refused, nil
}

// prepare creates the Node node-1 and the ResourceClaim default/probe,
// through the newest version s serves, which it records.
func prepare(config *rest.Config, name string, s *setting) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	c, err := harness.Cluster(name, s.FeatureGates, s.RuntimeConfig)
	if err != nil {
		return err
	}
	for _, v := range api.ConversionVersions {
		if c.Serves(v, api.KindClaim) && (s.Claim == "" || api.VersionIndex(v) > api.VersionIndex(s.Claim)) {
			s.Claim = v
		}
	}
	if s.Claim == "" {
		return fmt.Errorf("serves no ResourceClaims")
	}
	request := map[string]interface{}{"name": "req", "deviceClassName": "probe.example.com"}
	if s.Claim != api.V1alpha3 && s.Claim != api.V1beta1 {
		request = map[string]interface{}{"name": "req", "exactly": map[string]interface{}{"deviceClassName": "probe.example.com"}}
	}
	claim := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": api.UpstreamGroup + "/" + s.Claim, "kind": api.KindClaim,
		"metadata": map[string]interface{}{"name": "probe", "namespace": "default"},
		"spec":     map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{request}}},
	}}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(schema.GroupVersionResource{Group: api.UpstreamGroup, Version: s.Claim, Resource: "resourceclaims"}).
		Namespace("default").Create(ctx, claim, metav1.CreateOptions{})
	return err
}
