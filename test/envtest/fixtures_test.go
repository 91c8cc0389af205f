//go:build envtest

package envtest_test

// Helpers shared by the conversion (Suite 2) and validation (Suite 3)
// envtest suites. They use the package's environment, env, started once by
// TestMain (manifests_test.go) with harness.Main.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const (
	claimsResource    = "resourceclaims"
	templatesResource = "resourceclaimtemplates"

	// webhookName is the validating webhook's name in config/webhook.
	webhookName = "validate.resource.claimbridge.dev"

	// restoreAnnotationPrefix starts the annotations conversion writes.
	restoreAnnotationPrefix = "claimbridge.dev/restore-"

	// testTimeout bounds every API call and poll of one subtest.
	testTimeout = 30 * time.Second
)

// ctxFor returns a context that ends with the test or after testTimeout.
func ctxFor(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newNamespace creates a namespace for one test (generateName prefix) and
// deletes it in t.Cleanup (envtest runs no namespace controller, so objects
// in it are deleted explicitly first).
func newNamespace(t testing.TB, prefix string) string {
	t.Helper()
	ctx := ctxFor(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatalf("creating namespace %s-*: %v", prefix, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		for _, r := range []string{claimsResource, templatesResource} {
			if err := env.Resource(api.StorageVersion, r).Namespace(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				t.Errorf("deleting %s in %s: %v", r, ns.Name, err)
			}
		}
		if err := env.Client.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// res is the dynamic client for resource in version and namespace ns.
func res(version, resource, ns string) dynamic.ResourceInterface {
	return env.Resource(version, resource).Namespace(ns)
}

func claims(version, ns string) dynamic.ResourceInterface {
	return res(version, claimsResource, ns)
}

func templates(version, ns string) dynamic.ResourceInterface {
	return res(version, templatesResource, ns)
}

// fromYAML parses one object; apiVersion is set to the claimbridge group in
// version (the fixtures leave it out), the namespace to ns.
func fromYAML(t testing.TB, version, ns, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("fixture: %v\n%s", err, doc)
	}
	u := &unstructured.Unstructured{Object: normalize(t, m).(map[string]interface{})}
	u.SetAPIVersion(api.Group + "/" + version)
	if ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

// normalize round-trips v through JSON so that numbers compare equal
// whichever decoder produced them.
func normalize(t testing.TB, v interface{}) interface{} {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshalling: %v", err)
	}
	var out interface{}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("unmarshalling: %v", err)
	}
	return out
}

// field returns obj's value at path ("spec", "devices", ...; an int is a list
// index) and whether it is there.
func field(obj map[string]interface{}, path ...interface{}) (interface{}, bool) {
	var cur interface{} = obj
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]interface{})
			if !ok {
				return nil, false
			}
			if cur, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := cur.([]interface{})
			if !ok || k < 0 || k >= len(l) {
				return nil, false
			}
			cur = l[k]
		default:
			panic(fmt.Sprintf("bad path element %T", p))
		}
	}
	return cur, true
}

func pathString(path []interface{}) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}

// expectField fails t unless obj has want (compared after normalize) at path.
func expectField(t testing.TB, obj *unstructured.Unstructured, want interface{}, path ...interface{}) {
	t.Helper()
	got, ok := field(obj.Object, path...)
	if !ok {
		t.Errorf("%s %s: %s is missing, want %v", obj.GetAPIVersion(), obj.GetName(), pathString(path), want)
		return
	}
	if diff := cmp.Diff(normalize(t, want), normalize(t, got)); diff != "" {
		t.Errorf("%s %s: %s (-want +got):\n%s", obj.GetAPIVersion(), obj.GetName(), pathString(path), diff)
	}
}

// expectNoField fails t when obj has a value at path.
func expectNoField(t testing.TB, obj *unstructured.Unstructured, path ...interface{}) {
	t.Helper()
	if got, ok := field(obj.Object, path...); ok {
		t.Errorf("%s %s: %s = %v, want it absent", obj.GetAPIVersion(), obj.GetName(), pathString(path), got)
	}
}

// expectSection fails t unless got's top-level section (spec, status) equals
// want's, with a diff.
func expectSection(t testing.TB, section string, want, got *unstructured.Unstructured) {
	t.Helper()
	w, wok := want.Object[section]
	g, gok := got.Object[section]
	if wok != gok {
		t.Errorf("%s %s: %s present=%v, want present=%v (got %v)", got.GetAPIVersion(), got.GetName(), section, gok, wok, g)
		return
	}
	if diff := cmp.Diff(normalize(t, w), normalize(t, g)); diff != "" {
		t.Errorf("%s %s: %s differs from what was written (-want +got):\n%s", got.GetAPIVersion(), got.GetName(), section, diff)
	}
}

