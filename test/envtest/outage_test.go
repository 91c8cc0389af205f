//go:build envtest

package envtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/claimbridge/claimbridge/api"
)

// outageWatchRetry is how long kube-apiserver's watch cache of a version
// retries its etcd watch when an event cannot be converted
// (MaxInternalErrorRetryDuration of k8s.io/apiserver/pkg/storage/cacher)
// before it ends every watch it serves and lists again.
const outageWatchRetry = 30 * time.Second

// rawWatch is a watch opened before the outage: what it received and when
// it was closed.
type rawWatch struct {
	mu     sync.Mutex
	events []string
	closed time.Time
}

func (r *rawWatch) snapshot() ([]string, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...), r.closed
}

// rawAnswer is kube-apiserver's answer to one request sent without client-go's
// retries (which honour Retry-After up to 10 times, hiding the answer).
type rawAnswer struct {
	code       int
	message    string
	retryAfter string
}

func (a rawAnswer) String() string {
	return fmt.Sprintf("%d %q (Retry-After %q)", a.code, a.message, a.retryAfter)
}

func rawGet(t *testing.T, path string) rawAnswer {
	t.Helper()
	hc, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(env.Config.Host, "/")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := rawAnswer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if resp.StatusCode != http.StatusOK {
		var st metav1.Status
		if json.Unmarshal(body, &st) == nil {
			a.message = st.Message
		}
	}
	return a
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestRecoveryAfterWebhookOutage: every claimbridge replica is down (the port
// refuses connections) long enough for kube-apiserver's v1alpha1 and v1alpha2
// watch caches to give up on the events they cannot convert, and comes back
// on the same address with the same certificate. What clients see meanwhile
// is recorded as kube-apiserver 1.37 answers (docs/operations.md, "When the
// webhook is down"), and everything must recover by itself: informers of
// every version opened before the outage converge to the objects' state, the
// deletions made through v1alpha3 during the outage included; gets and lists
// work; failed writes left nothing; no restart of anything.
func TestRecoveryAfterWebhookOutage(t *testing.T) {
	ns := newNamespace(t, "outage")
	claimYAML := func(name string) string {
		return "kind: ResourceClaim\nmetadata: {name: " + name + "}\nspec: {devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}}\n"
	}
	for _, v := range api.ServedVersions {
		createClaim(t, fromYAML(t, "v1alpha3", ns, claimYAML("kept-"+v)))
	}
	createClaim(t, fromYAML(t, "v1alpha3", ns, claimYAML("gone")))
	finalizing := fromYAML(t, "v1alpha3", ns, claimYAML("finalizing"))
	finalizing.SetFinalizers([]string{"claimbridge.dev/test-outage"})
	last := createClaim(t, finalizing)
	t.Cleanup(func() {
		if _, err := claims("v1alpha3", ns).Patch(context.Background(), "finalizing", types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`), metav1.PatchOptions{}); err != nil {
			t.Errorf("removing the test's finalizer: %v", err)
		}
	})
	before := map[string]string{}
	list, err := claims("v1alpha3", ns).List(ctxFor(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list.Items {
		before[u.GetName()] = u.GetResourceVersion()
	}

	infs := startInformers(t, claimsResource, ns)
	watchCtx, stopWatches := context.WithCancel(context.Background())
	defer stopWatches()
	raws := map[string]*rawWatch{}
	for _, v := range api.ServedVersions {
		w, err := claims(v, ns).Watch(watchCtx, metav1.ListOptions{ResourceVersion: last.GetResourceVersion()})
		if err != nil {
			t.Fatalf("watch through %s: %s", v, describe(err))
		}
		r := &rawWatch{}
		raws[v] = r
		go func() {
			for ev := range w.ResultChan() {
				s := string(ev.Type)
				if u, ok := ev.Object.(*unstructured.Unstructured); ok {
					s += " " + u.GetName()
				} else {
					s += fmt.Sprintf(" %v", ev.Object)
				}
				r.mu.Lock()
				r.events = append(r.events, s)
				r.mu.Unlock()
			}
			r.mu.Lock()
			r.closed = time.Now()
			r.mu.Unlock()
		}()
	}

	env.StopServer()
	running := false
	t.Cleanup(func() {
		if !running {
			if err := env.StartServer(); err != nil {
				t.Errorf("starting the claimbridge server again: %v", err)
			}
		}
	})
	listPath := func(v, query string) string {
		return fmt.Sprintf("/apis/%s/%s/namespaces/%s/resourceclaims%s", api.Group, v, ns, query)
	}
	expectAnswer := func(what string, got rawAnswer, code int, messages ...string) {
		t.Helper()
		if got.code != code || !containsAll(got.message, messages...) {
			t.Errorf("%s during the outage: %s, want %d with %q", what, got, code, messages)
		}
	}
	const refused = "/convert?timeout=30s\": dial tcp 127.0.0.1:"
	convertFailed := "conversion webhook for resource.claimbridge.dev/v1alpha3, Kind=ResourceClaim failed: Post \"" + strings.TrimSuffix(env.ConvertURL, "/convert")
	// kube-apiserver calls an object it cannot convert corrupt (feature
	// AllowUnsafeMalformedObjectDeletion, on by default from 1.37), the
	// conversion's failure following; a list names the first such object.
	const corrupt = "StorageError: corrupt object"
	unreadable := "failed to read one or more resourceclaims." + api.Group + " from the storage: " + corrupt

	// Before any write: gets through v1alpha1/v1alpha2 read etcd and fail;
	// lists are served by the watch caches, still current.
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		expectAnswer("get through "+v, rawGet(t, listPath(v, "/kept-v1alpha1")), http.StatusInternalServerError, corrupt, convertFailed)
		expectAnswer("list through "+v+" before any write", rawGet(t, listPath(v, "")), http.StatusOK)
	}
	for _, p := range []string{listPath("v1alpha3", ""), listPath("v1alpha3", "/kept-v1alpha1")} {
		expectAnswer("read through v1alpha3 "+p, rawGet(t, p), http.StatusOK)
	}

	// Writes: every create and update is refused (by /default, or by
	// /convert first for the older versions), status writes by /validate;
	// deletions through v1alpha3 pass (no webhook sees them).
	ctx := ctxFor(t)
	expectFailed := func(what string, err error, webhook string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), webhook) || !strings.Contains(err.Error(), "connect: connection refused") {
			t.Errorf("%s during the outage: %v, want a failed call of %s (connection refused)", what, err, webhook)
		}
	}
	const defaulting, validating = `failed calling webhook "default.resource.claimbridge.dev"`, `failed calling webhook "validate.resource.claimbridge.dev"`
	for _, v := range api.ServedVersions {
		spec := claimYAML("new-" + v)
		if v != "v1alpha3" {
			spec = "kind: ResourceClaim\nmetadata: {name: new-" + v + "}\nspec: {resourceClassName: gpu.example.com}\n"
		}
		_, err := claims(v, ns).Create(ctx, fromYAML(t, v, ns, spec), metav1.CreateOptions{})
		expectFailed("create through "+v, err, defaulting)
		label := []byte(`{"metadata":{"labels":{"outage":"written"}}}`)
		_, err = claims(v, ns).Patch(ctx, "kept-"+v, types.MergePatchType, label, metav1.PatchOptions{})
		statusPatch := []byte(`{"status":{"deallocationRequested":true}}`)
		_, serr := claims(v, ns).Patch(ctx, "kept-"+v, types.MergePatchType, statusPatch, metav1.PatchOptions{}, "status")
		if v == "v1alpha3" {
			expectFailed("patch through v1alpha3", err, defaulting)
			expectFailed("status patch through v1alpha3", serr, validating)
		} else {
			want := "conversion webhook for resource.claimbridge.dev/" + v + ", Kind=ResourceClaim failed"
			expectFailed("patch through "+v, err, want)
			expectFailed("status patch through "+v, serr, want)
		}
	}
	err = claims("v1alpha1", ns).Delete(ctx, "kept-v1alpha1", metav1.DeleteOptions{})
	expectFailed("delete through v1alpha1", err, "conversion webhook for resource.claimbridge.dev/v1alpha3, Kind=ResourceClaim failed")
	for _, name := range []string{"gone", "finalizing"} {
		if err := claims("v1alpha3", ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting %s through v1alpha3 during the outage: %s", name, describe(err))
		}
	}
	deleted := time.Now()
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
		events, _ := raws["v1alpha3"].snapshot()
		return len(events) == 2, nil
	}); err != nil {
		events, _ := raws["v1alpha3"].snapshot()
		t.Fatalf("the v1alpha3 watch received %v during the outage, want the two deletions", events)
	}
	if events, _ := raws["v1alpha3"].snapshot(); fmt.Sprint(events) != "[DELETED gone MODIFIED finalizing]" {
		t.Errorf("the v1alpha3 watch received %v, want [DELETED gone MODIFIED finalizing]", events)
	}

	// The v1alpha1 and v1alpha2 watch caches cannot convert the deletions:
	// their watches receive nothing, and are closed (without an error
	// event) once the caches give up, 30 s after the first failure.
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		var closed time.Time
		if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, outageWatchRetry+20*time.Second, true, func(context.Context) (bool, error) {
			_, closed = raws[v].snapshot()
			return !closed.IsZero(), nil
		}); err != nil {
			t.Fatalf("the %s watch opened before the outage was not closed within %s of the deletions", v, outageWatchRetry+20*time.Second)
		}
		events, _ := raws[v].snapshot()
		t.Logf("the %s watch was closed %s after the deletions, having received %v", v, closed.Sub(deleted).Round(100*time.Millisecond), events)
		if len(events) != 0 || closed.Sub(deleted) < outageWatchRetry-5*time.Second {
			t.Errorf("the %s watch received %v and was closed %s after the deletions, want nothing and about %s", v, events, closed.Sub(deleted), outageWatchRetry)
		}
	}
	// The caches are now re-initialising: lists without a limit are refused
	// with a Retry-After, lists with a limit go to etcd and fail converting;
	// both name the first object that failed.
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		// The reason follows once the cache's first list has failed; a
		// request just after the watches closed may come before it.
		got := rawGet(t, listPath(v, ""))
		expectAnswer("list through "+v, got, http.StatusTooManyRequests, "storage is (re)initializing")
		if reason, ok := strings.CutPrefix(got.message, "storage is (re)initializing: "); ok &&
			!containsAll(reason, unreadable, convertFailed) {
			t.Errorf("list through %s during the outage: %s, want the unreadable objects and the conversion's failure as the reason", v, got)
		}
		if got.retryAfter == "" {
			t.Errorf("list through %s: no Retry-After", v)
		}
		expectAnswer("list with a limit through "+v, rawGet(t, listPath(v, "?limit=500")), http.StatusInternalServerError, unreadable, convertFailed)
		expectAnswer("get through "+v, rawGet(t, listPath(v, "/kept-v1alpha2")), http.StatusInternalServerError, corrupt, refused)
	}
	expectAnswer("list through v1alpha3", rawGet(t, listPath("v1alpha3", "")), http.StatusOK)

	// The webhook comes back.
	if err := env.StartServer(); err != nil {
		t.Fatal(err)
	}
	running = true
	back := time.Now()
	want := map[string]string{}
	list, err = claims("v1alpha3", ns).List(ctxFor(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list.Items {
		want[u.GetName()] = u.GetResourceVersion()
	}
	// Nothing refused was half done: no object created, none changed but
	// the one whose deletion started.
	wantBefore := maps.Clone(before)
	delete(wantBefore, "gone")
	delete(want, "finalizing")
	delete(wantBefore, "finalizing")
	if fmt.Sprint(want) != fmt.Sprint(wantBefore) {
		t.Errorf("after the outage the claims are at %v, want %v (the refused writes changed something)", want, wantBefore)
	}
	want["finalizing"] = get(t, claims("v1alpha3", ns), "finalizing").GetResourceVersion()

	const recoveryBound = time.Minute
	var wg sync.WaitGroup
	recovered := func(what string, ok func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last error
			if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, recoveryBound, true, func(context.Context) (bool, error) {
				last = ok()
				return last == nil, nil
			}); err != nil {
				t.Errorf("%s did not recover within %s of the webhook's return: %v", what, recoveryBound, last)
				return
			}
			t.Logf("%s recovered %s after the webhook's return", what, time.Since(back).Round(10*time.Millisecond))
		}()
	}
	for _, v := range api.ServedVersions {
		for _, q := range []string{"", "/kept-v1alpha3", "?limit=500"} {
			recovered("GET "+listPath(v, q), func() error {
				if a := rawGet(t, listPath(v, q)); a.code != http.StatusOK {
					return fmt.Errorf("%s", a)
				}
				return nil
			})
		}
	}
	for _, w := range infs {
		recovered(w.String(), func() error {
			got := map[string]string{}
			for _, o := range w.informer.GetStore().List() {
				u := o.(*unstructured.Unstructured)
				got[u.GetName()] = u.GetResourceVersion()
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("cache %v, want %v", got, want)
			}
			return nil
		})
	}
	wg.Wait()
	for _, w := range infs {
		_, lists, watches := w.snapshot()
		t.Logf("%s: %d lists, %d watches", w, lists, watches)
	}

	// Watches deliver again: a write through v1alpha1 reaches every
	// informer.
	patched, err := claims("v1alpha1", ns).Patch(ctxFor(t), "kept-v1alpha1", types.MergePatchType, []byte(`{"metadata":{"labels":{"outage":"over"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patch through v1alpha1 after the outage: %s", describe(err))
	}
	waitForEvent(t, infs, "MODIFIED", "kept-v1alpha1", patched.GetResourceVersion())
}
