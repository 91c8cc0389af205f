//go:build envtest

// Package guard runs `claimbridge serve --guard` (the upgrade guard) in a
// child process against a real kube-apiserver 1.37 (envtest, with
// resource.k8s.io v1beta1 and v1beta2 served beside v1), registered as a
// ValidatingWebhookConfiguration for the resource.k8s.io kinds, and checks
// what the person who writes a DRA object sees: the real kubectl's and
// Helm 4's warnings, the denial of enforce mode, and nothing at all when
// the guard is down.
//
// Run with `make test-envtest`, or:
//
//	go test -tags envtest ./test/envtest/guard/   (with the variables of hack/envtest-assets.sh --env)
package guard

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// serveEnv makes TestMain run `claimbridge serve` in a child process of
// this test binary (harness.ServeChild).
const serveEnv = "CLAIMBRIDGE_GUARD_SERVE"

var (
	config     *rest.Config
	kubeconfig string
)

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		os.Exit(harness.ServeChild())
	}
	flag.Parse()
	assets, err := harness.AssetsDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: 60 * time.Second}
	env.ControlPlane.GetAPIServer().Configure().Set("runtime-config", "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")
	dir, err := os.MkdirTemp("", "claimbridge-envtest-guard-")
	if err == nil {
		config, err = env.Start()
	}
	if err == nil {
		config.WarningHandler = rest.NoWarnings{}
		kubeconfig = filepath.Join(dir, "kubeconfig")
		err = harness.WriteKubeconfig(config, kubeconfig)
	}
	code := 1
	if err != nil {
		fmt.Fprintf(os.Stderr, "guard suite: %v\n", err)
	} else {
		code = m.Run()
	}
	if err := harness.StopControlPlane(env, dir); err != nil {
		fmt.Fprintf(os.Stderr, "guard suite: stopping: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

// guard is a running `claimbridge serve --guard`, registered.
type guard struct {
	metrics string // its /metrics URL
	stop    func()
}

// startGuard starts `claimbridge serve --guard` with args in a child
// process, waits until it is ready, and registers it for the DRA kinds
// (failurePolicy Ignore, never the status subresource). It is stopped and
// unregistered at t's end.
func startGuard(t *testing.T, args ...string) *guard {
	t.Helper()
	ports := make([]int, 3)
	for i := range ports {
		var err error
		if ports[i], err = harness.FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	certDir := t.TempDir()
	cmd := exec.Command(os.Args[0], append([]string{"--guard", "--kubeconfig=" + kubeconfig, "--cert-dir=" + certDir,
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", ports[0]), "--dns-name=localhost",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", ports[1]),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[2]), "--metrics-secure=false", "--shutdown-drain=0s"}, args...)...)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	log := &harness.LogBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	g := &guard{metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[2])}
	stopped := false
	g.stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Signal(os.Interrupt)
			<-done
		}
	}
	t.Cleanup(func() {
		g.stop()
		if t.Failed() {
			t.Logf("claimbridge serve --guard:\n%s", log.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[1]))
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("claimbridge serve --guard is not ready:\n%s", log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	ca, err := os.ReadFile(filepath.Join(certDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	register(t, fmt.Sprintf("https://localhost:%d/guard", ports[0]), ca)
	return g
}

// register installs the guard's ValidatingWebhookConfiguration, as the
// chart's guard.enabled does, with url in place of the Service.
func register(t *testing.T, url string, ca []byte) {
	t.Helper()
	core := kubernetes.NewForConfigOrDie(config)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "claimbridge-guard"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "guard.claimbridge.dev",
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"resource.k8s.io"}, APIVersions: []string{"*"},
					Resources: []string{"resourceclaims", "resourceclaimtemplates", "deviceclasses", "devicetaintrules"}, Scope: ptr.To(admissionregistrationv1.AllScopes)},
			}},
			FailurePolicy:  ptr.To(admissionregistrationv1.Ignore),
			SideEffects:    ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds: ptr.To[int32](5),
		}},
	}
	ctx := context.Background()
	if _, err := core.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = core.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, vwc.Name, metav1.DeleteOptions{})
	})
	time.Sleep(2 * time.Second) // the apiserver's webhook configuration watch
}

