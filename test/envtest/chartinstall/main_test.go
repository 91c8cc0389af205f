//go:build envtest

// Package chartinstall installs what `helm template` renders with another
// webhook port, health port and metrics port and with fullnameOverride into
// a real kube-apiserver, and serves it the way a cluster does: through the
// Service. The other chart suites (test/envtest/selfmanaged, minversion)
// point the webhooks at a URL on localhost and move the server's port, so
// they cannot tell whether the Service, its targetPort, the container port
// and --port agree; here nothing of the rendered wiring is rewritten:
//
//   - kube-apiserver runs with --enable-aggregator-routing, so it calls a
//     webhook Service's endpoints (EndpointSlices) instead of its cluster IP,
//     which nothing routes without kube-proxy;
//   - the test does the endpoint controller's part (envtest runs no
//     kube-controller-manager and no kubelet): one EndpointSlice for the
//     Service, each port resolved from the Service's targetPort through the
//     rendered Deployment's container ports, at an address of this machine
//     (EndpointSlices refuse loopback addresses);
//   - `claimbridge serve` runs in this process with the Deployment's own
//     arguments (its --port, --health-probe-bind-address, --dns-name of the
//     renamed Service, --cert-secret and --cert-inject-* of the renamed
//     objects), only --cert-dir moved to a temporary directory, as the
//     renamed ServiceAccount (impersonated, so the chart's RBAC is what it
//     gets);
//   - the apiserver verifies the server's certificate for
//     <fullname>-webhook.<namespace>.svc against the caBundle the server
//     injected into the renamed webhook configurations and the CRDs.
//
// The suite needs KUBEBUILDER_ASSETS and HELM (`make test` sets both; a
// missing one is an error).
package chartinstall

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const (
	namespace     = "dra-system"
	release       = "dra"
	fullname      = "cb-hooks" // fullnameOverride
	testNamespace = "team-a"
)

type suite struct {
	env     *envtest.Environment
	admin   *rest.Config
	client  client.Client
	dynamic dynamic.Interface
	objs    []*unstructured.Unstructured

	webhookPort, healthPort, metricsPort int
	hostIP                               string
	certDir                              string
	serverLog                            *harness.LogBuffer
	stopServer                           func() error
	done                                 chan struct{}
}

var s *suite

func TestMain(m *testing.M) {
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	var err error
	s, err = start(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "chart install suite: %v\n", err)
		if s != nil {
			if s.serverLog != nil {
				fmt.Fprintf(os.Stderr, "server output:\n%s\n", s.serverLog.String())
			}
			_ = s.stop()
		}
		os.Exit(1)
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "server output:\n%s\n", s.serverLog.String())
	}
	if err := s.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "chart install suite: stopping: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func start(ctx context.Context) (*suite, error) {
	assets, err := harness.AssetsDir()
	if err != nil {
		return nil, err
	}
	s := &suite{done: make(chan struct{}), serverLog: &harness.LogBuffer{}}
	if s.hostIP, err = hostAddress(); err != nil {
		return nil, err
	}
	// Ports of this machine, free a moment ago, none the chart's defaults:
	// the rendered server must listen where the values say.
	for _, p := range []*int{&s.webhookPort, &s.healthPort, &s.metricsPort} {
		if *p, err = harness.FreePort(); err != nil {
			return nil, err
		}
	}
	if s.objs, err = harness.RenderChart(release, namespace,
		"--set", "fullnameOverride="+fullname,
		"--set", "webhook.port="+strconv.Itoa(s.webhookPort),
		"--set", "health.port="+strconv.Itoa(s.healthPort),
		"--set", "metrics.port="+strconv.Itoa(s.metricsPort),
	); err != nil {
		return nil, err
	}
	if s.certDir, err = os.MkdirTemp("", "claimbridge-envtest-chartinstall-"); err != nil {
		return nil, err
	}
	timeout := 60 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0
	}
	s.env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	// Webhook Services resolved to their endpoints, as on clusters whose
	// apiservers cannot reach cluster IPs.
	s.env.ControlPlane.GetAPIServer().Configure().Set("enable-aggregator-routing", "true")
	harness.StopOnSignalOrDeadline("chart install suite", s.stop, s.done)
	if s.admin, err = s.env.Start(); err != nil {
		return s, fmt.Errorf("starting envtest (KUBEBUILDER_ASSETS=%s; rebuild with `make envtest-assets`): %w", assets, err)
	}
	if s.client, s.dynamic, err = harness.AdminClients(s.admin); err != nil {
		return s, err
	}
	for _, ns := range []string{namespace, testNamespace} {
		if err := s.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return s, err
		}
	}
	if err := s.install(ctx); err != nil {
		return s, err
	}
	sa, _, err := harness.AdminClients(harness.ServiceAccountConfig(s.admin, namespace, fullname))
	if err != nil {
		return s, err
	}
	// The token policy names the renamed ServiceAccount: it refuses it
	// anything but CA injection before the server starts injecting.
	if err := harness.WaitForTokenPolicy(ctx, s.client, sa, fullname+"-validating-webhook-configuration"); err != nil {
		return s, err
	}
	if err := s.startServer(ctx); err != nil {
		return s, err
	}
	return s, nil
}

