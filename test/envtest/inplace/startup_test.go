// Package inplace proves what an upgrade or a rollback in place does to a
// cluster: the real kube-apiservers of two releases, one after the other.
package inplace

// TestStartupRefusals proves `claimbridge check`'s refusals against the
// real kube-apiservers: for every change 1.30↔1.31 … 1.36↔1.37, the second
// release's kube-apiserver is started with the first's DRA flags, in two
// sets (every DRA gate on with every version, every unlocked DRA gate off).
// Each line it refuses to start with must be one claimbridge predicts,
// with the flag named; the flag is then dropped and it is started again,
// until it starts: every refusal predicted must have been met, none
// invented. Once it starts, the resource.k8s.io versions it serves are
// those claimbridge predicts for those flags (a rollback to 1.33 from
// 1.34's flags serves none).
//
// Under `make record` the apiservers answer (each on an etcd of its own
// release's assets) and testdata/startup.json is written; otherwise the
// recording is replayed, and is stale when a kube-apiserver pinned in
// hack/tools is not the one recorded.

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
)

const startupRecording = "testdata/startup.json"

// startup is what a kube-apiserver did with a cluster's flags.
type startup struct {
	From, To, Set               string
	FeatureGates, RuntimeConfig string
	// Refused are the lines it refused to start with, in its words, as
	// each flag refused was dropped in turn.
	Refused []string `json:",omitempty"`
	// Served are the resource.k8s.io versions it served once started.
	Served []string
}

type startupBook struct {
	// KubeAPIServer is the version of each release's kube-apiserver asked.
	KubeAPIServer map[string]string
	Startups      []startup
}

// draFlags are the flags of a DRA cluster of release minor: set "on", every
// DRA gate on (but those that need gates of other features: their APIs need
// flags of their own) and every version of resource.k8s.io served; set "off",
// every unlocked DRA gate off but DynamicResourceAllocation, with the
// versions a DRA cluster of the release serves.
func draFlags(minor int, set string) (gates, runtime string) {
	var gs, vs []string
	names := api.DRAGates(minor)
	for _, name := range names {
		spec, _ := api.Gate(minor, name)
		outside := slices.ContainsFunc(spec.Deps, func(dep string) bool { return !slices.Contains(names, dep) })
		switch {
		case spec.Locked:
		case set == "on" && !outside || name == api.DynamicResourceAllocation:
			gs = append(gs, name+"=true")
		case set == "off":
			gs = append(gs, name+"=false")
		}
	}
	for _, v := range api.ConversionVersions {
		if api.Registered(v, minor) && (set == "on" || api.Defaults(minor).Serves(v, api.KindClaim)) {
			vs = append(vs, api.UpstreamGroup+"/"+v+"=true")
		}
	}
	return strings.Join(gs, ","), strings.Join(vs, ",")
}

func TestStartupRefusals(t *testing.T) {
	var pairs [][2]int
	for minor := 30; minor < 37; minor++ {
		pairs = append(pairs, [2]int{minor, minor + 1}, [2]int{minor + 1, minor})
	}
	pinned := pinnedAPIServers(t)
	book := recorded.File(t, startupRecording, pinned, func(b startupBook) map[string]string { return b.KubeAPIServer },
		func() startupBook { return recordStartups(t, pairs, pinned) })
	if len(book.Startups) != 2*len(pairs) {
		t.Fatalf("%s has %d startups, want %d: run `make record`", startupRecording, len(book.Startups), 2*len(pairs))
	}
	for i, s := range book.Startups {
		p, set := pairs[i/2], []string{"on", "off"}[i%2]
		t.Run(fmt.Sprintf("1.%d-to-1.%d-gates-%s", p[0], p[1], set), func(t *testing.T) {
			gates, runtime := draFlags(p[0], set)
			if s.From != fmt.Sprintf("1.%d", p[0]) || s.To != fmt.Sprintf("1.%d", p[1]) || s.Set != set || s.FeatureGates != gates || s.RuntimeConfig != runtime {
				t.Fatalf("the recording is of other flags (%+v): run `make record`", s)
			}
			from := api.Bare(p[0])
			if err := from.Set(gates, runtime); err != nil {
				t.Fatalf("1.%d refuses its own flags: %v", p[0], err)
			}
			_, refusals := from.Upgrade(p[1])
			var predicted []string
			for _, r := range refusals {
				if r.Lacks() { // no refusal to start
					continue
				}
				predicted = append(predicted, r.Message)
			}
			var met []string
			for _, line := range s.Refused {
				i := slices.IndexFunc(predicted, func(msg string) bool { return strings.Contains(line, msg) })
				if i < 0 {
					t.Errorf("kube-apiserver 1.%d refused to start with a setting claimbridge did not name: %s", p[1], line)
					continue
				}
				met = append(met, predicted[i])
			}
			slices.Sort(met)
			slices.Sort(predicted)
			if diff := cmp.Diff(predicted, met); diff != "" {
				t.Errorf("refusals predicted (-) that kube-apiserver 1.%d did not make (+ ones made twice):\n%s", p[1], diff)
			}
			target := api.Bare(p[1])
			gatesKept, runtimeKept := keptFlags(from, p[1])
			if err := target.Set(gatesKept, runtimeKept); err != nil {
				t.Fatal(err)
			}
			var served []string
			for _, v := range api.ConversionVersions {
				if slices.ContainsFunc([]string{api.KindClaim, api.KindDeviceClass, api.KindDeviceTaintRule}, func(kind string) bool { return target.Serves(v, kind) }) {
					served = append(served, v)
				}
			}
			if diff := cmp.Diff(s.Served, served, cmp.Transformer("sorted", func(in []string) []string { out := slices.Clone(in); slices.Sort(out); return out })); diff != "" {
				t.Errorf("1.%d started with 1.%d's flags less those refused: served versions (-kube-apiserver +claimbridge):\n%s", p[1], p[0], diff)
			}
		})
	}
}

