// Command probe runs one release line of k8s.io/dynamic-resource-allocation
// against a kube-apiserver: its own ResourceSlice controller publishes one
// ResourceSlice for a node, and its own claim reader (the call its
// kubeletplugin makes, where the line has one) reads one ResourceClaim.
// It prints {"publish": …, "read": …} as JSON: "ok", or what failed.
//
// It is built outside claimbridge's module, against one library release,
// with the build tag of its line (lib031, lib032, lib033, lib034: v0.34 and
// later share an API): see libprobe's TestLibraryProbes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// Result is what the probe prints.
type Result struct {
	// Publish is "ok" once the library's controller created the slice,
	// else the last failed request of ResourceSlices (or logged error).
	Publish string `json:"publish"`
	// PublishVersion is the resource.k8s.io version it was created through.
	PublishVersion string `json:"publishVersion,omitempty"`
	// Read is "ok", what failed, or "none": the line has no claim reader.
	Read        string `json:"read"`
	ReadVersion string `json:"readVersion,omitempty"`
}

// observer sees every request of resource.k8s.io the library makes.
type observer struct {
	mu        sync.Mutex
	created   string            // the version a slice was created through
	failed    map[string]string // last failure by resource
	readFrom  string            // the version a claim was read through
	lastError string            // the last error the library logged
	done      chan struct{}
}

var pathRE = regexp.MustCompile(`^/apis/resource\.k8s\.io/([^/]+)/(?:namespaces/[^/]+/)?([a-z]+)`)

func (o *observer) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		m := pathRE.FindStringSubmatch(req.URL.Path)
		if m == nil {
			return resp, err
		}
		version, resource := m[1], m[2]
		o.mu.Lock()
		defer o.mu.Unlock()
		switch {
		case err != nil:
			o.failed[resource] = fmt.Sprintf("%s %s: %v", req.Method, req.URL.Path, err)
		case resp.StatusCode >= 300:
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(strings.NewReader(string(body)))
			var status struct{ Message string }
			_ = json.Unmarshal(body, &status)
			o.failed[resource] = fmt.Sprintf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, status.Message)
		case resource == "resourceslices" && req.Method == http.MethodPost && o.created == "":
			o.created = version
			close(o.done)
		case resource == "resourceclaims" && req.Method == http.MethodGet:
			o.readFrom = version
		}
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig of the kube-apiserver")
	driver := flag.String("driver", "probe.example.com", "the driver name to publish for")
	node := flag.String("node", "node-1", "the Node whose slice is published (it must exist)")
	namespace := flag.String("namespace", "default", "the namespace of the claim to read")
	claim := flag.String("claim", "probe", "the ResourceClaim to read")
	timeout := flag.Duration("timeout", 10*time.Second, "how long to wait for the slice, and for the read")
	flag.Parse()

	o := &observer{failed: map[string]string{}, done: make(chan struct{})}
	klog.SetLogger(funcr.New(func(prefix, args string) {
		if strings.Contains(args, `"error"`) {
			o.mu.Lock()
			o.lastError = args
			o.mu.Unlock()
		}
	}, funcr.Options{}))
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	config.WrapTransport = o.wrap
	config.QPS, config.Burst = 100, 100
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}

	var r Result
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	stop, err := publish(ctx, client, *driver, *node)
	if err == nil {
		select {
		case <-o.done:
		case <-ctx.Done():
		}
		stop()
	}
	cancel()
	o.mu.Lock()
	switch { // the server's answer before the library's words for it
	case o.created != "":
		r.Publish, r.PublishVersion = "ok", o.created
	case o.failed["resourceslices"] != "":
		r.Publish = o.failed["resourceslices"]
	case err != nil:
		r.Publish = err.Error()
	case o.lastError != "":
		r.Publish = o.lastError
	default:
		r.Publish = fmt.Sprintf("no ResourceSlice created within %s", *timeout)
	}
	o.mu.Unlock()

	ctx, cancel = context.WithTimeout(context.Background(), *timeout)
	has, err := read(ctx, client, *namespace, *claim)
	cancel()
	o.mu.Lock()
	switch {
	case !has:
		r.Read = "none"
	case err != nil:
		r.Read = err.Error()
	default:
		r.Read, r.ReadVersion = "ok", o.readFrom
	}
	o.mu.Unlock()
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "probe:", err)
	os.Exit(1)
}
