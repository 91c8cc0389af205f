package selfmanaged

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

var vwcResource = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}

// policyDenial is kube-apiserver's answer when ValidatingAdmissionPolicy
// policy (bound by binding, "" for the form without) denies with message
// and reason (k8s.io/apiserver admission/plugin/policy/validating
// dispatcher.go: admission.NewForbidden, then the policy's reason and its code).
func policyDenial(policy, binding, message string, reason metav1.StatusReason, code int32) error {
	m := fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", policy, message)
	if binding != "" {
		m = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, binding, message)
	}
	err := apierrors.NewForbidden(vwcResource, "claimbridge-validating-webhook-configuration", errors.New(m))
	err.ErrStatus.Reason, err.ErrStatus.Code = reason, code
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: m})
	return err
}

const vwcMessage = "claimbridge's ServiceAccount may change only the webhooks' caBundle of a ValidatingWebhookConfiguration"

func TestClassifyProbe(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		want       PolicyVerdict
		wantPolicy string
	}{
		{"allowed", nil, PolicyNotEnforced, ""},
		{"refused-by-the-token-policy", policyDenial("claimbridge-ca-injection-only", "claimbridge-ca-injection-only", vwcMessage, metav1.StatusReasonForbidden, http.StatusForbidden),
			PolicyEnforced, "claimbridge-ca-injection-only"},
		{"refused-by-the-kustomize-policy-renamed", policyDenial("team-claimbridge-ca-injection-only", "team-claimbridge-ca-injection-only",
			"claimbridge's ServiceAccount may change only the conversion webhook's caBundle of a CustomResourceDefinition", metav1.StatusReasonForbidden, http.StatusForbidden),
			PolicyEnforced, "team-claimbridge-ca-injection-only"},
		{"refused-by-the-token-policy-without-binding-name", policyDenial("claimbridge-ca-injection-only", "", vwcMessage, metav1.StatusReasonForbidden, http.StatusForbidden),
			PolicyEnforced, "claimbridge-ca-injection-only"},
		{"refused-by-the-token-policy-wrapped", fmt.Errorf("probe: %w", policyDenial("p", "b", vwcMessage, metav1.StatusReasonForbidden, http.StatusForbidden)),
			PolicyEnforced, "p"},
		{"refused-by-another-policy", policyDenial("no-annotations", "no-annotations", "annotations are frozen", metav1.StatusReasonInvalid, http.StatusUnprocessableEntity),
			PolicyUnknown, "no-annotations"},
		{"another-policy-quoting-ours-in-its-binding-name", policyDenial("x", "claimbridge's ServiceAccount may change only ", "no", metav1.StatusReasonForbidden, http.StatusForbidden),
			PolicyUnknown, "x"},
		{"rbac-forbidden", apierrors.NewForbidden(vwcResource, "claimbridge-validating-webhook-configuration",
			errors.New(`User "system:serviceaccount:claimbridge-system:claimbridge" cannot update resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope`)),
			PolicyUnknown, ""},
		{"webhook-denial", apierrors.NewForbidden(vwcResource, "x", errors.New(`admission webhook "deny.example.com" denied the request: `+vwcMessage)),
			PolicyUnknown, ""},
		{"conflict", apierrors.NewConflict(vwcResource, "x", errors.New("the object has been modified")), PolicyUnknown, ""},
		{"not-found", apierrors.NewNotFound(vwcResource, "x"), PolicyUnknown, ""},
		{"timeout", apierrors.NewTimeoutError("request did not complete", 1), PolicyUnknown, ""},
		{"context-deadline", context.DeadlineExceeded, PolicyUnknown, ""},
		{"connection-refused", errors.New("dial tcp 10.0.0.1:443: connect: connection refused"), PolicyUnknown, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, policy := ClassifyProbe(tc.err)
			if got != tc.want || policy != tc.wantPolicy {
				t.Errorf("ClassifyProbe(%v) = %d, %q; want %d, %q", tc.err, got, policy, tc.want, tc.wantPolicy)
			}
		})
	}
}

// fakeAPI is a dynamic client holding one ValidatingWebhookConfiguration
// whose updates answer with answer (nil: accepted) and are recorded.
func fakeAPI(answer func() error) (*dynamicfake.FakeDynamicClient, *[]clienttesting.UpdateActionImpl) {
	vwc := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]interface{}{"name": "vwc", "resourceVersion": "7", "annotations": map[string]interface{}{"kept": "yes"}},
	}}
	gvr := vwcResource.WithVersion("v1")
	c := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ValidatingWebhookConfigurationList"}, vwc)
	var updates []clienttesting.UpdateActionImpl
	c.PrependReactor("update", "validatingwebhookconfigurations", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u := a.(clienttesting.UpdateActionImpl)
		updates = append(updates, u)
		if err := answer(); err != nil {
			return true, nil, err
		}
		return true, u.GetObject(), nil
	})
	return c, &updates
}

