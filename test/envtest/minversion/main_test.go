//go:build envtest

// Package minversion runs claimbridge's install and core flows against the
// real kube-apiserver of the oldest release it supports, Kubernetes 1.30.14
// (the chart's kubeVersion, ">=1.30.0-0"; docs/operations.md, "Supported
// Kubernetes releases"), built from that release's sources by `make
// envtest-assets` (ENVTEST_ASSETS_1_30; a missing binary, or one of another
// release, fails the suite). One control plane, started by the harness with
// the CRDs of config/crd and the webhook configurations of config/webhook,
// and the server in this process:
//
//   - a claim created through each version reads back through every version
//     as conversion says, with the defaults of its version's release (the
//     defaulting webhook's for v1alpha3), and its allocation, written through
//     the status subresource in its version, reads back through every
//     version; a template is defaulted;
//   - invalid writes are refused with 422 and the field paths of the version
//     written, by the webhook and by the schema;
//   - a v1alpha3 claim without requests stays writable through v1alpha1 and
//     v1alpha2 (CRD validation ratcheting, on by default from 1.30: the
//     reason 1.30 is the minimum for the kustomize installs too);
//   - the chart's self-managed objects (helm template --kube-version 1.30.14)
//     and config/self-managed's are accepted with strict field validation and
//     stored with nothing dropped; the chart's server injects its CA under
//     the chart's ValidatingAdmissionPolicy, which refuses its ServiceAccount
//     a widened webhook, as config/self-managed's refuses its own (the
//     chart's `claimbridge serve` runs in a child process of the test
//     binary, serveChild, so that every repetition of -count runs it).
//
// Run with `make test-releases`, or:
//
//	env $(hack/envtest-assets.sh --env) go test -tags envtest ./test/envtest/minversion/
package minversion

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// release is the oldest Kubernetes release claimbridge supports: the chart's
// kubeVersion floor and what this suite runs.
const (
	release        = "1.30"
	releaseVersion = "1.30.14" // the patch release make envtest-assets builds
)

var env *harness.Env

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" { // a child started by serve
		os.Exit(harness.ServeChild())
	}
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	os.Exit(harness.Main(m, harness.Options{Assets: harness.Assets{
		Variable: "ENVTEST_ASSETS_1_30", PrintFlag: "--print-assets-dir=1.30", Release: release,
	}}, &env))
}

// ctxFor is a context that ends with the test or after 30s.
func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newNamespace creates a namespace of its own for a test, named prefix and a
// generated suffix, so that a test run again in the same process (-count=2)
// gets a fresh one. envtest runs no namespace controller: it is left behind
// with the control plane.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(ctxFor(t), ns); err != nil {
		t.Fatalf("creating a namespace %s-…: %v", prefix, err)
	}
	return ns.Name
}

// fromYAML is a claimbridge object of version in namespace ns.
func fromYAML(t *testing.T, version, ns, doc string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("test manifest: %v", err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(api.Group + "/" + version)
	u.SetNamespace(ns)
	return u
}

// fieldOf is the value at path in a YAML document (the test's expectation),
// with integers as int64 as the clients decode them.
func fieldOf(t *testing.T, doc string, path ...string) interface{} {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("test expectation: %v", err)
	}
	var obj map[string]interface{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		t.Fatalf("test expectation: %v", err)
	}
	v, _, _ := unstructured.NestedFieldNoCopy(obj, path...)
	return v
}

// cause is one StatusCause of a refusal.
type cause struct {
	Field string
	Type  metav1.CauseType
}

// checkInvalid wants err to be a 422 Invalid whose causes are exactly want,
// in order, and whose message starts with prefix (the webhook's "admission
// webhook ... denied the request: " or the apiserver's own).
func checkInvalid(err error, prefix string, want ...cause) error {
	if err == nil {
		return errors.New("the write was accepted")
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("not an API status: %w", err)
	}
	st := status.Status()
	var got []cause
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			got = append(got, cause{c.Field, c.Type})
		}
	}
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || !strings.HasPrefix(st.Message, prefix) || fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("got %d %s %q with causes %v; want 422 Invalid starting %q with causes %v", st.Code, st.Reason, st.Message, got, prefix, want)
	}
	return nil
}