// requests is the guard's count of reviews on /guard.
func (g *guard) requests(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(g.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return strings.Join(regexp.MustCompile(`(?m)^claimbridge_webhook_requests_total\{endpoint="/guard"[^\n]*$`).FindAllString(string(body), -1), "\n") +
		strings.Join(regexp.MustCompile(`(?m)^claimbridge_guard_(objects|findings)_total[^\n]*$`).FindAllString(string(body), -1), "\n")
}

// kubectl runs the real kubectl against the suite's apiserver.
func kubectl(t *testing.T, stdin string, args ...string) (stderr string, err error) {
	t.Helper()
	bin := os.Getenv("KUBECTL")
	if bin == "" {
		t.Fatal("KUBECTL is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env`")
	}
	cmd := exec.Command(bin, append(args, "--kubeconfig", kubeconfig)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	err = cmd.Run()
	return out.String(), err
}

// validate is `claimbridge validate`'s findings on stdin, the message part
// of each line: what the guard must say word for word.
func validate(t *testing.T, stdin string, args ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	cli.Main(append([]string{"validate", "-q", "-f", "-"}, args...), strings.NewReader(stdin), &out, &errOut)
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()+errOut.String()), "\n") {
		if i := strings.Index(line, "): "); i >= 0 && line != "" {
			msg := strings.TrimPrefix(line[i+3:], "warning: ")
			_, msg, _ = strings.Cut(msg, ": ") // the kind and name
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

const (
	betaClass = `apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: NAME}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
`
	capacityClaim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        capacity:
          requests: {memory: 10Gi}
`
)

// TestGuardWarns: kubectl apply and helm install of what 1.38 rejects
// (a v1beta1 class) and of a claim whose capacity request 1.38 drops (its
// gate off there, --guard-feature-gates) are admitted, and the person sees
// validate --to 1.38's words as warnings; a status write never reaches the
// guard; with the guard down the same writes pass with the apiserver's own
// warnings only.
func TestGuardWarns(t *testing.T) {
	g := startGuard(t, "--guard-feature-gates=DRAConsumableCapacity=false,DRAFractionalCapacityRange=false")
	class := strings.Replace(betaClass, "NAME", "warned.example.com", 1)
	stderr, err := kubectl(t, class, "apply", "-f", "-")
	want := validate(t, class, "--to", "1.38")
	if err != nil || len(want) != 1 || !strings.Contains(stderr, "Warning: Kubernetes 1.38 would reject this: "+want[0]+"\n") {
		t.Errorf("kubectl apply of a v1beta1 DeviceClass: %v, validate says %q, kubectl's stderr:\n%s", err, want, stderr)
	}
	stderr, err = kubectl(t, capacityClaim, "apply", "-f", "-")
	want = validate(t, capacityClaim, "--to", "1.38", "--feature-gates", "DRAConsumableCapacity=false,DRAFractionalCapacityRange=false")
	if err != nil || len(want) != 1 || !strings.Contains(stderr, "Warning: "+want[0]+"\n") {
		t.Errorf("kubectl apply of a claim with capacity requests: %v, validate says %q, kubectl's stderr:\n%s", err, want, stderr)
	}

	// Helm 4 shows the warnings of its install.
	chart := t.TempDir()
	for name, text := range map[string]string{
		"Chart.yaml":           "apiVersion: v2\nname: gpu\nversion: 0.1.0\n",
		"templates/class.yaml": strings.Replace(betaClass, "NAME", "{{ .Release.Name }}.example.com", 1),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(chart, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(chart, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	helm := exec.Command(os.Getenv("HELM"), "install", "helmed", chart, "--kubeconfig", kubeconfig)
	home := t.TempDir()
	helm.Env = append(os.Environ(), "HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_CACHE_HOME="+home, "HELM_DATA_HOME="+home)
	out, err := helm.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Kubernetes 1.38 would reject this: apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 DeviceClass") {
		t.Errorf("helm install: %v:\n%s", err, out)
	}

	// A status write never reaches the guard.
	d := dynamic.NewForConfigOrDie(config)
	claims := d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}).Namespace("default")
	claim, err := claims.Get(context.Background(), "shared-gpu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := g.requests(t)
	claim.Object["status"] = map[string]interface{}{"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
		map[string]interface{}{"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
	}}}}
	if _, err := claims.UpdateStatus(context.Background(), &unstructured.Unstructured{Object: claim.Object}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := g.requests(t); after != before {
		t.Errorf("a status write reached the guard:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if !strings.Contains(before, `claimbridge_guard_objects_total{kind="DeviceClass",release="1.38",verdict="not_ready"} 2`) {
		t.Errorf("the guard's metrics do not count the two classes 1.38 rejects:\n%s", before)
	}

	// The guard down: the same write passes with the apiserver's own
	// deprecation warning only.
	g.stop()
	stderr, err = kubectl(t, strings.Replace(betaClass, "NAME", "unguarded.example.com", 1), "apply", "-f", "-")
	if err != nil || stderr != "Warning: resource.k8s.io/v1beta1 DeviceClass is deprecated in v1.35+, unavailable in v1.38+\n" {
		t.Errorf("with the guard down: %v, stderr %q", err, stderr)
	}
}

// TestGuardEnforces: with --guard-enforce, kubectl apply of what 1.38
// rejects is refused with the judge's words; what it only warns of passes.
func TestGuardEnforces(t *testing.T) {
	startGuard(t, "--guard-enforce")
	class := strings.Replace(betaClass, "NAME", "enforced.example.com", 1)
	stderr, err := kubectl(t, class, "apply", "-f", "-")
	want := `admission webhook "guard.claimbridge.dev" denied the request: deviceclasses.resource.k8s.io "enforced.example.com" is forbidden: Kubernetes 1.38 would reject this: apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 DeviceClass: its apiserver rejects this object`
	if err == nil || !strings.Contains(stderr, want) {
		t.Errorf("kubectl apply with --guard-enforce: %v, stderr:\n%s\nwant %s", err, stderr, want)
	}
	v1 := strings.Replace(strings.Replace(class, "v1beta1", "v1", 1), "enforced", "allowed", 1)
	if stderr, err := kubectl(t, v1, "apply", "-f", "-"); err != nil {
		t.Errorf("kubectl apply of a v1 class with --guard-enforce: %v\n%s", err, stderr)
	}
}
