//go:build envtest

package envtest_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// watchWait bounds waiting for one event, bookmark or re-watch.
const watchWait = 15 * time.Second

// watchMode is how an informer fills its cache: as client-go 0.36 does by
// default (one watch with sendInitialEvents, the WatchListClient feature),
// or as the clients of the releases that served v1alpha1..v1alpha3 did
// (LIST, then WATCH from the list's resourceVersion).
type watchMode string

const (
	streamingMode watchMode = "watch-list"
	listWatchMode watchMode = "list+watch"
)

// noWatchList makes cache.ToListWatcherWithWatchListSemantics turn the
// WatchListClient feature off for one informer.
type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// seen is one notification of an informer's event handler.
type seen struct {
	typ watch.EventType
	obj *unstructured.Unstructured
	// again: an update whose old and new objects have the same
	// resourceVersion (a relist delivering what the informer had), or a
	// deletion the informer learned of by a relist.
	again bool
}

func (s seen) String() string {
	again := ""
	if s.again {
		again = " (again)"
	}
	return fmt.Sprintf("%s %s rv=%s%s", s.typ, s.obj.GetName(), s.obj.GetResourceVersion(), again)
}

// versionInformer is a client-go informer on one resource in one version and
// namespace, with the events its handler received and the number of LIST and
// WATCH calls it made.
type versionInformer struct {
	version  string
	mode     watchMode
	informer cache.SharedIndexInformer

	mu             sync.Mutex
	events         []seen
	lists, watches int
}

func (w *versionInformer) String() string { return w.version + " " + string(w.mode) + " informer" }

func (w *versionInformer) record(typ watch.EventType, obj interface{}, again bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, again = d.Obj, true
	}
	u := obj.(*unstructured.Unstructured).DeepCopy()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, seen{typ: typ, obj: u, again: again})
}

// snapshot returns the events so far and the LIST and WATCH calls.
func (w *versionInformer) snapshot() (events []seen, lists, watches int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]seen(nil), w.events...), w.lists, w.watches
}

// startInformers starts an informer per served version and mode on resource
// in ns, stopped when t ends, and waits until each has synced.
func startInformers(t *testing.T, resource, ns string) []*versionInformer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })
	var out []*versionInformer
	for _, mode := range []watchMode{streamingMode, listWatchMode} {
		for _, version := range api.ServedVersions {
			w := &versionInformer{version: version, mode: mode}
			ri := res(version, resource, ns)
			lw := &cache.ListWatch{
				ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
					w.mu.Lock()
					w.lists++
					w.mu.Unlock()
					return ri.List(ctx, o)
				},
				WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
					w.mu.Lock()
					w.watches++
					w.mu.Unlock()
					return ri.Watch(ctx, o)
				},
			}
			var lwi cache.ListerWatcher = lw
			if mode == listWatchMode {
				lwi = cache.ToListWatcherWithWatchListSemantics(lw, noWatchList{})
			}
			w.informer = cache.NewSharedIndexInformer(lwi, &unstructured.Unstructured{}, 0, cache.Indexers{})
			if _, err := w.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc: func(obj interface{}) { w.record(watch.Added, obj, false) },
				UpdateFunc: func(old, obj interface{}) {
					w.record(watch.Modified, obj, old.(*unstructured.Unstructured).GetResourceVersion() == obj.(*unstructured.Unstructured).GetResourceVersion())
				},
				DeleteFunc: func(obj interface{}) { w.record(watch.Deleted, obj, false) },
			}); err != nil {
				t.Fatal(err)
			}
			running.Add(1)
			go func() {
				defer running.Done()
				w.informer.RunWithContext(ctx)
			}()
			out = append(out, w)
		}
	}
	for _, w := range out {
		if err := wait.PollUntilContextTimeout(ctxFor(t), 10*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
			return w.informer.HasSynced(), nil
		}); err != nil {
			t.Fatalf("%s did not sync within %s: %v", w, watchWait, err)
		}
	}
	return out
}

// waitForEvent waits until every informer received an event of type typ for
// name at resourceVersion rv.
func waitForEvent(t *testing.T, infs []*versionInformer, typ watch.EventType, name, rv string) {
	t.Helper()
	for _, w := range infs {
		has := func() bool {
			events, _, _ := w.snapshot()
			for _, e := range events {
				if e.typ == typ && e.obj.GetName() == name && e.obj.GetResourceVersion() == rv {
					return true
				}
			}
			return false
		}
		if err := wait.PollUntilContextTimeout(ctxFor(t), 10*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
			return has(), nil
		}); err != nil {
			events, lists, watches := w.snapshot()
			t.Fatalf("%s: no %s of %s at resourceVersion %s within %s (%d lists, %d watches); events: %v", w, typ, name, rv, watchWait, lists, watches, events)
		}
	}
}

