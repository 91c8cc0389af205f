//go:build envtest

// Package overload checks load shedding (docs/server.md, "Overload")
// through a real kube-apiserver: with failurePolicy Ignore, a write whose
// review is shed is refused with 429 and never admitted unvalidated.
//
//	env $(hack/envtest-assets.sh --env) \
//		go test -tags envtest ./test/envtest/overload/
package overload

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/api"
	claimbridgeserver "github.com/claimbridge/claimbridge/server"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/validation"
	"github.com/claimbridge/claimbridge/webhook"
)

const blockerName = "blocker"

// blockingServer is claimbridge serve with --max-in-flight=1 and a queue
// wait of 1ns, so that a review arriving while the only slot is taken is
// shed; the review of the claim named blocker signals entered and holds the
// slot until release closes. Each test makes its own channels, so that a
// repetition (-count=2) blocks again.
func blockingServer(entered, release chan struct{}) func(ctx context.Context, certDir string, port int) (func(), error) {
	return func(ctx context.Context, certDir string, port int) (func(), error) {
		return server(ctx, certDir, port, entered, release)
	}
}

func server(ctx context.Context, certDir string, port int, entered, release chan struct{}) (func(), error) {
	opts := claimbridgeserver.NewOptions()
	opts.BindAddress, opts.Port, opts.CertDir = "127.0.0.1", port, certDir
	opts.HealthProbeBindAddress, opts.MetricsBindAddress = "0", "0"
	opts.ShutdownDrain, opts.ShutdownTimeout = 0, 5*time.Second
	opts.MaxInFlight, opts.MaxQueueWait = 1, time.Nanosecond
	cfg, err := opts.Config()
	if err != nil {
		return nil, err
	}
	cfg.Validator = func(req validation.Request) (validation.Response, error) {
		if obj, _ := api.DecodeObject(req.ObjectJSON); api.Metadata(obj)["name"] == blockerName {
			entered <- struct{}{}
			<-release
		}
		return validation.Validate(req)
	}
	srv, err := webhook.New(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Started():
	case err := <-done:
		cancel()
		return nil, fmt.Errorf("server stopped before it started: %v", err)
	}
	return func() { cancel(); <-done }, nil
}

func claim(ns, name, deviceClass string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "resource.claimbridge.dev/v1alpha3", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": name, "namespace": ns},
		"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
			map[string]interface{}{"name": "gpu", "deviceClassName": deviceClass},
		}}},
	}}
}

func TestShedWriteIsRefusedUnderFailurePolicyIgnore(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	env := harness.StartT(t, harness.Options{StartServer: blockingServer(entered, release)})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := env.Client.Get(ctx, client.ObjectKey{Name: harness.WebhookConfigurationName}, &vwc); err != nil {
		t.Fatal(err)
	}
	ignore := admissionregistrationv1.Ignore
	for i := range vwc.Webhooks {
		vwc.Webhooks[i].FailurePolicy = &ignore
	}
	if err := env.Client.Update(ctx, &vwc); err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "overload"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	claims := env.Dynamic.Resource(schema.GroupVersionResource{Group: api.Group, Version: "v1alpha3", Resource: "resourceclaims"}).Namespace(ns.Name)

	// The blocker's review takes the only slot (the apiserver gives up on it
	// after timeoutSeconds and, under Ignore, admits the valid claim).
	blocked := make(chan error, 1)
	go func() {
		_, err := claims.Create(ctx, claim(ns.Name, blockerName, "gpu.example.com"), metav1.CreateOptions{})
		blocked <- err
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the blocker's review never reached the validator")
	}

	// An invalid claim's review is shed: the denial (code 429) reaches the
	// client, which retries it (client-go: Retry-After, 10 times) and then
	// fails; under Ignore an HTTP error would have admitted it unvalidated.
	_, err := claims.Create(ctx, claim(ns.Name, "invalid", "Not_A_Subdomain"), metav1.CreateOptions{})
	if !apierrors.IsTooManyRequests(err) || !strings.Contains(err.Error(), "claimbridge webhook overloaded") {
		t.Errorf("create while overloaded: %v, want a 429 TooManyRequests from the shed denial", err)
	}
	if _, err := claims.Get(ctx, "invalid", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the shed invalid claim: get %v, want NotFound (admitted unvalidated)", err)
	}

	close(release)
	<-blocked // valid, so admitted whether its review finished in time or not
	// With the slot free again, the same invalid claim is validated and denied.
	_, err = claims.Create(ctx, claim(ns.Name, "invalid", "Not_A_Subdomain"), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("create with a free slot: %v, want 422 Invalid from the webhook", err)
	}
}