// replay is the recording of file: under `make record`, what record
// returns from the kube-apiservers pinned, written to file; otherwise file
// read, and refused as stale when kube-apiservers other than those pinned
// answered it (pinnedOf).
func replay[T any](t *testing.T, file string, record func(pinned map[string]string) T, pinnedOf func(T) map[string]string) T {
	t.Helper()
	pinned := pinnedAPIServers(t)
	var book T
	if recorded.Recording {
		book = record(pinned)
		data, err := json.MarshalIndent(book, "", "  ")
		if err == nil {
			err = os.WriteFile(file, append(data, '\n'), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return book
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v: run `make record`", err)
	}
	if err := json.Unmarshal(data, &book); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pinned, pinnedOf(book)); d != "" {
		t.Fatalf("%s was recorded with other kube-apiservers than hack/tools pins: run `make record` (-pinned +recorded):\n%s", file, d)
	}
	return book
}

// pinnedAPIServers are the versions of kube-apiserver 1.30–1.37 that
// hack/tools pins, by release.
func pinnedAPIServers(t *testing.T) map[string]string {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for minor := 30; minor <= 37; minor++ {
		dir := filepath.Join(root, "hack", "tools", fmt.Sprintf("kube-apiserver-1.%d", minor))
		if minor == 37 {
			dir = filepath.Join(root, "hack", "tools", "kube-apiserver")
		}
		if pinned[fmt.Sprintf("1.%d", minor)], err = recorded.Pinned(filepath.Join(dir, "go.mod")); err != nil {
			t.Fatal(err)
		}
	}
	return pinned
}

// keptFlags are from's flags less those release minor refuses, as
// kube-apiserver is started once they are dropped.
func keptFlags(from api.Cluster, minor int) (gates, runtime string) {
	_, refusals := from.Upgrade(minor)
	var g, r []string
	for _, f := range strings.Fields(from.SettingsString()) {
		key, value, _ := strings.Cut(f, "=")
		for _, kv := range strings.Split(value, ",") {
			setting := key + "=" + kv
			if slices.ContainsFunc(refusals, func(ref api.Refusal) bool { return ref.Setting == setting }) {
				continue
			}
			if key == "--feature-gates" {
				g = append(g, kv)
			} else {
				r = append(r, kv)
			}
		}
	}
	return strings.Join(g, ","), strings.Join(r, ",")
}

// recordStartups asks each pair's second kube-apiserver, and writes the
// recording.
func recordStartups(t *testing.T, pairs [][2]int, pinned map[string]string) startupBook {
	book := startupBook{KubeAPIServer: pinned}
	key, tokens := credentials(t)
	for _, p := range pairs {
		name := fmt.Sprintf("1.%d", p[1])
		assets, err := assetsOf(p[1])
		if err != nil {
			t.Fatal(err)
		}
		etcd := &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
		if err := etcd.Start(); err != nil {
			t.Fatal(err)
		}
		for _, set := range []string{"on", "off"} {
			gates, runtime := draFlags(p[0], set)
			from := api.Bare(p[0])
			if err := from.Set(gates, runtime); err != nil {
				t.Fatalf("1.%d refuses its own flags %s %s: %v", p[0], gates, runtime, err)
			}
			_, refusals := from.Upgrade(p[1])
			s := startup{From: fmt.Sprintf("1.%d", p[0]), To: name, Set: set, FeatureGates: gates, RuntimeConfig: runtime}
			g, r := splitFlags(gates), splitFlags(runtime)
			for attempt := 0; ; attempt++ {
				refused, served, err := startAPIServer(filepath.Join(assets, "kube-apiserver"), etcd.URL.String(), key, tokens, strings.Join(g, ","), strings.Join(r, ","))
				if err != nil {
					t.Fatalf("1.%d with %v %v: %v", p[1], g, r, err)
				}
				if refused == "" {
					s.Served = served
					break
				}
				s.Refused = append(s.Refused, refused)
				i := slices.IndexFunc(refusals, func(ref api.Refusal) bool { return strings.Contains(refused, ref.Message) })
				if i < 0 || attempt > 10 {
					break // unpredicted: the replay says so
				}
				drop := strings.TrimPrefix(strings.TrimPrefix(refusals[i].Setting, "--feature-gates="), "--runtime-config=")
				g, r = slices.DeleteFunc(g, func(s string) bool { return s == drop }), slices.DeleteFunc(r, func(s string) bool { return s == drop })
			}
			book.Startups = append(book.Startups, s)
		}
		if err := etcd.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	return book
}

// credentials writes the apiservers' service account key and the file of
// the suite's token.
func credentials(t *testing.T) (key, tokens string) {
	dir := t.TempDir()
	key, tokens = filepath.Join(dir, "sa.key"), filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",inplace,inplace,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), 0o600); err != nil {
		t.Fatal(err)
	}
	return key, tokens
}

// assetsOf is the directory of release minor's kube-apiserver and etcd.
func assetsOf(minor int) (string, error) {
	if minor == 37 {
		return harness.AssetsDirFrom("KUBEBUILDER_ASSETS", "--print-assets-dir")
	}
	name := fmt.Sprintf("1.%d", minor)
	return harness.AssetsDirFrom("ENVTEST_ASSETS_"+strings.ReplaceAll(name, ".", "_"), "--print-assets-dir="+name)
}

func splitFlags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// startAPIServer starts the kube-apiserver at path with the flags given.
// It returns the line it refused to start with, or, once it is ready, the
// resource.k8s.io versions it serves.
func startAPIServer(path, etcdURL, key, tokens, gates, runtime string) (refused string, served []string, err error) {
	s, refused, err := launch(path, etcdURL, fmt.Sprintf("/startup-%d", time.Now().UnixNano()), key, tokens, gates, runtime)
	if s == nil {
		return refused, nil, err
	}
	defer s.stop()
	var group struct{ Versions []struct{ Version string } }
	if code, err := s.do(http.MethodGet, "/apis/"+api.UpstreamGroup, nil, &group); err != nil && code != http.StatusNotFound {
		return "", nil, err
	}
	for _, v := range group.Versions {
		served = append(served, v.Version)
	}
	return "", served, nil
}

// apiserver is a running kube-apiserver.
type apiserver struct {
	port   int
	client *http.Client
	cmd    *exec.Cmd
	exited chan error
	dir    string
}

// launch starts the kube-apiserver at path on etcd under prefix (with more
// flags, if any), and waits
// until it is ready (s), or has exited: refused is then the line it
// refused to start with.
func launch(path, etcdURL, prefix, key, tokens, gates, runtime string, flags ...string) (s *apiserver, refused string, err error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "inplace")
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(path, "--etcd-servers="+etcdURL, "--etcd-prefix="+prefix,
		"--cert-dir="+dir, fmt.Sprintf("--secure-port=%d", port), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none", "--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+key, "--service-account-signing-key-file="+key, "--authorization-mode=AlwaysAllow", "--token-auth-file="+tokens,
		"--feature-gates="+gates, "--runtime-config="+runtime)
	cmd.Args = append(cmd.Args, flags...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s = &apiserver{port: port, cmd: cmd, exited: make(chan error, 1), dir: dir,
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}}
	go func() { s.exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case <-s.exited:
			os.RemoveAll(dir)
			return nil, refusalLine(out.String()), nil
		case <-deadline:
			s.stop()
			return nil, "", fmt.Errorf("not ready in 2 minutes:\n%s", out.String())
		case <-time.After(500 * time.Millisecond):
		}
		if _, err := s.do(http.MethodGet, "/readyz", nil, nil); err == nil {
			return s, "", nil
		}
	}
}

// stop kills the apiserver and waits for it.
func (s *apiserver) stop() {
	_ = s.cmd.Process.Kill()
	<-s.exited
	os.RemoveAll(s.dir)
}

// do sends a request with body (JSON, when not nil) and decodes a 2xx
// answer into out (when not nil); it returns the status code.
func (s *apiserver) do(method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, fmt.Sprintf("https://127.0.0.1:%d%s", s.port, path), r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return resp.StatusCode, err
	case resp.StatusCode/100 != 2:
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	case out != nil:
		return resp.StatusCode, json.Unmarshal(data, out)
	}
	return resp.StatusCode, nil
}

// token is the bearer token of the suite's client.
const token = "startup-token"

// refusalLine is what kube-apiserver's output says it exited for: the
// err="…" of its last line that has one (from 1.31), else what follows the
// last "Error: ".
func refusalLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, line := range slices.Backward(lines) {
		if _, msg, ok := strings.Cut(line, ` err="`); ok {
			return strings.ReplaceAll(strings.TrimSuffix(strings.TrimSpace(msg), `"`), `\"`, `"`)
		}
		if _, msg, ok := strings.Cut(line, "Error: "); ok {
			return strings.TrimSpace(msg)
		}
	}
	return lines[len(lines)-1]
}