// step is one write of a watched object and the object as a GET in each
// version returned it right after (none after the deletion).
type step struct {
	what  string
	typ   watch.EventType
	rv    string
	views map[string]*unstructured.Unstructured
}

// lifecycle runs writes of one object (resource, name in ns) while
// informers of every version watch, and records each write as a step.
type lifecycle struct {
	t        *testing.T
	resource string
	ns, name string
	infs     []*versionInformer
	steps    []step
}

// wrote records a write of typ that left the object at resourceVersion rv
// (empty: whatever a GET now returns), reads it through every version and
// waits until every informer has the event.
func (l *lifecycle) wrote(what string, typ watch.EventType, rv string) {
	t := l.t
	t.Helper()
	views := map[string]*unstructured.Unstructured{}
	if typ == watch.Deleted {
		for _, v := range api.ServedVersions {
			if _, err := res(v, l.resource, l.ns).Get(ctxFor(t), l.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("%s: get through %s after the deletion: %v, want NotFound", what, v, err)
			}
		}
	} else {
		for _, v := range api.ServedVersions {
			got := get(t, res(v, l.resource, l.ns), l.name)
			if rv == "" {
				rv = got.GetResourceVersion()
			}
			if got.GetResourceVersion() != rv {
				t.Fatalf("%s: get through %s right after returned resourceVersion %s, want %s", what, v, got.GetResourceVersion(), rv)
			}
			views[v] = got
		}
	}
	if typ == watch.Deleted {
		// The deletion's resourceVersion is etcd's, after the last
		// update's: the DELETED events say it.
		rv = l.deletedAt(what)
	}
	l.steps = append(l.steps, step{what: what, typ: typ, rv: rv, views: views})
	waitForEvent(t, l.infs, typ, l.name, rv)
}

// deletedAt waits until every informer received a DELETED event of the
// object and returns its resourceVersion, the same in all.
func (l *lifecycle) deletedAt(what string) string {
	t := l.t
	t.Helper()
	rv := ""
	for _, w := range l.infs {
		var got seen
		if err := wait.PollUntilContextTimeout(ctxFor(t), 10*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
			events, _, _ := w.snapshot()
			for _, e := range events {
				if e.typ == watch.Deleted && e.obj.GetName() == l.name {
					got = e
					return true, nil
				}
			}
			return false, nil
		}); err != nil {
			events, _, _ := w.snapshot()
			t.Fatalf("%s: %s: no DELETED event within %s; events: %v", w, what, watchWait, events)
		}
		if rv == "" {
			rv = got.obj.GetResourceVersion()
		}
		if got.obj.GetResourceVersion() != rv {
			t.Errorf("%s: DELETED at resourceVersion %s, others at %s", w, got.obj.GetResourceVersion(), rv)
		}
	}
	return rv
}