// install creates every rendered object as it is, but those only a
// kube-controller-manager or a kubelet would act on (Deployment,
// PodDisruptionBudget, NetworkPolicy), and the EndpointSlice the endpoint
// controller would make of the Service and the Deployment's pods.
func (s *suite) install(ctx context.Context) error {
	var deploy *appsv1.Deployment
	var svc *corev1.Service
	for _, o := range s.objs {
		switch o.GetKind() {
		case "Deployment":
			deploy = &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, deploy); err != nil {
				return err
			}
			continue
		case "PodDisruptionBudget", "NetworkPolicy":
			continue
		}
		obj := o.DeepCopy()
		if err := s.client.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		if o.GetKind() == "Service" {
			svc = &corev1.Service{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, svc); err != nil {
				return err
			}
		}
	}
	if deploy == nil || svc == nil {
		return errors.New("the chart rendered no Deployment or no Service")
	}
	slice, err := endpointSlice(svc, deploy, s.hostIP)
	if err != nil {
		return err
	}
	if err := s.client.Create(ctx, slice); err != nil {
		return fmt.Errorf("creating the EndpointSlice: %w", err)
	}
	return nil
}

// endpointSlice is what the endpoint slice controller makes of svc and one
// ready pod of deploy at address ip: each Service port, named as in the
// Service, at the container port its targetPort names.
func endpointSlice(svc *corev1.Service, deploy *appsv1.Deployment, ip string) (*discoveryv1.EndpointSlice, error) {
	containerPorts := map[string]int32{}
	for _, c := range deploy.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			containerPorts[p.Name] = p.ContainerPort
		}
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: svc.Name + "-pods", Namespace: svc.Namespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: "chartinstall-test"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
	}
	if net.ParseIP(ip).To4() == nil {
		slice.AddressType = discoveryv1.AddressTypeIPv6
	}
	for _, p := range svc.Spec.Ports {
		port := p.TargetPort.IntVal
		if p.TargetPort.Type == intstr.String {
			var ok bool
			if port, ok = containerPorts[p.TargetPort.StrVal]; !ok {
				return nil, fmt.Errorf("Service port %s targets %q, which is no container port of the Deployment (%v)", p.Name, p.TargetPort.StrVal, containerPorts)
			}
		}
		slice.Ports = append(slice.Ports, discoveryv1.EndpointPort{Name: ptr(p.Name), Port: ptr(port), Protocol: ptr(p.Protocol)})
	}
	return slice, nil
}

// hostAddress is an address of this machine an EndpointSlice accepts: not
// loopback, not link-local. A machine without one cannot run the suite,
// which is an error, not a skip.
func hostAddress() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	var v6 string
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok || !ipnet.IP.IsGlobalUnicast() {
			continue
		}
		if ipnet.IP.To4() != nil {
			return ipnet.IP.String(), nil
		}
		if v6 == "" {
			v6 = ipnet.IP.String()
		}
	}
	if v6 != "" {
		return v6, nil
	}
	return "", fmt.Errorf("no global unicast address on this machine's interfaces (%v): kube-apiserver must reach the server at an endpoint address other than loopback", addrs)
}

// startServer runs `claimbridge serve` with the Deployment's arguments (the
// cert dir moved, the drain shortened) as the chart's ServiceAccount, and
// waits for /readyz on the rendered health port.
func (s *suite) startServer(ctx context.Context) error {
	args, err := harness.ServeArgs(s.objs, namespace)
	if err != nil {
		return err
	}
	args = append(args, "--cert-dir="+s.certDir, "--shutdown-drain=0s")
	kubeconfig := s.certDir + ".kubeconfig"
	if err := harness.WriteKubeconfig(harness.ServiceAccountConfig(s.admin, namespace, fullname), kubeconfig); err != nil {
		return err
	}
	os.Setenv("KUBECONFIG", kubeconfig)
	os.Setenv("POD_NAMESPACE", namespace)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cli.Serve(ctx, args, s.serverLog, s.serverLog) }()
	s.stopServer = func() error {
		cancel()
		return <-done
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			done <- err
			return false, fmt.Errorf("the server stopped before it was ready: %v", err)
		default:
		}
		return get(fmt.Sprintf("http://127.0.0.1:%d/readyz", s.healthPort)), nil
	})
}

func get(url string) bool {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

func (s *suite) stop() error {
	return harness.StopServerAndControlPlane(s.done, s.stopServer, s.env, s.certDir)
}

func ptr[T any](v T) *T { return &v }
