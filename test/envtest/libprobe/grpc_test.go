package libprobe

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/support"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
)

const grpcRecording = "testdata/grpc.json"

// grpcBook is the recording of the kubelets and the kubelet plugins.
type grpcBook struct {
	// Pinned: as book's, with the digests of testdata/kubelet and
	// testdata/plugin.
	Pinned map[string]string
	Calls  []call
}

// call is what the kubelet of Release said of the plugin of Library.
type call struct {
	Release, Library string
	// Register and Call are the kubelet's: "ok", or what failed.
	Register, Call string
	// Methods are the gRPC methods the plugin served.
	Methods []string `json:",omitempty"`
}

// services are the DRA gRPC services by the version of k8s.io/kubelet's
// package that defines them (v1alpha4's proto package is v1alpha3).
var services = map[string]string{
	"v1alpha3.Node": "v1alpha4",
	"k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin": api.V1beta1,
	"k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin":      api.V1,
}

// TestKubeletPlugins: the kubelet of each release 1.31–1.37, its own DRA
// plugin handler and gRPC client, registers the kubeletplugin of each
// library line v0.31–v0.37 and calls it exactly where support's matrix
// says it can (api.SharedGRPC: the versions both sides' sources speak,
// and the registration the kubelet reads), and through the newest of
// those.
func TestKubeletPlugins(t *testing.T) {
	pinned := pins(t, "kubelet", "plugin")
	b := recorded.File(t, grpcRecording, pinned, func(b grpcBook) map[string]string { return b.Pinned }, func() grpcBook { return recordGRPC(t, pinned) })
	if support.GRPCRun != [2]int{first, last} {
		t.Fatalf("support.GRPCRun is %d; this recording runs the kubelets of 1.%d–1.%d against the kubeletplugins of v0.%d–v0.%d", support.GRPCRun, first, last, first, last)
	}
	if want := (last - first + 1) * (last - first + 1); len(b.Calls) != want {
		t.Fatalf("%s has %d calls, want %d: run `make record`", grpcRecording, len(b.Calls), want)
	}
	for _, c := range b.Calls {
		t.Run(c.Library+"/"+c.Release, func(t *testing.T) {
			minor, _ := api.ParseMinor(c.Release)
			lib, _ := api.ParseMinor("1." + strings.TrimPrefix(c.Library, "v0."))
			kubelet, plugin := api.GRPC(minor, api.Kubelet), api.GRPC(lib, api.DriverLibrary)
			shared := api.SharedGRPC(minor, lib)
			cells := support.Driver{Binaries: []support.Binary{{Path: ".", Library: lib}}}.Cells(minor)
			says := !slices.ContainsFunc(cells[0].Reasons, func(r string) bool {
				return strings.HasPrefix(r, fmt.Sprintf("the kubelet of %s ", c.Release))
			})
			works := c.Register == "ok" && c.Call == "ok"
			if works != says || works != (len(shared) > 0) {
				t.Fatalf("the kubelet of %s speaks %s, the plugin of %s serves %s, support's cell %q; the kubelet registered it: %s; called it: %s",
					c.Release, kubelet, c.Library, plugin, cells[0].Reasons, c.Register, c.Call)
			}
			var used []string
			for _, m := range c.Methods {
				service, _, _ := strings.Cut(strings.TrimPrefix(m, "/"), "/")
				if v, ok := services[service]; ok { // not the registrar's
					used = append(used, v)
				}
			}
			if works && !slices.Equal(used, []string{shared[len(shared)-1]}) {
				t.Errorf("the kubelet of %s called the plugin of %s through %q (%s); the newest version both speak is %s", c.Release, c.Library, used, c.Methods, shared[len(shared)-1])
			}
		})
	}
}

// recordGRPC builds the kubelets and the plugins, then has each kubelet
// register and call each plugin.
func recordGRPC(t *testing.T, pinned map[string]string) grpcBook {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	kubelets, plugins := map[int]string{}, map[int]string{}
	for minor := first; minor <= last; minor++ {
		start := time.Now()
		kubelets[minor] = build(t, "kubelet", fmt.Sprintf("k1%d", minor), "kubelet-"+pinned[fmt.Sprintf("kube-apiserver 1.%d", minor)], func(dir string) [][]string {
			for _, f := range []string{"go.mod", "go.sum"} {
				data, err := os.ReadFile(filepath.Join(tools(root, minor), f))
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, f), data, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			return nil
		})
		t.Logf("kubelet 1.%d: %s (%s)", minor, kubelets[minor], time.Since(start).Round(time.Second))
	}
	for lib := first; lib <= last; lib++ {
		tag := fmt.Sprintf("lib0%d", lib)
		if lib > 34 && lib < 37 {
			tag = "lib034"
		}
		plugins[lib] = buildLibrary(t, "plugin", tag, pinned["dynamic-resource-allocation "+line(lib)])
	}
	b := grpcBook{Pinned: pinned}
	for minor := first; minor <= last; minor++ {
		for lib := first; lib <= last; lib++ {
			c := converse(t, kubelets[minor], plugins[lib])
			c.Release, c.Library = fmt.Sprintf("1.%d", minor), line(lib)
			b.Calls = append(b.Calls, c)
		}
	}
	return b
}

// converse starts the plugin, runs the kubelet against it, and stops the
// plugin.
func converse(t *testing.T, kubelet, plugin string) call {
	dir, err := os.MkdirTemp("", "dra") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	const driver = "gpu.example.com"
	server := exec.Command(plugin, "-dir", dir, "-driver", driver)
	var stderr strings.Builder
	server.Stderr = &stderr
	stdout, err := server.StdoutPipe()
	if err == nil {
		err = server.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "serving" {
		_ = server.Wait()
		t.Fatalf("%s: %q: %s", plugin, lines.Text(), stderr.String())
	}
	cmd := exec.Command(kubelet, "-registrar", filepath.Join(dir, "registry", driver+"-reg.sock"))
	var kubeletErr strings.Builder
	cmd.Stderr = &kubeletErr
	out, err := cmd.Output()
	var c call
	if err == nil {
		err = json.Unmarshal(out, &c)
	}
	if err != nil {
		t.Fatalf("%s: %v: %s", kubelet, err, kubeletErr.String())
	}
	_ = server.Process.Signal(os.Interrupt)
	for lines.Scan() {
		c.Methods = append(c.Methods, lines.Text())
	}
	if err := server.Wait(); err != nil {
		t.Fatalf("%s: %v: %s", plugin, err, stderr.String())
	}
	return c
}