// check compares what every informer received with the steps: the same
// events in the same order, nothing else, each object as the GET in the
// informer's version returned it; and the views of each step with each
// other and with a LIST at exactly that resourceVersion.
func (l *lifecycle) check(wantLists map[watchMode]int) {
	t := l.t
	t.Helper()
	for _, w := range l.infs {
		events, lists, watches := w.snapshot()
		if lists != wantLists[w.mode] || watches != 1 {
			t.Errorf("%s made %d lists and %d watches, want %d and 1", w, lists, watches, wantLists[w.mode])
		}
		var got, want []string
		for _, e := range events {
			got = append(got, e.String())
		}
		for _, s := range l.steps {
			want = append(want, seen{typ: s.typ, obj: objectAt(l.name, s.rv)}.String())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s received other events than the writes made (-want +got):\n%s", w, diff)
			continue
		}
		for i, s := range l.steps {
			e := events[i]
			expectVersion(t, e.obj, w.version, e.obj.GetKind())
			if s.typ == watch.Deleted {
				// The last state stored (kube-apiserver deletes an object
				// whose last finalizer an update removes without storing
				// that update) at the deletion's resourceVersion.
				prev := l.steps[i-1].views[w.version].DeepCopy()
				prev.SetResourceVersion(s.rv)
				if diff := cmp.Diff(normalize(t, prev.Object), normalize(t, e.obj.Object)); diff != "" {
					t.Errorf("%s: the DELETED object is not the last state (-want +got):\n%s", w, diff)
				}
				continue
			}
			if diff := cmp.Diff(normalize(t, s.views[w.version].Object), normalize(t, e.obj.Object)); diff != "" {
				t.Errorf("%s: %s event after %q differs from the get at resourceVersion %s (-get +event):\n%s", w, s.typ, s.what, s.rv, diff)
			}
		}
	}
	for _, s := range l.steps {
		if s.typ == watch.Deleted {
			continue
		}
		for _, v := range api.ServedVersions {
			// A LIST at exactly this resourceVersion shows the same.
			list, err := res(v, l.resource, l.ns).List(ctxFor(t), metav1.ListOptions{
				FieldSelector: "metadata.name=" + l.name, ResourceVersion: s.rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact,
			})
			if err != nil {
				t.Fatalf("list through %s at resourceVersion %s: %s", v, s.rv, describe(err))
			}
			if len(list.Items) != 1 {
				t.Errorf("list through %s at resourceVersion %s has %d items, want 1", v, s.rv, len(list.Items))
			} else if diff := cmp.Diff(normalize(t, s.views[v].Object), normalize(t, list.Items[0].Object)); diff != "" {
				t.Errorf("after %q: list through %s at resourceVersion %s differs from the get (-get +list):\n%s", s.what, v, s.rv, diff)
			}
			// Every view converts to every other one exactly (the
			// restore annotations agree), and none carries its own
			// version's.
			for k := range s.views[v].GetAnnotations() {
				if k == api.RestoreAnnotation(v) {
					t.Errorf("after %q: the %s view carries %s", s.what, v, k)
				}
			}
			for _, to := range api.ServedVersions {
				converted, err := conversion.Convert(s.views[v].Object, to)
				if err != nil {
					t.Errorf("after %q: converting the %s view to %s: %v", s.what, v, to, err)
					continue
				}
				if diff := cmp.Diff(normalize(t, s.views[to].Object), normalize(t, converted)); diff != "" {
					t.Errorf("after %q: the %s view converted to %s differs from the %s view (-%s +converted):\n%s", s.what, v, to, to, to, diff)
				}
			}
		}
	}
}

// replay is, per version, what a watch from the first step's
// resourceVersion should replay: the events after it, as the streaming
// informer of that version received them.
func (l *lifecycle) replay() map[string][]seen {
	out := map[string][]seen{}
	for _, w := range l.infs {
		if w.mode == streamingMode {
			events, _, _ := w.snapshot()
			out[w.version] = events[1:]
		}
	}
	return out
}

// restoreKeys lists, per step, each version's restore annotations, as
// "v1alpha1:[restore-v1alpha2] v1alpha2:[] v1alpha3:[]".
func (l *lifecycle) restoreKeys() []string {
	var out []string
	for _, s := range l.steps {
		if s.typ == watch.Deleted {
			continue
		}
		var parts []string
		for _, v := range api.ServedVersions {
			var keys []string
			for k := range s.views[v].GetAnnotations() {
				if strings.HasPrefix(k, restoreAnnotationPrefix) {
					keys = append(keys, strings.TrimPrefix(k, "claimbridge.dev/"))
				}
			}
			sort.Strings(keys)
			parts = append(parts, fmt.Sprintf("%s:%v", v, keys))
		}
		out = append(out, s.what+": "+strings.Join(parts, " "))
	}
	return out
}

