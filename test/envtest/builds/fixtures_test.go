//go:build envtest

package builds

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const (
	claimsResource    = "resourceclaims"
	templatesResource = "resourceclaimtemplates"
	testTimeout       = 30 * time.Second
)

// fixtureFiles are conversion's fixtures written through their own
// version: claims and templates of every version, classic, structured and
// 1.31 allocations, Immediate and not shareable ones, handle data of every
// kind (conversion/testdata; the partial objects and the list are not
// objects one creates).
var fixtureFiles = []string{
	"allocated.v1alpha1.yaml", "allocated.v1alpha2.yaml", "allocated.v1alpha3.yaml",
	"classic.v1alpha3.yaml",
	"deallocating.v1alpha1.yaml", "deallocating.v1alpha2.yaml", "deallocating.v1alpha3.yaml",
	"empty-handle.v1alpha1.yaml",
	"full.v1alpha3.yaml",
	"json-data.v1alpha2.yaml", "multi-driver.v1alpha2.yaml", "no-handles.v1alpha2.yaml",
	"no-requests.v1alpha3.yaml",
	"structured.v1alpha2.yaml",
	"template.v1alpha1.yaml", "template.v1alpha2.yaml", "template.v1alpha3.yaml",
	"unallocated.v1alpha1.yaml", "unallocated.v1alpha2.yaml", "unallocated.v1alpha3.yaml",
}

// fixture is one object to create: its resource, version and name.
type fixture struct {
	resource, version, name string
	obj                     *unstructured.Unstructured
}

// loadFixtures reads fixtureFiles for namespace ns, each named after its
// file (allocated-v1alpha1), without the metadata the apiserver sets.
func loadFixtures(t *testing.T, ns string) []fixture {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, file := range fixtureFiles {
		data, err := os.ReadFile(filepath.Join(root, "conversion", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]interface{}
		if err := yaml.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		u := &unstructured.Unstructured{Object: normalize(t, m).(map[string]interface{})}
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
			unstructured.RemoveNestedField(u.Object, "metadata", f)
		}
		name := strings.ReplaceAll(strings.TrimSuffix(file, ".yaml"), ".", "-")
		u.SetAPIVersion(api.Group + "/" + u.GroupVersionKind().Version)
		u.SetName(name)
		u.SetNamespace(ns)
		resource := claimsResource
		if u.GetKind() == "ResourceClaimTemplate" {
			resource = templatesResource
		}
		out = append(out, fixture{resource: resource, version: u.GroupVersionKind().Version, name: name, obj: u})
	}
	return out
}

// ctxFor is a context that ends with the test or after testTimeout.
func ctxFor(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func res(version, resource, ns string) dynamic.ResourceInterface {
	return env.Resource(version, resource).Namespace(ns)
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(ctxFor(t), ns); err != nil {
		t.Fatalf("creating namespace %s-*: %v", prefix, err)
	}
	return ns.Name
}

// create creates f and writes its status, if it has one.
func create(t *testing.T, f fixture) {
	t.Helper()
	ctx := ctxFor(t)
	ri := res(f.version, f.resource, f.obj.GetNamespace())
	var created *unstructured.Unstructured
	err := retried(func() (err error) {
		created, err = ri.Create(ctx, f.obj.DeepCopy(), metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating %s %s: %v", f.version, f.name, describe(err))
	}
	status, ok := f.obj.Object["status"]
	if !ok || f.resource != claimsResource {
		return
	}
	created.Object["status"] = status
	if err := retried(func() error { _, err := ri.UpdateStatus(ctx, created.DeepCopy(), metav1.UpdateOptions{}); return err }); err != nil {
		t.Fatalf("writing the status of %s %s: %v", f.version, f.name, describe(err))
	}
}

// views reads f through every version.
func views(t *testing.T, f fixture) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, v := range api.ServedVersions {
		var u *unstructured.Unstructured
		err := retried(func() (err error) {
			u, err = res(v, f.resource, f.obj.GetNamespace()).Get(ctxFor(t), f.name, metav1.GetOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("get %s %s: %v", v, f.name, describe(err))
		}
		out[v] = u
	}
	return out
}

// normalize round-trips v through JSON so that numbers compare equal
// whichever decoder produced them.
func normalize(t testing.TB, v interface{}) interface{} {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out interface{}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// describe renders an API error with its causes.
func describe(err error) string {
	var status apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		status = s
	}
	if status == nil || status.Status().Details == nil {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(err.Error())
	for _, c := range status.Status().Details.Causes {
		b.WriteString("\n  " + c.Field + ": " + c.Message)
	}
	return b.String()
}

// retried calls f until it returns no error or one other than a webhook
// call the proxy cut: routing closes the connections kube-apiserver keeps
// open to the replicas, and the call that finds its connection closed
// fails before anything is stored (kube-apiserver does not retry a POST),
// as a call to a replica killed mid-roll does; its client retries.
func retried(f func() error) error {
	for i := 0; ; i++ {
		err := f()
		if err == nil || i == 4 || !cutConnection(err) {
			return err
		}
	}
}

func cutConnection(err error) bool {
	s := err.Error()
	if !strings.Contains(s, "/convert?timeout=") && !strings.Contains(s, "failed calling webhook") {
		return false
	}
	// "server closed idle connection": the transport had picked a kept
	// connection as the proxy closed it, before its read loop saw the EOF.
	for _, cut := range []string{"write tcp", "connection reset", "broken pipe", "use of closed network connection",
		"server closed idle connection"} {
		if strings.Contains(s, cut) {
			return true
		}
	}
	return strings.HasSuffix(s, "EOF")
}

// get reads name through ri.
func get(t *testing.T, ri dynamic.ResourceInterface, name string) *unstructured.Unstructured {
	t.Helper()
	var u *unstructured.Unstructured
	err := retried(func() (err error) {
		u, err = ri.Get(ctxFor(t), name, metav1.GetOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("get %s: %v", name, describe(err))
	}
	return u
}

// writeBack writes u back unchanged through ri: a PUT of the main resource,
// or of /status.
func writeBack(t *testing.T, ri dynamic.ResourceInterface, u *unstructured.Unstructured, status bool) (out *unstructured.Unstructured, err error) {
	err = retried(func() (err error) {
		if status {
			out, err = ri.UpdateStatus(ctxFor(t), u.DeepCopy(), metav1.UpdateOptions{})
		} else {
			out, err = ri.Update(ctxFor(t), u.DeepCopy(), metav1.UpdateOptions{})
		}
		return err
	})
	return out, err
}

// cmpWithoutWriteMetadata is the diff of a and b without what every write
// changes (withoutWriteMetadata).
func cmpWithoutWriteMetadata(t *testing.T, a, b *unstructured.Unstructured) string {
	return cmp.Diff(withoutWriteMetadata(t, a), withoutWriteMetadata(t, b))
}