// userMeta is the part of metadata a client writes (everything but the
// fields the server sets), for comparing an object with what was written.
func userMeta(u *unstructured.Unstructured) map[string]interface{} {
	m := map[string]interface{}{"name": u.GetName(), "namespace": u.GetNamespace()}
	if l := u.GetLabels(); len(l) > 0 {
		m["labels"] = l
	}
	if a := u.GetAnnotations(); len(a) > 0 {
		m["annotations"] = a
	}
	if f := u.GetFinalizers(); len(f) > 0 {
		m["finalizers"] = f
	}
	if o := u.GetOwnerReferences(); len(o) > 0 {
		m["ownerReferences"] = o
	}
	return m
}

// expectRoundTrip fails t unless got (read back in the version want was
// written in) has want's spec and status and, in metadata, differs only in
// server-set fields.
func expectRoundTrip(t testing.TB, want, got *unstructured.Unstructured) {
	t.Helper()
	if got.GetAPIVersion() != want.GetAPIVersion() || got.GetKind() != want.GetKind() {
		t.Errorf("read back as %s %s, want %s %s", got.GetAPIVersion(), got.GetKind(), want.GetAPIVersion(), want.GetKind())
	}
	expectSection(t, "spec", want, got)
	expectSection(t, "status", want, got)
	if diff := cmp.Diff(normalize(t, userMeta(want)), normalize(t, userMeta(got))); diff != "" {
		t.Errorf("%s %s: metadata differs beyond server-set fields (-want +got):\n%s", got.GetAPIVersion(), got.GetName(), diff)
	}
	for k := range got.GetAnnotations() {
		if strings.HasPrefix(k, restoreAnnotationPrefix) && want.GetAnnotations()[k] == "" {
			t.Errorf("%s %s: read back in its own version with annotation %s", got.GetAPIVersion(), got.GetName(), k)
		}
	}
}

// createClaim creates obj (a claim in obj's version) and, when obj has a
// status, writes it through /status (create drops status), and returns the
// object as the server answered the last write.
func createClaim(t testing.TB, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	return createObject(t, claimsResource, obj)
}

func createObject(t testing.TB, resource string, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	ctx := ctxFor(t)
	ri := res(obj.GroupVersionKind().Version, resource, obj.GetNamespace())
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s/%s: %v", obj.GetAPIVersion(), obj.GetNamespace(), obj.GetName(), describe(err))
	}
	status, ok := obj.Object["status"]
	if !ok || resource != claimsResource {
		return created
	}
	if _, has := created.Object["status"]; has {
		t.Errorf("create of %s %s kept status %v: the CRD's status subresource should drop it", obj.GetAPIVersion(), obj.GetName(), created.Object["status"])
	}
	created.Object["status"] = status
	updated, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("writing the status of %s %s/%s: %v", obj.GetAPIVersion(), obj.GetNamespace(), obj.GetName(), describe(err))
	}
	return updated
}

// get reads name in version.
func get(t testing.TB, ri dynamic.ResourceInterface, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := ri.Get(ctxFor(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, describe(err))
	}
	return u
}

// describe renders an API error with its status details, for failure
// messages.
func describe(err error) string {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return err.Error()
	}
	st := se.Status()
	var b strings.Builder
	fmt.Fprintf(&b, "%v (code %d, reason %s", err, st.Code, st.Reason)
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			fmt.Fprintf(&b, "; cause %s %s %q", c.Field, c.Type, c.Message)
		}
	}
	b.WriteString(")")
	return b.String()
}

// cause is an expected details.causes entry: the field path and the reason
// (metav1.CauseType, e.g. "FieldValueInvalid"; empty: any). A detail, when
// set, must be a substring of the cause's message. With Prefix, Field only
// has to start the cause's field (the schema and the webhook may report a
// list-map duplicate at the item or at its key).
type cause struct {
	Field  string
	Type   metav1.CauseType
	Detail string
	Prefix bool
}

func (w cause) matches(c metav1.StatusCause) bool {
	fieldOK := c.Field == w.Field || (w.Prefix && strings.HasPrefix(c.Field, w.Field))
	return fieldOK && (w.Type == "" || c.Type == w.Type) && strings.Contains(c.Message, w.Detail)
}

const (
	causeInvalid      = metav1.CauseTypeFieldValueInvalid
	causeRequired     = metav1.CauseTypeFieldValueRequired
	causeDuplicate    = metav1.CauseTypeFieldValueDuplicate
	causeNotSupported = metav1.CauseTypeFieldValueNotSupported
	causeForbidden    = metav1.CauseType("FieldValueForbidden")
	causeTooLong      = metav1.CauseType("FieldValueTooLong")
	causeTooMany      = metav1.CauseType("FieldValueTooMany")
)

