package main

import (
	"context"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The status block times a scheduler's and a kubelet's status writes through
// v1alpha3 with the conversion off (storage mode), so that only admission
// differs between the modes: storage here means no admission webhook, null
// the null webhook's /validate and /default, claimbridge its own.

// admissionConfigs are the webhook configurations the harness installed,
// saved before the benchmark deletes them.
type admissionConfigs struct {
	validating *admissionregistrationv1.ValidatingWebhookConfiguration
	mutating   *admissionregistrationv1.MutatingWebhookConfiguration
}

// statusSteps are the status writes of one cycle, from the allocated and
// reserved status load writes back to it.
var statusSteps = []struct {
	name string
	edit func(status map[string]interface{}) map[string]interface{}
}{
	{"unreserve", func(s map[string]interface{}) map[string]interface{} { return without(s, "reservedFor") }},
	{"deallocate", func(map[string]interface{}) map[string]interface{} { return nil }},
	{"allocate", func(s map[string]interface{}) map[string]interface{} { return without(s, "reservedFor") }},
	{"reserve", func(s map[string]interface{}) map[string]interface{} { return s }},
}

func without(m map[string]interface{}, key string) map[string]interface{} {
	out := runtimeCopy(m).(map[string]interface{})
	delete(out, key)
	return out
}

// statusBlock cycles the status of STATUS claims through statusSteps with
// the mode's admission webhooks installed, then removes them.
func (b *bench) statusBlock(ctx context.Context, m mode, res *results) error {
	if err := b.setAdmission(ctx, m); err != nil {
		return err
	}
	defer func() {
		if err := b.setAdmission(ctx, modeStorage); err != nil {
			logf("removing the admission webhooks: %v", err)
		}
	}()
	tmpl, err := example("v1alpha3")
	if err != nil {
		return err
	}
	full := tmpl.Object["status"].(map[string]interface{})
	c := b.claims("v1alpha3")
	before, err := b.admissionCount(m)
	if err != nil {
		return err
	}
	cpu0, _ := cpuSeconds(b.pids[string(m)])
	times := map[string][]time.Duration{}
	for i := 0; i < b.cfg.status; i++ {
		claim, err := c.Get(ctx, claimName(i), metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, step := range statusSteps {
			if s := step.edit(full); s != nil {
				claim.Object["status"] = s
			} else {
				delete(claim.Object, "status")
			}
			start := time.Now()
			if claim, err = c.UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("%s %s: %w", step.name, claimName(i), err)
			}
			times[step.name] = append(times[step.name], time.Since(start))
		}
	}
	for _, step := range statusSteps {
		res.add("status write: "+step.name+" p50 (ms)", m, ms(percentile(times[step.name], 50)))
	}
	if m == modeStorage {
		return nil
	}
	after, err := b.admissionCount(m)
	if err != nil {
		return err
	}
	cpu1, _ := cpuSeconds(b.pids[string(m)])
	writes := float64(b.cfg.status * len(statusSteps))
	res.add("admission reviews per status write", m, (after-before)/writes)
	res.add("webhook CPU per status write (ms)", m, 1000*(cpu1-cpu0)/writes)
	return nil
}

// setAdmission installs the mode's admission webhooks for claims (none for
// storage) and waits until a status write reaches them.
func (b *bench) setAdmission(ctx context.Context, m mode) error {
	vwc := b.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	mwc := b.kube.AdmissionregistrationV1().MutatingWebhookConfigurations()
	for _, err := range []error{
		vwc.Delete(ctx, b.admission.validating.Name, metav1.DeleteOptions{}),
		mwc.Delete(ctx, b.admission.mutating.Name, metav1.DeleteOptions{}),
	} {
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if m == modeStorage {
		return nil
	}
	v, mu := b.admission.validating.DeepCopy(), b.admission.mutating.DeepCopy()
	if m == modeNull {
		for i := range v.Webhooks {
			url := b.nullURL + "/validate"
			v.Webhooks[i].ClientConfig.URL = &url
		}
		for i := range mu.Webhooks {
			url := b.nullURL + "/default"
			mu.Webhooks[i].ClientConfig.URL = &url
		}
	}
	v.ResourceVersion, mu.ResourceVersion = "", ""
	if _, err := vwc.Create(ctx, v, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := mwc.Create(ctx, mu, metav1.CreateOptions{}); err != nil {
		return err
	}
	// The apiserver picks the configurations up from a watch: write a
	// status that changes nothing until the webhook sees it.
	start := time.Now()
	for {
		n0, err := b.admissionCount(m)
		if err != nil {
			return err
		}
		claim, err := b.claims("v1alpha3").Get(ctx, claimName(0), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, err := b.claims("v1alpha3").UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return err
		}
		if n1, err := b.admissionCount(m); err != nil || n1 > n0 {
			return err
		}
		if time.Since(start) > time.Minute {
			return fmt.Errorf("the %s admission webhooks got no review within a minute", m)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// admissionCount is the number of admission reviews the mode's webhook has
// answered.
func (b *bench) admissionCount(m mode) (float64, error) {
	if m == modeNull {
		_, _, n, err := b.nullCounts()
		return n, err
	}
	text, err := httpGet(b.cbMetrics, nil)
	return promSum(text, "claimbridge_webhook_requests_total", `endpoint="/validate"`) +
		promSum(text, "claimbridge_webhook_requests_total", `endpoint="/default"`), err
}

// saveAdmission keeps the harness's webhook configurations for setAdmission.
func (b *bench) saveAdmission(ctx context.Context, name string) error {
	v, err := b.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	mu, err := b.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	b.admission = admissionConfigs{validating: v, mutating: mu}
	return nil
}