// TestPolicyCheck: a check probes the validating webhook configuration by a
// dry-run update that changes only ProbeAnnotation, reports each verdict,
// logs an error for a policy not enforced and for an answer that proves
// nothing, and retries a conflict at once.
func TestPolicyCheck(t *testing.T) {
	deny := policyDenial("claimbridge-ca-injection-only", "claimbridge-ca-injection-only", vwcMessage, metav1.StatusReasonForbidden, http.StatusForbidden)
	conflict := apierrors.NewConflict(vwcResource, "vwc", errors.New("the object has been modified"))
	rbac := apierrors.NewForbidden(vwcResource, "vwc", errors.New(`User "system:serviceaccount:ns:sa" cannot update resource`))
	for _, tc := range []struct {
		name        string
		answers     []error
		want        PolicyVerdict
		wantUpdates int
		wantLog     string // in the error logged; "" for no error
	}{
		{"enforced", []error{deny}, PolicyEnforced, 1, ""},
		{"not-enforced", []error{nil}, PolicyNotEnforced, 1, "Token policy NOT enforced"},
		{"conflict-then-enforced", []error{conflict, deny}, PolicyEnforced, 2, ""},
		{"rbac", []error{rbac}, PolicyUnknown, 1, "the answer proves nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			c, updates := fakeAPI(func() error {
				err := tc.answers[min(i, len(tc.answers)-1)]
				i++
				return err
			})
			var logged []string
			log := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{Verbosity: 1})
			var reported []PolicyVerdict
			chk, err := newPolicyCheck(Config{ValidatingWebhookConfigurationName: "vwc", CRDNames: []string{"crd"}}, c, time.Minute, log,
				func(v PolicyVerdict) { reported = append(reported, v) })
			if err != nil {
				t.Fatal(err)
			}
			chk.now = func() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) }
			if got := chk.Check(t.Context()); got != tc.want {
				t.Errorf("verdict %d, want %d", got, tc.want)
			}
			if len(reported) != 1 || reported[0] != tc.want {
				t.Errorf("reported %v, want [%d]", reported, tc.want)
			}
			if len(*updates) != tc.wantUpdates {
				t.Fatalf("%d updates, want %d", len(*updates), tc.wantUpdates)
			}
			for _, u := range *updates {
				if got := u.UpdateOptions.DryRun; len(got) != 1 || got[0] != metav1.DryRunAll {
					t.Errorf("update with dryRun %q, want [All]", got)
				}
				obj := u.GetObject().(*unstructured.Unstructured)
				want := map[string]string{"kept": "yes", ProbeAnnotation: "2030-01-02T03:04:05Z"}
				if got := obj.GetAnnotations(); fmt.Sprint(got) != fmt.Sprint(want) || obj.GetResourceVersion() != "7" || obj.GetName() != "vwc" {
					t.Errorf("updated %s (resourceVersion %q) with annotations %v, want vwc at 7 with %v", obj.GetName(), obj.GetResourceVersion(), got, want)
				}
			}
			var errorLogged string
			for _, l := range logged {
				if strings.Contains(l, `"error"=`) {
					errorLogged += l
				}
			}
			if tc.wantLog == "" && errorLogged != "" {
				t.Errorf("logged %q, want no error", errorLogged)
			}
			if tc.wantLog != "" && !strings.Contains(errorLogged, tc.wantLog) {
				t.Errorf("logged %q, want an error saying %q", logged, tc.wantLog)
			}
		})
	}
}

// TestPolicyCheckTarget: the check probes an object the rotator injects
// into: the validating webhook configuration, else the mutating one, else
// the first CRD.
func TestPolicyCheckTarget(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{ValidatingWebhookConfigurationName: "v", MutatingWebhookConfigurationName: "m", CRDNames: []string{"c"}}, "validatingwebhookconfigurations/v"},
		{Config{MutatingWebhookConfigurationName: "m", CRDNames: []string{"c"}}, "mutatingwebhookconfigurations/m"},
		{Config{CRDNames: []string{"c", "d"}}, "customresourcedefinitions/c"},
	} {
		got, err := targetOf(tc.cfg)
		if err != nil || got.gvr.Resource+"/"+got.name != tc.want {
			t.Errorf("targetOf(%+v) = %s/%s, %v; want %s", tc.cfg, got.gvr.Resource, got.name, err, tc.want)
		}
	}
	if _, err := targetOf(Config{}); err == nil {
		t.Error("targetOf(no targets): no error")
	}
	if _, err := newPolicyCheck(Config{CRDNames: []string{"c"}}, nil, 0, logr.Discard(), nil); err == nil {
		t.Error("interval 0: no error")
	}
}
