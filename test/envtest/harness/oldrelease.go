package harness

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/recorded"
)

// OldRelease is the kube-apiserver of an old release (1.26, 1.30–1.36) as
// the suites ask it: under `make record` a control plane started from that
// release's assets, with DynamicResourceAllocation and its resource.k8s.io
// version enabled (off by default until 1.34); otherwise its recorded
// answers (package recorded).
type OldRelease struct {
	Name   string       // "1.31"
	Config *rest.Config // a client of it: live or recorded
	book   *recorded.Book
	env    *envtest.Environment
}

// StartOldRelease starts release name ("1.31") serving resource.k8s.io/
// version (for v1, also v1beta1 and v1beta2) and the versions also names
// (v1alpha3 for DeviceTaintRules in 1.33–1.35), or opens its recorded
// answers in book (a path relative to the suite's package). Stop it with
// Stop.
func StartOldRelease(name, version, book string, also ...string) (*OldRelease, error) {
	featureGates, runtimeConfig := Flags(version, also...)
	return StartOldReleaseWith(name, book, featureGates, runtimeConfig)
}

// StartOldReleaseWith starts release name with the kube-apiserver flags
// given, or opens its recorded answers in book, as StartOldRelease does.
func StartOldReleaseWith(name, book, featureGates, runtimeConfig string) (*OldRelease, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	pinned, err := recorded.Pinned(filepath.Join(root, "hack", "tools", "kube-apiserver-"+name, "go.mod"))
	if err != nil {
		return nil, err
	}
	r := &OldRelease{Name: name}
	if r.book, err = recorded.Open(book, name, pinned); err != nil {
		return nil, err
	}
	if !recorded.Recording {
		r.Config = &rest.Config{Host: "https://recorded.invalid", QPS: -1,
			WrapTransport: func(http.RoundTripper) http.RoundTripper { return r.book.Transport(nil) }}
		jsonOnly(r.Config)
		return r, nil
	}
	variable := "ENVTEST_ASSETS_" + strings.ReplaceAll(name, ".", "_")
	assets, err := AssetsDirFrom(variable, "--print-assets-dir="+name)
	if err != nil {
		return nil, err
	}
	if err := CheckRelease(assets, name); err != nil {
		return nil, err
	}
	timeout := 90 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	// The binaries by path: envtest would otherwise prefer
	// $KUBEBUILDER_ASSETS (the current release) over BinaryAssetsDirectory.
	r.env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	apiserver := r.env.ControlPlane.GetAPIServer()
	apiserver.Path = filepath.Join(assets, "kube-apiserver")
	r.env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
	var output bytes.Buffer
	apiserver.Err = &output
	args := apiserver.Configure()
	args.Set("feature-gates", featureGates)
	args.Set("runtime-config", runtimeConfig)
	config, err := r.env.Start()
	if err != nil {
		_ = StopControlPlane(r.env, "")
		out := output.Bytes()
		if len(out) > 4096 {
			out = out[len(out)-4096:]
		}
		return nil, fmt.Errorf("starting Kubernetes %s (%s=%s): %w\nkube-apiserver output (last 4 KiB):\n%s", name, variable, assets, err, out)
	}
	config.QPS, config.Burst = 1000, 1000
	config.WrapTransport = r.book.Transport
	jsonOnly(config)
	r.Config = config
	return r, nil
}

// Flags are the --feature-gates and --runtime-config StartOldRelease
// starts a release with: DynamicResourceAllocation on, and version (for
// v1, v1beta1 and v1beta2 beside it, which 1.34+ serves only when asked)
// and the versions of also served.
func Flags(version string, also ...string) (featureGates, runtimeConfig string) {
	runtimeConfig = api.UpstreamGroup + "/" + version + "=true"
	if version == api.V1 {
		runtimeConfig = api.UpstreamGroup + "/v1beta1=true," + api.UpstreamGroup + "/v1beta2=true"
	}
	for _, v := range also {
		runtimeConfig += "," + api.UpstreamGroup + "/" + v + "=true"
	}
	return "DynamicResourceAllocation=true", runtimeConfig
}

// Cluster is release name ("1.35") as claimbridge sees it when told the
// apiserver's flags.
func Cluster(name, featureGates, runtimeConfig string) (api.Cluster, error) {
	minor, _ := api.ParseMinor(name)
	c := api.Defaults(minor)
	if err := c.SetFeatureGates(featureGates); err != nil {
		return c, err
	}
	return c, c.SetRuntimeConfig(runtimeConfig)
}

// jsonOnly makes every client of config speak JSON, so that the recorded
// answers read as the objects they are.
func jsonOnly(config *rest.Config) {
	config.ContentType = "application/json"
	config.AcceptContentTypes = "application/json"
}

// Stop stops the control plane and writes the book under `make record`;
// otherwise it fails on recorded answers no test asked for when complete
// (the suite ran every test: recorded.Complete).
func (r *OldRelease) Stop(complete bool) error {
	var err error
	if r.env != nil {
		err = StopControlPlane(r.env, "")
	}
	if closeErr := r.book.Close(complete); closeErr != nil {
		return closeErr
	}
	return err
}
