package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"crypto/tls"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/test/envtest/harness"

	"github.com/claimbridge/claimbridge/api"
)

type mode string

const (
	modeStorage     mode = "storage"
	modeNull        mode = "null"
	modeClaimbridge mode = "claimbridge"
)

var modes = []mode{modeStorage, modeNull, modeClaimbridge}

// versionsOf are the versions a mode's operations use.
func versionsOf(m mode) []string {
	if m == modeStorage {
		return []string{api.StorageVersion}
	}
	return []string{api.V1alpha1, api.V1alpha2}
}

const namespace = "default"

func (b *bench) claims(version string) dynamic.ResourceInterface {
	return b.env.Resource(version, "resourceclaims").Namespace(namespace)
}

// example reads examples/claim-<version>.yaml as a new object of this group:
// no uid, resourceVersion, timestamps or finalizers.
func example(version string) (*unstructured.Unstructured, error) {
	root, err := harness.RepoRoot()
	if err != nil {
		return nil, err
	}
	file := filepath.Join(root, "examples", "claim-"+version+".yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	docs, err := manifest.Parse(file, data)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: docs[0].Object}
	u.SetAPIVersion(api.Group + "/" + version)
	u.SetNamespace(namespace)
	u.SetUID("")
	u.SetResourceVersion("")
	u.SetCreationTimestamp(metav1.Time{})
	u.SetFinalizers(nil)
	return u, nil
}

func claimName(i int) string { return fmt.Sprintf("claim-%05d", i) }

// load creates the N v1alpha3 claims and their allocated status, 8 at a time.
func (b *bench) load(ctx context.Context) error {
	tmpl, err := example("v1alpha3")
	if err != nil {
		return err
	}
	status := tmpl.Object["status"]
	delete(tmpl.Object, "status")
	return parallel(b.cfg.claims, 8, func(i int) error {
		obj := tmpl.DeepCopy()
		obj.SetName(claimName(i))
		created, err := b.claims("v1alpha3").Create(ctx, obj, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		if err != nil {
			return err
		}
		created.Object["status"] = runtimeCopy(status)
		_, err = b.claims("v1alpha3").UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
}

func runtimeCopy(v interface{}) interface{} {
	u := unstructured.Unstructured{Object: map[string]interface{}{"v": v}}
	return u.DeepCopy().Object["v"]
}

func parallel(n, workers int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// webhookCounts are the reviews and objects a webhook has handled so far.
func (b *bench) webhookCounts(m mode) (reviews, objects float64, err error) {
	switch m {
	case modeClaimbridge:
		text, err := httpGet(b.cbMetrics, nil)
		if err != nil {
			return 0, 0, err
		}
		return promSum(text, "claimbridge_webhook_requests_total", `endpoint="/convert"`),
			promSum(text, "claimbridge_conversion_objects_total"), nil
	case modeNull:
		reviews, objects, _, err = b.nullCounts()
		return reviews, objects, err
	}
	return 0, 0, nil
}

// nullCounts are the null webhook's conversion reviews and objects and its
// admission reviews so far.
func (b *bench) nullCounts() (reviews, objects, admissions float64, err error) {
	text, err := httpGet(b.nullURL+"/stats", &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // local stats
	if err != nil {
		return 0, 0, 0, err
	}
	var n [3]float64
	f := strings.Fields(text)
	if len(f) != len(n) {
		return 0, 0, 0, fmt.Errorf("null webhook stats %q", text)
	}
	for i := range f {
		if n[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return 0, 0, 0, fmt.Errorf("null webhook stats %q", text)
		}
	}
	return n[0], n[1], n[2], nil
}

func httpGet(url string, cfg *tls.Config) (string, error) {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(data), err
}

// waitActive waits after a CRD update until the mode's converter answers
// (a GET through v1alpha1 shows it) and every version's watch cache serves a
// LIST with all claims; it returns the time since the update.
func (b *bench) waitActive(ctx context.Context, m mode, since time.Time) (time.Duration, error) {
	deadline := since.Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if b.active(ctx, m) && b.cachesReady(ctx) {
			return time.Since(since), nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0, fmt.Errorf("mode %s: caches not ready within 5 minutes of the CRD update", m)
}

// active reports whether reads now go through m's converter: only
// claimbridge writes restore annotations, only the null webhook counts
// reviews, and strategy None does neither.
func (b *bench) active(ctx context.Context, m mode) bool {
	before, _, err := b.webhookCounts(modeNull)
	if err != nil {
		return false
	}
	obj, err := b.claims("v1alpha1").Get(ctx, claimName(0), metav1.GetOptions{})
	if err != nil {
		return false
	}
	after, _, err := b.webhookCounts(modeNull)
	if err != nil {
		return false
	}
	_, restored := obj.GetAnnotations()[api.RestoreAnnotation("v1alpha3")]
	nullCalled := after > before
	switch m {
	case modeClaimbridge:
		return restored && !nullCalled
	case modeNull:
		return !restored && nullCalled
	}
	return !restored && !nullCalled
}

func (b *bench) cachesReady(ctx context.Context) bool {
	for _, v := range api.ServedVersions {
		list, err := b.claims(v).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil || len(list.Items) < b.cfg.claims {
			return false
		}
	}
	return true
}

// timeList runs list 3 times and returns the median duration.
func timeList(ctx context.Context, want int, list func(context.Context) (int, error)) (time.Duration, error) {
	var ds []time.Duration
	for i := 0; i < 3; i++ {
		start := time.Now()
		n, err := list(ctx)
		if err != nil {
			return 0, err
		}
		if n < want {
			return 0, fmt.Errorf("listed %d objects, want at least %d", n, want)
		}
		ds = append(ds, time.Since(start))
	}
	return percentile(ds, 50), nil
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return s[i]
}

// currentRV is the resourceVersion of a LIST now.
func (b *bench) currentRV(ctx context.Context) (string, error) {
	l, err := b.claims("v1alpha3").List(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 1})
	if err != nil {
		return "", err
	}
	return l.GetResourceVersion(), nil
}

// versionOps measures the operations of one version; results go into rec
// keyed "<operation>" for the version. rv, taken before the last CRD update,
// is older than every watch cache, so LISTs at exactly rv are served by etcd
// (kube-apiserver 1.34+ serves an exact resourceVersion the watch cache still
// holds from a cache snapshot, without calling the webhook); "" takes the
// current resourceVersion, which the cache may serve.
func (b *bench) versionOps(ctx context.Context, version, rv string, rec func(op string, v float64)) error {
	c := b.claims(version)
	unpaged := func(opts metav1.ListOptions) func(context.Context) (int, error) {
		return func(ctx context.Context) (int, error) {
			l, err := c.List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}
	}
	d, err := timeList(ctx, b.cfg.claims, unpaged(metav1.ListOptions{ResourceVersion: "0"}))
	if err != nil {
		return fmt.Errorf("LIST %s from the watch cache: %w", version, err)
	}
	rec("LIST watch cache, unpaged (ms)", ms(d))
	d, err = timeList(ctx, b.cfg.claims, func(ctx context.Context) (int, error) {
		n, cont := 0, ""
		for {
			l, err := c.List(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 500, Continue: cont})
			if err != nil {
				return 0, err
			}
			n += len(l.Items)
			if cont = l.GetContinue(); cont == "" {
				return n, nil
			}
		}
	})
	if err != nil {
		return fmt.Errorf("paged LIST %s from the watch cache: %w", version, err)
	}
	rec("LIST watch cache (rv=0), limit=500 (ms)", ms(d))
	if rv == "" {
		if rv, err = b.currentRV(ctx); err != nil {
			return err
		}
	}
	reviews0, _, err := b.webhookCounts(b.mode)
	if err != nil {
		return err
	}
	d, err = timeList(ctx, b.cfg.claims, unpaged(metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact}))
	if err != nil {
		return fmt.Errorf("LIST %s at an exact resourceVersion: %w", version, err)
	}
	rec("LIST etcd (resourceVersionMatch=Exact), unpaged (ms)", ms(d))
	if b.mode != modeStorage {
		reviews1, _, err := b.webhookCounts(b.mode)
		if err != nil {
			return err
		}
		rec("reviews per etcd LIST (Exact, unpaged)", (reviews1-reviews0)/3)
	}
	d, err = timeList(ctx, b.cfg.claims, func(ctx context.Context) (int, error) {
		n, cont := 0, ""
		for {
			opts := metav1.ListOptions{Limit: 500, Continue: cont}
			if cont == "" {
				opts.ResourceVersion, opts.ResourceVersionMatch = rv, metav1.ResourceVersionMatchExact
			}
			l, err := c.List(ctx, opts)
			if err != nil {
				return 0, err
			}
			n += len(l.Items)
			if cont = l.GetContinue(); cont == "" {
				return n, nil
			}
		}
	})
	if err != nil {
		return fmt.Errorf("paged LIST %s from etcd: %w", version, err)
	}
	rec("LIST etcd (Exact + continue), limit=500 (ms)", ms(d))

	var gets []time.Duration
	for i := 0; i < b.cfg.gets; i++ {
		name := claimName((i * 7919) % b.cfg.claims)
		start := time.Now()
		if _, err := c.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("GET %s %s: %w", version, name, err)
		}
		gets = append(gets, time.Since(start))
	}
	rec("GET p50 (ms)", ms(percentile(gets, 50)))
	rec("GET p99 (ms)", ms(percentile(gets, 99)))
	return nil
}

// creates creates CREATES claims through version one after another, returns
// the median create latency and deletes them again (untimed).
func (b *bench) creates(ctx context.Context, version string, round int) (time.Duration, error) {
	tmpl, err := example(version)
	if err != nil {
		return 0, err
	}
	delete(tmpl.Object, "status")
	c := b.claims(version)
	var ds []time.Duration
	var names []string
	for i := 0; i < b.cfg.creates; i++ {
		obj := tmpl.DeepCopy()
		obj.SetName(fmt.Sprintf("new-%s-%d-%04d", version, round, i))
		start := time.Now()
		if _, err := c.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return 0, fmt.Errorf("create through %s: %w", version, err)
		}
		ds = append(ds, time.Since(start))
		names = append(names, obj.GetName())
	}
	err = parallel(len(names), 4, func(i int) error {
		return c.Delete(ctx, names[i], metav1.DeleteOptions{})
	})
	return percentile(ds, 50), err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