// objectAt is a stand-in object for printing an expected event.
func objectAt(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

// resumeWatches watches resource in ns through every version from
// resourceVersion from, expects in each the events after from, in order,
// with the objects the informer of that version received (want), then
// creates another object with create and expects its ADDED event next:
// nothing lost, nothing repeated, nothing else in between.
func resumeWatches(t *testing.T, resource, ns, from string, want map[string][]seen, create func() *unstructured.Unstructured) {
	t.Helper()
	ctx := ctxFor(t)
	watches := map[string]watch.Interface{}
	for _, v := range api.ServedVersions {
		w, err := res(v, resource, ns).Watch(ctx, metav1.ListOptions{ResourceVersion: from, AllowWatchBookmarks: true})
		if err != nil {
			t.Fatalf("watch through %s from resourceVersion %s: %s", v, from, describe(err))
		}
		defer w.Stop()
		watches[v] = w
	}
	for _, v := range api.ServedVersions {
		for i, e := range want[v] {
			ev := nextEvent(t, ctx, watches[v])
			u := ev.Object.(*unstructured.Unstructured)
			if ev.Type != e.typ || u.GetResourceVersion() != e.obj.GetResourceVersion() {
				t.Fatalf("watch through %s from %s: event %d is %s rv=%s, want %s", v, from, i, ev.Type, u.GetResourceVersion(), e)
			}
			if diff := cmp.Diff(normalize(t, e.obj.Object), normalize(t, u.Object)); diff != "" {
				t.Errorf("watch through %s from %s: event %d differs from the informer's (-informer +watch):\n%s", v, from, i, diff)
			}
		}
	}
	added := create()
	for _, v := range api.ServedVersions {
		ev := nextEvent(t, ctx, watches[v])
		u := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Added || u.GetName() != added.GetName() || u.GetResourceVersion() != added.GetResourceVersion() {
			t.Errorf("watch through %s from %s: after the replay, %s %s rv=%s, want ADDED %s rv=%s", v, from, ev.Type, u.GetName(), u.GetResourceVersion(), added.GetName(), added.GetResourceVersion())
			continue
		}
		expectSameObject(t, get(t, res(v, resource, ns), added.GetName()), u)
	}
}

// expectInitialEvents watches resource in ns through every version as
// client-go's streaming list does (sendInitialEvents with bookmarks) and
// expects an ADDED event of each object, as a GET in that version returns
// it, then the bookmark that ends the initial events, in that version.
func expectInitialEvents(t *testing.T, resource, ns, kind string, names ...string) {
	t.Helper()
	ctx := ctxFor(t)
	send := true
	for _, v := range api.ServedVersions {
		w, err := res(v, resource, ns).Watch(ctx, metav1.ListOptions{
			SendInitialEvents: &send, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
		})
		if err != nil {
			t.Fatalf("watch-list through %s: %s", v, describe(err))
		}
		for _, name := range names {
			ev := nextEvent(t, ctx, w)
			u := ev.Object.(*unstructured.Unstructured)
			if ev.Type != watch.Added || u.GetName() != name {
				t.Fatalf("watch-list through %s: %s %s, want ADDED %s", v, ev.Type, u.GetName(), name)
			}
			expectSameObject(t, get(t, res(v, resource, ns), name), u)
		}
		ev := nextEvent(t, ctx, w)
		u := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Bookmark || u.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
			t.Errorf("watch-list through %s: %s with annotations %v, want the BOOKMARK that ends the initial events", v, ev.Type, u.GetAnnotations())
		}
		expectVersion(t, u, v, kind)
		w.Stop()
	}
}