// denial says who is expected to reject a write.
type denial int

const (
	// byWebhook: claimbridge's validating webhook (message prefixed with
	// `admission webhook "validate.resource.claimbridge.dev" denied the request: `).
	byWebhook denial = iota
	// bySchema: the apiserver itself (CRD structural schema), before admission.
	bySchema
)

// expectInvalid fails t unless err is a 422 Invalid whose details.causes
// include every cause in want (field path and reason; detail as substring).
func expectInvalid(t testing.TB, err error, who denial, want ...cause) {
	t.Helper()
	if err == nil {
		t.Errorf("the write was accepted, want 422 Invalid with causes %v", want)
		return
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("error is not Invalid: %s", describe(err))
		return
	}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		t.Errorf("error carries no status: %v", err)
		return
	}
	st := se.Status()
	if st.Code != http.StatusUnprocessableEntity {
		t.Errorf("status code %d, want 422: %s", st.Code, describe(err))
	}
	if st.Status != metav1.StatusFailure || st.Reason != metav1.StatusReasonInvalid {
		t.Errorf("status %q reason %q, want Failure Invalid", st.Status, st.Reason)
	}
	fromWebhook := strings.Contains(st.Message, fmt.Sprintf("admission webhook %q denied the request: ", webhookName))
	switch who {
	case byWebhook:
		if !fromWebhook {
			t.Errorf("want a denial by the %s admission webhook, got: %s", webhookName, describe(err))
		}
	case bySchema:
		if fromWebhook {
			t.Errorf("want the apiserver's schema validation to reject this before admission, got: %s", describe(err))
		}
	}
	if st.Details == nil {
		t.Errorf("no details in the status: %s", describe(err))
		return
	}
	if st.Details.Group != api.Group {
		t.Errorf("details.group %q, want %q", st.Details.Group, api.Group)
	}
	for _, w := range want {
		found := false
		for _, c := range st.Details.Causes {
			if w.matches(c) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no cause %s %s %q in %s", w.Field, w.Type, w.Detail, describe(err))
		}
		// The message repeats each cause as "<field>: <reason text>...".
		if !strings.Contains(st.Message, w.Field+": ") {
			t.Errorf("message does not mention %s: %q", w.Field, st.Message)
		}
	}
}

// jsonPatch applies an RFC 6902 patch to name (subresources optional).
func jsonPatch(ctx context.Context, ri dynamic.ResourceInterface, name string, ops []map[string]interface{}, subresources ...string) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	return ri.Patch(ctx, name, types.JSONPatchType, data, metav1.PatchOptions{}, subresources...)
}

// mutate reads name through ri, applies f and writes it back with Update
// (or UpdateStatus when status is true), returning the write's error.
func mutate(t testing.TB, ri dynamic.ResourceInterface, name string, status bool, f func(u *unstructured.Unstructured)) (*unstructured.Unstructured, error) {
	t.Helper()
	ctx := ctxFor(t)
	u := get(t, ri, name)
	f(u)
	if status {
		return ri.UpdateStatus(ctx, u, metav1.UpdateOptions{})
	}
	return ri.Update(ctx, u, metav1.UpdateOptions{})
}

// set sets a nested field of u (path of strings), failing t on error.
func set(t testing.TB, u *unstructured.Unstructured, value interface{}, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(u.Object, normalize(t, value), path...); err != nil {
		t.Fatalf("setting %s: %v", strings.Join(path, "."), err)
	}
}

// consumers returns n reservedFor entries (pods).
func consumers(n int, prefix string) []interface{} {
	out := make([]interface{}, 0, n)
	for i := range n {
		out = append(out, map[string]interface{}{
			"resource": "pods",
			"name":     fmt.Sprintf("%s-%d", prefix, i),
			"uid":      fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1),
		})
	}
	return out
}

// removeWebhookConfiguration deletes claimbridge's webhook configuration of
// resource ("validatingwebhookconfigurations" or
// "mutatingwebhookconfigurations"), so that writes are stored without that
// webhook, and returns the function that installs the configurations again
// (once; it is also a cleanup of t). The deletion takes effect
// asynchronously: the caller retries until a write is stored as sent.
func removeWebhookConfiguration(t *testing.T, resource string) (reinstall func()) {
	t.Helper()
	ri := env.Dynamic.Resource(admissionregistrationv1.SchemeGroupVersion.WithResource(resource))
	if err := ri.Delete(ctxFor(t), harness.WebhookConfigurationName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	reinstalled := false
	reinstall = func() {
		if !reinstalled {
			reinstalled = true
			if err := env.InstallWebhookConfiguration(ctxFor(t)); err != nil {
				t.Fatalf("reinstalling the webhook configurations: %v", err)
			}
		}
	}
	t.Cleanup(reinstall)
	return reinstall
}
