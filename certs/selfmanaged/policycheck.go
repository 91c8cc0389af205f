package selfmanaged

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// The token policy check proves that the install's ValidatingAdmissionPolicy
// (<prefix>ca-injection-only: charts/claimbridge/templates/tokenpolicy.yaml,
// config/self-managed/token-policy.yaml) is enforced: RBAC lets the server's
// ServiceAccount update the CRDs and the webhook configurations whole, and
// only the policy narrows that to the caBundles. A deleted policy or binding,
// or an apiserver without the ValidatingAdmissionPolicy admission plugin,
// enforces nothing and says nothing; the check sends, as the ServiceAccount,
// a server-side dry-run update (nothing is stored) that the policy must
// refuse, and reads the verdict from the apiserver's answer.

// ProbeAnnotation is the annotation the check's dry-run update adds to (or
// changes on) the object it probes; the policy refuses any change of the
// ServiceAccount's to metadata.
const ProbeAnnotation = "claimbridge.dev/token-policy-probe"

// tokenPolicyMessage begins every message with which the token policy
// refuses the ServiceAccount a change (test/envtest/harness TokenPolicyMessage).
const tokenPolicyMessage = "claimbridge's ServiceAccount may change only "

// PolicyVerdict is what a check found; its value is the one the gauge
// claimbridge_token_policy_enforced shows.
type PolicyVerdict int

// The verdicts of a token policy check.
const (
	// PolicyUnknown: the apiserver's answer proves nothing (RBAC, a
	// conflict, a timeout, another policy's or webhook's refusal).
	PolicyUnknown PolicyVerdict = -1
	// PolicyNotEnforced: the apiserver accepted the change the policy must
	// refuse.
	PolicyNotEnforced PolicyVerdict = 0
	// PolicyEnforced: the token policy refused it.
	PolicyEnforced PolicyVerdict = 1
)

// vapDenial is how kube-apiserver begins a ValidatingAdmissionPolicy's
// denial (k8s.io/apiserver admission/plugin/policy/validating
// dispatcher.go): "ValidatingAdmissionPolicy '<policy>' [with binding
// '<binding>'] denied request: <message>".
const vapDenial = "ValidatingAdmissionPolicy '"

// ClassifyProbe is the verdict of the apiserver's answer err to the probe's
// dry-run update, and the policy that refused it (when one did). Only a
// ValidatingAdmissionPolicy's denial with the token policy's message is
// enforcement: another policy's refusal of the probe says nothing about
// rules, failurePolicy or the conversion's URL.
func ClassifyProbe(err error) (PolicyVerdict, string) {
	if err == nil {
		return PolicyNotEnforced, ""
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return PolicyUnknown, ""
	}
	msg := status.Status().Message
	_, rest, found := strings.Cut(msg, vapDenial)
	if !found {
		return PolicyUnknown, ""
	}
	name, rest, ok := strings.Cut(rest, "'")
	if !ok {
		return PolicyUnknown, ""
	}
	_, denied, ok := strings.Cut(rest, " denied request: ")
	if !ok || !strings.HasPrefix(denied, tokenPolicyMessage) {
		return PolicyUnknown, name
	}
	return PolicyEnforced, name
}

// probeTarget is the object the check probes: one the ServiceAccount may
// update, because the rotator injects its CA into it.
type probeTarget struct {
	gvr  schema.GroupVersionResource
	kind string
	name string
}

func targetOf(cfg Config) (probeTarget, error) {
	switch {
	case cfg.ValidatingWebhookConfigurationName != "":
		return probeTarget{schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
			"ValidatingWebhookConfiguration", cfg.ValidatingWebhookConfigurationName}, nil
	case cfg.MutatingWebhookConfigurationName != "":
		return probeTarget{schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
			"MutatingWebhookConfiguration", cfg.MutatingWebhookConfigurationName}, nil
	case len(cfg.CRDNames) > 0:
		return probeTarget{schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
			"CustomResourceDefinition", cfg.CRDNames[0]}, nil
	}
	return probeTarget{}, errors.New("token policy check: no CRD or webhook configuration to probe")
}

// PolicyCheck checks the token policy at start and then every interval.
type PolicyCheck struct {
	client   dynamic.Interface
	target   probeTarget
	interval time.Duration
	log      logr.Logger
	report   func(PolicyVerdict)
	now      func() time.Time
}

// NewPolicyCheck checks as restConfig's user (the server's ServiceAccount)
// by a dry-run update of the first of cfg's validating webhook
// configuration, mutating webhook configuration and CRDs; report receives
// every verdict.
func NewPolicyCheck(cfg Config, restConfig *rest.Config, interval time.Duration, log logr.Logger, report func(PolicyVerdict)) (*PolicyCheck, error) {
	c, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("token policy check: %w", err)
	}
	return newPolicyCheck(cfg, c, interval, log, report)
}

func newPolicyCheck(cfg Config, c dynamic.Interface, interval time.Duration, log logr.Logger, report func(PolicyVerdict)) (*PolicyCheck, error) {
	t, err := targetOf(cfg)
	if err != nil {
		return nil, err
	}
	if interval <= 0 {
		return nil, fmt.Errorf("token policy check: interval %s: must be greater than zero", interval)
	}
	return &PolicyCheck{client: c, target: t, interval: interval, log: log, report: report, now: time.Now}, nil
}

// Run checks at once and then every interval until ctx is done.
func (c *PolicyCheck) Run(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		c.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Check probes once, logs and reports the verdict, and returns it.
func (c *PolicyCheck) Check(ctx context.Context) PolicyVerdict {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := c.probe(ctx)
	v, policy := ClassifyProbe(err)
	if ctx.Err() != nil && v == PolicyUnknown && errors.Is(context.Cause(ctx), context.Canceled) {
		return v // shutting down: no verdict, no report
	}
	obj := c.target.kind + " " + c.target.name
	switch v {
	case PolicyEnforced:
		c.log.V(1).Info("Token policy enforced: a dry-run change of the ServiceAccount's was refused", "object", obj, "policy", policy)
	case PolicyNotEnforced:
		c.log.Error(nil, "Token policy NOT enforced: the apiserver let this server's ServiceAccount change more than a caBundle (dry run, nothing stored); "+
			"whoever takes over a pod can widen the webhooks' rules, set failurePolicy Ignore or send conversions elsewhere. "+
			"Check that the ValidatingAdmissionPolicy <prefix>ca-injection-only and its binding exist and that the apiserver enforces ValidatingAdmissionPolicies (docs/operations.md, \"RBAC and least privilege\")",
			"object", obj)
	default:
		c.log.Error(err, "Token policy check: the answer proves nothing, checking again later", "object", obj, "policy", policy, "interval", c.interval)
	}
	if c.report != nil {
		c.report(v)
	}
	return v
}

// probe gets the target and updates it with a new value of ProbeAnnotation,
// dryRun=All, retrying conflicts (the rotator may have injected meanwhile).
func (c *PolicyCheck) probe(ctx context.Context) error {
	r := c.client.Resource(c.target.gvr)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := r.Get(ctx, c.target.name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading %s %s: %w", c.target.kind, c.target.name, err)
		}
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[ProbeAnnotation] = c.now().UTC().Format(time.RFC3339Nano)
		obj.SetAnnotations(a)
		_, err = r.Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "claimbridge-token-policy-check"})
		return err
	})
}