// TestWatchAcrossVersions: clients that watch claims and templates in their
// own version (informers as a DRA driver, kubelet plugin or scheduler of
// each release runs them, with client-go 0.36's streaming list and with
// LIST+WATCH) while others write in other versions. Each informer receives
// every event, in order and once, with the object a GET in its version
// returns at the same resourceVersion; a watch resumed from an old
// resourceVersion replays the same; a change of the CRD's spec, which
// rebuilds kube-apiserver's watch cache and closes every watch, loses and
// changes nothing.
func TestWatchAcrossVersions(t *testing.T) {
	t.Run("claim lifecycle", func(t *testing.T) {
		ns := newNamespace(t, "watch-claims")
		l := &lifecycle{t: t, resource: claimsResource, ns: ns, name: "watched", infs: startInformers(t, claimsResource, ns)}
		v1, v2, v3 := claims("v1alpha1", ns), claims("v1alpha2", ns), claims("v1alpha3", ns)

		created := createClaim(t, fromYAML(t, "v1alpha1", ns, `
kind: ResourceClaim
metadata:
  name: watched
  finalizers: [example.com/keep]
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
  parametersRef: {apiGroup: gpu.example.com, kind: GpuParams, name: small}
`))
		l.wrote("create through v1alpha1", watch.Added, created.GetResourceVersion())

		u, err := mutate(t, v3, l.name, true, func(u *unstructured.Unstructured) {
			set(t, u, map[string]interface{}{
				"devices": map[string]interface{}{"results": []interface{}{
					map[string]interface{}{"request": "request", "driver": "gpu.example.com", "pool": "node-a", "device": "gpu-0"},
				}},
				"nodeSelector": nodeSelector("node-a"),
			}, "status", "allocation")
		})
		if err != nil {
			t.Fatalf("allocating through v1alpha3: %s", describe(err))
		}
		l.wrote("allocate through v1alpha3", watch.Modified, u.GetResourceVersion())

		if u, err = mutate(t, v2, l.name, true, func(u *unstructured.Unstructured) {
			set(t, u, consumers(1, "pod"), "status", "reservedFor")
		}); err != nil {
			t.Fatalf("reserving through v1alpha2: %s", describe(err))
		}
		l.wrote("reserve through v1alpha2", watch.Modified, u.GetResourceVersion())

		if u, err = mutate(t, v1, l.name, true, func(u *unstructured.Unstructured) {
			unstructured.RemoveNestedField(u.Object, "status", "reservedFor")
		}); err != nil {
			t.Fatalf("unreserving through v1alpha1: %s", describe(err))
		}
		l.wrote("unreserve through v1alpha1", watch.Modified, u.GetResourceVersion())

		if u, err = mutate(t, v1, l.name, true, func(u *unstructured.Unstructured) {
			unstructured.RemoveNestedField(u.Object, "status", "allocation")
		}); err != nil {
			t.Fatalf("deallocating through v1alpha1: %s", describe(err))
		}
		l.wrote("deallocate through v1alpha1", watch.Modified, u.GetResourceVersion())

		if err := v3.Delete(ctxFor(t), l.name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting through v1alpha3: %s", describe(err))
		}
		l.wrote("delete through v1alpha3", watch.Modified, "")

		if _, err = mutate(t, v2, l.name, false, func(u *unstructured.Unstructured) { u.SetFinalizers(nil) }); err != nil {
			t.Fatalf("removing the finalizer through v1alpha2: %s", describe(err))
		}
		l.wrote("finalizer removed through v1alpha2", watch.Deleted, "")

		l.check(map[watchMode]int{streamingMode: 0, listWatchMode: 1})
		if diff := cmp.Diff([]string{
			"create through v1alpha1: v1alpha1:[] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"allocate through v1alpha3: v1alpha1:[restore-v1alpha2] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"reserve through v1alpha2: v1alpha1:[restore-v1alpha2] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"unreserve through v1alpha1: v1alpha1:[restore-v1alpha2] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"deallocate through v1alpha1: v1alpha1:[] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"delete through v1alpha3: v1alpha1:[] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
		}, l.restoreKeys()); diff != "" {
			t.Errorf("restore annotations of the views (-want +got):\n%s", diff)
		}

		t.Run("watches resumed from the creation's resourceVersion", func(t *testing.T) {
			resumeWatches(t, claimsResource, ns, l.steps[0].rv, l.replay(), func() *unstructured.Unstructured {
				u := fromYAML(t, "v1alpha2", ns, structuredClaimV1alpha2)
				delete(u.Object, "status")
				return createClaim(t, u)
			})
		})
		t.Run("watch-list with bookmarks", func(t *testing.T) {
			expectInitialEvents(t, claimsResource, ns, "ResourceClaim", "accel-structured")
		})
		if _, err := claims("v1alpha3", ns).Patch(ctxFor(t), "accel-structured", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Errorf("removing the finalizer: %s", describe(err))
		}
	})

	t.Run("crd changes", func(t *testing.T) {
		ns := newNamespace(t, "watch-crd")
		final := map[string]string{} // each claim's resourceVersion once created (and its status written)
		for _, c := range []struct{ version, doc string }{
			{"v1alpha1", classicClaimV1alpha1}, {"v1alpha2", structuredClaimV1alpha2}, {"v1alpha3", devicesClaimV1alpha3},
		} {
			u := createClaim(t, fromYAML(t, c.version, ns, c.doc))
			final[u.GetName()] = u.GetResourceVersion()
		}
		t.Cleanup(func() {
			// accel-structured has a finalizer.
			if _, err := claims("v1alpha3", ns).Patch(context.Background(), "accel-structured", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("removing the finalizer: %s", describe(err))
			}
		})
		infs := startInformers(t, claimsResource, ns)
		before := map[*versionInformer][]seen{}
		for _, w := range infs {
			// A list can be served just before a claim's status write: the
			// informer then gets that write as a MODIFIED. The baseline is
			// what it has once it holds every claim as created.
			atFinal := func() ([]seen, bool) {
				events, _, _ := w.snapshot()
				last := map[string]string{}
				for _, e := range events {
					last[e.obj.GetName()] = e.obj.GetResourceVersion()
				}
				return events, maps.Equal(last, final)
			}
			if err := wait.PollUntilContextTimeout(ctxFor(t), 10*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
				_, ok := atFinal()
				return ok, nil
			}); err != nil {
				events, _ := atFinal()
				t.Fatalf("%s does not hold the 3 claims as created (%v) within %s: %v", w, final, watchWait, events)
			}
			events, _ := atFinal()
			added := 0
			for _, e := range events {
				switch {
				case e.typ == watch.Added:
					added++
				case e.typ != watch.Modified || e.again:
					t.Fatalf("%s synced with %v, want the 3 claims added and at most their status writes", w, events)
				}
			}
			if added != 3 {
				t.Fatalf("%s synced with %d claims added, want 3: %v", w, added, events)
			}
			before[w] = events
		}
		label := func(what, value string) string {
			t.Helper()
			u, err := claims("v1alpha2", ns).Patch(ctxFor(t), "numa-aligned", types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"labels":{"step":%q}}}`, value)), metav1.PatchOptions{})
			if err != nil {
				t.Fatalf("labelling through v1alpha2 %s: %s", what, describe(err))
			}
			waitForEvent(t, infs, watch.Modified, "numa-aligned", u.GetResourceVersion())
			return u.GetResourceVersion()
		}

		crdName := claimsResource + "." + api.Group
		changeCRD := func(f func(crd *apiextensionsv1.CustomResourceDefinition)) {
			t.Helper()
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := env.Client.Get(ctxFor(t), client.ObjectKey{Name: crdName}, crd); err != nil {
				t.Fatal(err)
			}
			f(crd)
			if err := env.Client.Update(ctxFor(t), crd); err != nil {
				t.Fatalf("updating the CRD: %v", err)
			}
		}
		const column = "watch-test"
		t.Cleanup(func() {
			changeCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
				delete(crd.Labels, "claimbridge.dev/watch-test")
				for i := range crd.Spec.Versions {
					cols := crd.Spec.Versions[i].AdditionalPrinterColumns
					for j := range cols {
						if cols[j].Name == column {
							crd.Spec.Versions[i].AdditionalPrinterColumns = append(cols[:j:j], cols[j+1:]...)
							break
						}
					}
				}
			})
			if err := env.WaitForCRDs(ctxFor(t), crdName); err != nil {
				t.Errorf("waiting for the CRD after restoring it: %v", err)
			}
		})

		// A label on the CRD changes no storage: no watch is closed.
		changeCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
			if crd.Labels == nil {
				crd.Labels = map[string]string{}
			}
			crd.Labels["claimbridge.dev/watch-test"] = "label"
		})
		labelled := label("after the CRD's label", "crd-labelled")

		// A printer column more is a spec change: kube-apiserver builds new
		// storage with a new watch cache and, a second later, closes every
		// watch of the old one.
		watchesBefore := map[*versionInformer]int{}
		for _, w := range infs {
			_, _, watchesBefore[w] = w.snapshot()
		}
		changeCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
			for i := range crd.Spec.Versions {
				crd.Spec.Versions[i].AdditionalPrinterColumns = append(crd.Spec.Versions[i].AdditionalPrinterColumns,
					apiextensionsv1.CustomResourceColumnDefinition{Name: column, Type: "string", JSONPath: ".metadata.name"})
			}
		})
		for _, w := range infs {
			if err := wait.PollUntilContextTimeout(ctxFor(t), 10*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
				_, _, watches := w.snapshot()
				return watches > watchesBefore[w], nil
			}); err != nil {
				t.Fatalf("%s: its watch was not closed and opened again within %s of the CRD's spec change", w, watchWait)
			}
		}
		rebuilt := label("after the CRD's spec change", "crd-changed")

		for _, w := range infs {
			events, lists, watches := w.snapshot()
			if watches < 2 || (w.mode == streamingMode && lists != 0) {
				t.Errorf("%s made %d lists and %d watches: the CRD's spec change closed no watch, or it fell back to lists", w, lists, watches)
			}
			last := map[string]*unstructured.Unstructured{}
			for _, e := range before[w] {
				last[e.obj.GetName()] = e.obj
			}
			var fresh []string
			for _, e := range events[len(before[w]):] {
				name := e.obj.GetName()
				if !e.again {
					fresh = append(fresh, e.String())
					last[name] = e.obj
					continue
				}
				// A relist's re-delivery shows what the informer had.
				if e.typ != watch.Modified {
					t.Errorf("%s: %s after a relist", w, e)
					continue
				}
				if diff := cmp.Diff(normalize(t, last[name].Object), normalize(t, e.obj.Object)); diff != "" {
					t.Errorf("%s: %s after the CRD change shows another view at the same resourceVersion (-before +after):\n%s", w, e, diff)
				}
			}
			want := []string{
				seen{typ: watch.Modified, obj: objectAt("numa-aligned", labelled)}.String(),
				seen{typ: watch.Modified, obj: objectAt("numa-aligned", rebuilt)}.String(),
			}
			if diff := cmp.Diff(want, fresh); diff != "" {
				t.Errorf("%s: events other than the two label writes (-want +got):\n%s", w, diff)
			}
			// Every object as the informer has it is a GET's.
			for _, name := range []string{"gpu-classic", "accel-structured", "numa-aligned"} {
				cached, ok, err := w.informer.GetStore().GetByKey(ns + "/" + name)
				if err != nil || !ok {
					t.Errorf("%s has no %s: %v", w, name, err)
					continue
				}
				if diff := cmp.Diff(normalize(t, get(t, claims(w.version, ns), name).Object), normalize(t, cached.(*unstructured.Unstructured).Object)); diff != "" {
					t.Errorf("%s: %s differs from a get (-get +informer):\n%s", w, name, diff)
				}
			}
		}
	})

	t.Run("template lifecycle", func(t *testing.T) {
		ns := newNamespace(t, "watch-templates")
		l := &lifecycle{t: t, resource: templatesResource, ns: ns, name: "per-pod-gpu-v1", infs: startInformers(t, templatesResource, ns)}
		created := createObject(t, templatesResource, fromYAML(t, "v1alpha1", ns, templateV1alpha1))
		l.wrote("create through v1alpha1", watch.Added, created.GetResourceVersion())
		u, err := templates("v1alpha3", ns).Patch(ctxFor(t), l.name, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"},"finalizers":["example.com/keep"]}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("labelling through v1alpha3: %s", describe(err))
		}
		l.wrote("label and finalizer through v1alpha3", watch.Modified, u.GetResourceVersion())
		if err := templates("v1alpha2", ns).Delete(ctxFor(t), l.name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting through v1alpha2: %s", describe(err))
		}
		l.wrote("delete through v1alpha2", watch.Modified, "")
		if _, err = mutate(t, templates("v1alpha1", ns), l.name, false, func(u *unstructured.Unstructured) { u.SetFinalizers(nil) }); err != nil {
			t.Fatalf("removing the finalizer through v1alpha1: %s", describe(err))
		}
		l.wrote("finalizer removed through v1alpha1", watch.Deleted, "")
		l.check(map[watchMode]int{streamingMode: 0, listWatchMode: 1})
		if diff := cmp.Diff([]string{
			"create through v1alpha1: v1alpha1:[] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"label and finalizer through v1alpha3: v1alpha1:[] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
			"delete through v1alpha2: v1alpha1:[] v1alpha2:[] v1alpha3:[restore-v1alpha2]",
		}, l.restoreKeys()); diff != "" {
			t.Errorf("restore annotations of the views (-want +got):\n%s", diff)
		}
		t.Run("watches resumed from the creation's resourceVersion", func(t *testing.T) {
			resumeWatches(t, templatesResource, ns, l.steps[0].rv, l.replay(), func() *unstructured.Unstructured {
				return createObject(t, templatesResource, fromYAML(t, "v1alpha3", ns, templateV1alpha3))
			})
		})
		t.Run("watch-list with bookmarks", func(t *testing.T) {
			expectInitialEvents(t, templatesResource, ns, "ResourceClaimTemplate", fromYAML(t, "v1alpha3", ns, templateV1alpha3).GetName())
		})
	})

	// Validation refuses a write that leaves a version unable to show a
	// claim (docs/validation.md). One stored without the validating webhook
	// (17 handles of 16 KiB through v1alpha2: v1alpha1 would need more than
	// 256 KiB of restore annotation) cannot be read through v1alpha1, and
	// kube-apiserver 1.36 does not end a v1alpha1 watch that meets it or
	// send it an error: the watch delivers nothing more, not even events of
	// other claims, until its timeout.
	t.Run("a claim v1alpha1 cannot show stalls v1alpha1 watches", func(t *testing.T) {
		ctx := ctxFor(t)
		ns := newNamespace(t, "watch-unshowable")
		big := createClaim(t, fromYAML(t, "v1alpha2", ns, "kind: ResourceClaim\nmetadata: {name: big}\nspec: {resourceClassName: gpu.example.com}\n"))
		watches := map[string]watch.Interface{}
		for _, v := range []string{"v1alpha2", "v1alpha3"} {
			w, err := claims(v, ns).Watch(ctx, metav1.ListOptions{ResourceVersion: big.GetResourceVersion()})
			if err != nil {
				t.Fatalf("watch through %s: %s", v, describe(err))
			}
			defer w.Stop()
			watches[v] = w
		}
		reinstall := removeWebhookConfiguration(t, "validatingwebhookconfigurations")
		var handles []interface{}
		for range 17 {
			handles = append(handles, map[string]interface{}{"driverName": "gpu.example.com", "data": strings.Repeat("h", 16*1024)})
		}
		// The deletion takes effect asynchronously: the webhook refuses
		// the write until then.
		var stored *unstructured.Unstructured
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, watchWait, true, func(context.Context) (bool, error) {
			stored, last = mutate(t, claims("v1alpha2", ns), "big", true, func(u *unstructured.Unstructured) {
				set(t, u, map[string]interface{}{"driverName": "gpu.example.com", "allocation": map[string]interface{}{"resourceHandles": handles, "shareable": true}}, "status")
			})
			return last == nil, nil
		}); err != nil {
			t.Fatalf("the status write was refused after the validating webhook configuration was deleted: %v (last: %s)", err, describe(last))
		}
		reinstall()
		for _, op := range []struct {
			what string
			err  error
		}{
			{"get", func() error { _, err := claims("v1alpha1", ns).Get(ctx, "big", metav1.GetOptions{}); return err }()},
			{"list", func() error { _, err := claims("v1alpha1", ns).List(ctx, metav1.ListOptions{}); return err }()},
		} {
			if op.err == nil || !strings.Contains(op.err.Error(), "v1alpha1 cannot hold: annotation claimbridge.dev/restore-v1alpha2 needs") {
				t.Errorf("%s through v1alpha1: %v, want conversion's message", op.what, op.err)
			}
		}
		// A v1alpha1 watch from before the write (an informer's, opened
		// again from its last resourceVersion) replays it.
		timeout := int64(2)
		w, err := claims("v1alpha1", ns).Watch(ctx, metav1.ListOptions{ResourceVersion: big.GetResourceVersion(), TimeoutSeconds: &timeout})
		if err != nil {
			t.Fatalf("watch through v1alpha1: %s", describe(err))
		}
		defer w.Stop()
		watches["v1alpha1"] = w
		after := createClaim(t, fromYAML(t, "v1alpha2", ns, "kind: ResourceClaim\nmetadata: {name: after}\nspec: {resourceClassName: gpu.example.com}\n"))
		for _, v := range []string{"v1alpha2", "v1alpha3"} {
			for _, want := range []struct {
				typ      watch.EventType
				name, rv string
			}{{watch.Modified, "big", stored.GetResourceVersion()}, {watch.Added, "after", after.GetResourceVersion()}} {
				ev := nextEvent(t, ctx, watches[v])
				u := ev.Object.(*unstructured.Unstructured)
				if ev.Type != want.typ || u.GetName() != want.name || u.GetResourceVersion() != want.rv {
					t.Errorf("watch through %s: %s %s rv=%s, want %s %s rv=%s", v, ev.Type, u.GetName(), u.GetResourceVersion(), want.typ, want.name, want.rv)
				}
			}
		}
		var got []string
		for ev := range watches["v1alpha1"].ResultChan() {
			got = append(got, fmt.Sprintf("%s %v", ev.Type, ev.Object))
		}
		if len(got) != 0 {
			t.Errorf("watch through v1alpha1 received %v before its timeout, want nothing (kube-apiserver 1.36)", got)
		}
		if err := claims("v1alpha3", ns).Delete(ctx, "big", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting the claim: %s", describe(err))
		}
		// With the claim gone, v1alpha1 watches work again: a new one sees
		// a claim created after the deletion. Until the apiserver's
		// v1alpha1 watch cache has caught up, a watch from now is refused
		// ("Too large resource version") and one may deliver nothing, so
		// the tests after this one (a repetition with -count) wait here.
		recovered := createClaim(t, fromYAML(t, "v1alpha2", ns, "kind: ResourceClaim\nmetadata: {name: recovered}\nspec: {resourceClassName: gpu.example.com}\n"))
		begin := time.Now()
		var lastErr error
		err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			wctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			w, err := claims("v1alpha1", ns).Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=recovered"})
			if err != nil {
				lastErr = err
				return false, nil
			}
			defer w.Stop()
			select {
			case ev := <-w.ResultChan():
				u, ok := ev.Object.(*unstructured.Unstructured)
				if ev.Type == watch.Added && ok && u.GetResourceVersion() == recovered.GetResourceVersion() {
					return true, nil
				}
				lastErr = fmt.Errorf("first event %s %v", ev.Type, ev.Object)
			case <-wctx.Done():
				lastErr = errors.New("no event within 2s")
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("v1alpha1 watches did not recover within a minute of the claim's deletion: %v", lastErr)
		}
		t.Logf("v1alpha1 watches recovered %s after the claim's deletion", time.Since(begin).Round(100*time.Millisecond))
	})
}
