package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// guardRate is the pace of the guard blocks' creates.
const guardRate = 100 // creates per second

// guardRounds measures what the upgrade guard adds to a write: blocks of
// CREATES resource.k8s.io/v1 claim creates at 100 a second, without an
// admission webhook for resource.k8s.io, with the null webhook's /validate
// registered for it, and with a second `claimbridge serve --guard`
// (failurePolicy Ignore), interleaved round after round. It prints p50
// and p99 of a create, medians over the rounds, and their ratios.
func (b *bench) guardRounds(ctx context.Context) error {
	stop, url, ca, err := b.startGuard()
	if err != nil {
		return err
	}
	defer stop()
	d, err := dynamic.NewForConfig(b.env.Config)
	if err != nil {
		return err
	}
	claims := d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}).Namespace("default")
	p := map[string][2][]float64{}
	modes := []string{"no webhook", "null webhook", "guard"}
	for round := 0; round < b.cfg.rounds; round++ {
		for i := range modes {
			mode := modes[(i+round)%len(modes)] // rotate the order every round
			switch mode {
			case "null webhook":
				err = b.registerGuard(ctx, true, b.nullURL+"/validate", b.admission.validating.Webhooks[0].ClientConfig.CABundle)
			default:
				err = b.registerGuard(ctx, mode == "guard", url, ca)
			}
			if err != nil {
				return err
			}
			logf("guard round %d/%d: %s", round+1, b.cfg.rounds, mode)
			p50, p99, err := guardBlock(ctx, claims, fmt.Sprintf("g%d-%d", round, i), b.cfg.creates)
			if err != nil {
				return fmt.Errorf("guard round %d, %s: %w", round+1, mode, err)
			}
			v := p[mode]
			v[0], v[1] = append(v[0], p50), append(v[1], p99)
			p[mode] = v
		}
	}
	if err := b.registerGuard(ctx, false, url, ca); err != nil {
		return err
	}
	fmt.Printf("\nClaim creates in resource.k8s.io/v1 at %d/s, %d per block, %d rounds; medians over rounds, ms.\n\n", guardRate, b.cfg.creates, b.cfg.rounds)
	fmt.Println("| | no webhook | null webhook | guard | guard/no webhook | guard/null |\n| --- | --- | --- | --- | --- | --- |")
	for i, name := range []string{"p50", "p99"} {
		none, _ := median(p["no webhook"][i])
		null, _ := median(p["null webhook"][i])
		guard, _ := median(p["guard"][i])
		fmt.Printf("| %s | %s | %s | %s | %.2f× | %.2f× |\n", name, format(none), format(null), format(guard), guard/none, guard/null)
	}
	return nil
}

// guardBlock creates n claims at guardRate, timing each, then deletes them.
func guardBlock(ctx context.Context, claims dynamic.ResourceInterface, prefix string, n int) (p50, p99 float64, err error) {
	tick := time.NewTicker(time.Second / guardRate)
	defer tick.Stop()
	took := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		<-tick.C
		obj := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": fmt.Sprintf("%s-%05d", prefix, i)},
			"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
				map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}},
			}}},
		}}
		start := time.Now()
		if _, err := claims.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return 0, 0, err
		}
		took = append(took, ms(time.Since(start)))
	}
	if err := claims.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return 0, 0, err
	}
	sort.Float64s(took)
	return took[len(took)/2], took[len(took)*99/100], nil
}

// startGuard starts the claimbridge binary as `serve --guard` on a port of
// its own, with a kubeconfig of the suite's apiserver.
func (b *bench) startGuard() (stop func(), url string, ca []byte, err error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, "", nil, err
	}
	dir := filepath.Join(b.tmp, "guard")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", nil, err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := harness.WriteKubeconfig(b.env.Config, kubeconfig); err != nil {
		return nil, "", nil, err
	}
	cmd := exec.Command(b.cb.Path, "serve", "--guard", "--kubeconfig="+kubeconfig, "--bind-address=127.0.0.1", "--port="+strconv.Itoa(port),
		"--cert-dir="+dir, "--dns-name=localhost", "--health-probe-bind-address=0", "--metrics-bind-address=0", "--shutdown-drain=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, "", nil, err
	}
	stop = func() { stopProcess(cmd) }
	if err := waitTLS(fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		stop()
		return nil, "", nil, fmt.Errorf("claimbridge serve --guard: %w", err)
	}
	if ca, err = os.ReadFile(filepath.Join(dir, "ca.crt")); err != nil {
		stop()
		return nil, "", nil, err
	}
	return stop, fmt.Sprintf("https://localhost:%d/guard", port), ca, nil
}

// registerGuard installs (on) or removes the guard's webhook configuration,
// as the chart's guard.enabled installs it, and waits for the apiserver to
// see it.
func (b *bench) registerGuard(ctx context.Context, on bool, url string, ca []byte) error {
	vwcs := b.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	_ = vwcs.Delete(ctx, "claimbridge-guard", metav1.DeleteOptions{})
	if on {
		_, err := vwcs.Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "claimbridge-guard"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "guard.claimbridge.dev", AdmissionReviewVersions: []string{"v1"},
				ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"resource.k8s.io"}, APIVersions: []string{"*"},
						Resources: []string{"resourceclaims", "resourceclaimtemplates", "deviceclasses", "devicetaintrules"}, Scope: ptr.To(admissionregistrationv1.AllScopes)},
				}},
				FailurePolicy: ptr.To(admissionregistrationv1.Ignore), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds: ptr.To[int32](3),
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
	}
	time.Sleep(2 * time.Second) // the apiserver's webhook configuration watch
	return nil
}
