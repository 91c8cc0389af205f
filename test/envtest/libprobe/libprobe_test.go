// Package libprobe proves `claimbridge support`'s matrix with the real code
// of both sides: each line of k8s.io/dynamic-resource-allocation (v0.31 …
// v0.37), built as a small program (testdata/probe), runs its own
// ResourceSlice controller and claim reader against the real
// kube-apiservers 1.31–1.37, at their defaults and with every non-GA
// version of resource.k8s.io served.
//
// Under `make record` the probes are built (cached in
// $CLAIMBRIDGE_CACHE/probes) and run, and testdata/probes.json is written;
// otherwise the recording is replayed against support.Driver.Cells.
package libprobe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	// 1.34 with DRA on and its own versions: api.Defaults' Sketch).
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
	// ("dynamic-resource-allocation v0.31") that answered, and the digest
	// of testdata/probe ("probe sources") the probes were built from.
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
// newest of them the release served.
//
// The DRA gRPC half of a cell (the kubelet of the release and the
// library's kubeletplugin sharing a version: evaluation.grpc) comes from
// the sources (api/components.tsv, dra-grpc), not from this recording: no
// kubelet runs here. In 1.31–1.37 no cell is `cannot` for gRPC alone: the
// library's REST versions fail there too, as the recording shows.
func TestLibraryProbes(t *testing.T) {
	pinned := pins(t)
	var b book
	if recorded.Recording {
		b = record(t, pinned)
		data, err := json.MarshalIndent(b, "", "  ")
		if err == nil {
			err = os.WriteFile(recording, append(data, '\n'), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	} else {
		data, err := os.ReadFile(recording)
		if err != nil {
			t.Fatalf("%v: run `make record`", err)
		}
		if err := json.Unmarshal(data, &b); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(pinned, b.Pinned); d != "" {
			t.Fatalf("%s was recorded with other kube-apiservers or libraries than hack/tools and api/featuregates.tsv pin, or other probes than testdata/probe: run `make record` (-pinned +recorded):\n%s", recording, d)
		}
	}
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
				case def.Probes[line(lib)].runs():
					want = support.Works
				case every.Probes[line(lib)].runs():
					want = support.NeedsFlags
				}
				cells := support.Driver{Module: &support.Module{Minors: map[string]int{support.LibraryModule: lib}}}.Cells(minor)
				if got := cells[0].Verdict; got != want {
					t.Errorf("support says %s %s at its defaults (%q); the library's code: %s at defaults %+v, %s with %s %s: %+v",
						got, r.Release, cells[0].Reasons, want, def.Probes[line(lib)], every.Name, every.FeatureGates, every.RuntimeConfig, every.Probes[line(lib)])
				}
				if want == support.NeedsFlags && cells[0].Verdict == want {
					recorded := items("--feature-gates=" + every.FeatureGates + " --runtime-config=" + every.RuntimeConfig)
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
	}
}

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

// pins are the versions hack/tools pins of kube-apiserver 1.31–1.37, and
// those api/featuregates.tsv names of the library v0.31–v0.37.
func pins(t *testing.T) map[string]string {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for minor := first; minor <= last; minor++ {
		dir := filepath.Join(root, "hack", "tools", fmt.Sprintf("kube-apiserver-1.%d", minor))
		if minor == last {
			dir = filepath.Join(root, "hack", "tools", "kube-apiserver")
		}
		if pinned[fmt.Sprintf("kube-apiserver 1.%d", minor)], err = recorded.Pinned(filepath.Join(dir, "go.mod")); err != nil {
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
	_, pinned["probe sources"] = probeSources(t)
	return pinned
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
		probes[lib] = build(t, lib, pinned["dynamic-resource-allocation "+line(lib)])
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

// build builds the probe of lib at version in a module of its own, or
// finds it built in $CLAIMBRIDGE_CACHE/probes.
func build(t *testing.T, lib int, version string) string {
	sources, sum := probeSources(t)
	bin := filepath.Join(cacheDir(t), "probes", version+"-"+sum, "probe")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	dir := t.TempDir()
	for _, src := range sources {
		data, _ := os.ReadFile(src)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tag := fmt.Sprintf("lib0%d", min(lib, 34)) // v0.34 and later share an API
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	for _, args := range [][]string{
		{"mod", "init", "claimbridge.dev/libprobe"},
		{"get", "k8s.io/dynamic-resource-allocation@" + version, "k8s.io/client-go@" + version},
		{"build", "-tags", tag, "-o", bin + ".tmp", "."},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("probe %s: go %s: %v\n%s", line(lib), strings.Join(args, " "), err, out)
		}
	}
	if err := os.Rename(bin+".tmp", bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// probeSources are the files of testdata/probe and their digest, which
// names the probes built from them and is pinned in the recording.
func probeSources(t *testing.T) (sources []string, digest string) {
	sources, err := filepath.Glob("testdata/probe/*.go")
	if err != nil || len(sources) == 0 {
		t.Fatalf("testdata/probe: %v", err)
	}
	sum := sha256.New()
	for _, src := range sources {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(sum, "%s\n%d\n", filepath.Base(src), len(data))
		sum.Write(data)
	}
	return sources, hex.EncodeToString(sum.Sum(nil))[:12]
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
