// Command rewrite is the benchmark of `claimbridge upgrade`'s rewrite in place
// (`make bench-rewrite`): on one kube-apiserver 1.36 and etcd
// (ENVTEST_ASSETS_1_36), N claims and N/5 slices are rewritten three times,
// each time into another storage version, so that every object is written
// to etcd:
//
//  1. a tenth of them, by `claimbridge upgrade --to 1.33 --yes` (the binary
//     built from this checkout) after a restart with
//     --min-compatibility-version=1.33 (v1 to v1beta2);
//  2. all, by kube-controller-manager 1.36's storage version migrator, one
//     StorageVersionMigration per resource (v1beta2 back to v1);
//  3. all, by `claimbridge upgrade` again (v1 to v1beta2).
//
// It prints a markdown table: the time of each, their ratio, the requests
// kube-apiserver served for resource.k8s.io, and the peak memory of the
// claimbridge process (at a tenth and at all of the objects). N defaults to
// 10000.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-rewrite:", err)
		os.Exit(1)
	}
}

// a row of the table.
type row struct {
	what     string
	objects  int
	took     time.Duration
	requests float64
	peakMiB  float64
}

func run() error {
	n := 10000
	if v := os.Getenv("N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("environment variable N=%q: %w", v, err)
		}
	}
	assets, err := harness.AssetsDirFrom("ENVTEST_ASSETS_1_36", "--print-assets-dir=1.36")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "claimbridge-bench-rewrite-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "claimbridge")
	root, err := harness.RepoRoot()
	if err != nil {
		return err
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/claimbridge")
	build.Dir, build.Stderr = root, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	b := &bench{dir: dir, bin: bin, env: &envtest.Environment{ControlPlaneStartTimeout: time.Minute}}
	b.env.ControlPlane.GetAPIServer().Path = filepath.Join(assets, "kube-apiserver")
	b.env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
	if _, err := b.env.Start(); err != nil {
		return err
	}
	defer func() { _ = b.env.Stop() }()
	if err := b.connect(); err != nil {
		return err
	}
	ctx := context.Background()
	logf("creating %d claims and %d slices", n/10, n/50)
	if err := b.create(ctx, 0, n/10); err != nil {
		return err
	}
	var rows []row
	if err := b.restart("--min-compatibility-version=1.33"); err != nil {
		return err
	}
	r, err := b.upgrade(ctx, "claimbridge upgrade, a tenth", n/10+n/50)
	if err != nil {
		return err
	}
	rows = append(rows, r)
	logf("creating %d claims and %d slices more", n-n/10, n/5-n/50)
	if err := b.create(ctx, n/10, n); err != nil {
		return err
	}
	if err := b.restart("--feature-gates=StorageVersionMigrator=true", "--runtime-config=storagemigration.k8s.io/v1beta1=true"); err != nil {
		return err
	}
	if r, err = b.migrate(ctx, assets, n+n/5); err != nil {
		return err
	}
	rows = append(rows, r)
	if err := b.restart("--min-compatibility-version=1.33"); err != nil {
		return err
	}
	if r, err = b.upgrade(ctx, "claimbridge upgrade, all", n+n/5); err != nil {
		return err
	}
	rows = append(rows, r)
	fmt.Printf("| rewrite in place, kube-apiserver 1.36 | objects | time | requests | peak memory |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		peak := "(in kube-controller-manager)"
		if r.peakMiB > 0 {
			peak = fmt.Sprintf("%.0f MiB", r.peakMiB)
		}
		fmt.Printf("| %s | %d | %s | %.0f | %s |\n", r.what, r.objects, r.took.Round(100*time.Millisecond), r.requests, peak)
	}
	fmt.Printf("\nclaimbridge / StorageVersionMigration, all objects: %.2f× the time\n", rows[2].took.Seconds()/rows[1].took.Seconds())
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// bench is the running kube-apiserver and its clients.
type bench struct {
	dir, bin, kubeconfig string
	env                  *envtest.Environment
	cfg                  *rest.Config
	d                    dynamic.Interface
}

// connect writes a kubeconfig of an admin of the kube-apiserver as it runs.
func (b *bench) connect() error {
	admin, err := b.env.AddUser(envtest.User{Name: "bench", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	b.cfg = admin.Config()
	b.cfg.QPS = -1 // no client-side limit for the setup
	b.kubeconfig = filepath.Join(b.dir, "kubeconfig")
	b.d = dynamic.NewForConfigOrDie(b.cfg)
	return harness.WriteKubeconfig(admin.Config(), b.kubeconfig)
}

// restart restarts kube-apiserver with flags, and only those.
func (b *bench) restart(flags ...string) error {
	s := b.env.ControlPlane.GetAPIServer()
	if err := s.Stop(); err != nil {
		return err
	}
	args := s.Configure()
	for _, f := range []string{"min-compatibility-version", "feature-gates", "runtime-config"} {
		args.Disable(f)
	}
	for _, f := range flags {
		name, value, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		args.Enable(name).Set(name, value)
	}
	if err := s.Start(); err != nil {
		return err
	}
	return b.connect()
}

var (
	claims = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
	slices = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
)

// create creates claims from to to (in namespace bench) and a slice for
// each fifth of them, 32 at a time.
func (b *bench) create(ctx context.Context, from, to int) error {
	if from == 0 {
		ns := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": "bench"}}}
		if _, err := b.d.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i := from; i < to; i++ {
		g.Go(func() error {
			claim := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
				"metadata": map[string]interface{}{"name": fmt.Sprintf("claim-%05d", i)},
				"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "gpu",
					"exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}}}}}}
			if _, err := b.d.Resource(claims).Namespace("bench").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
				return err
			}
			if i%5 != 0 {
				return nil
			}
			node := fmt.Sprintf("node-%05d", i/5)
			slice := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
				"metadata": map[string]interface{}{"name": node + "-gpu.example.com"},
				"spec": map[string]interface{}{"driver": "gpu.example.com", "nodeName": node,
					"pool":    map[string]interface{}{"name": node, "generation": int64(1), "resourceSliceCount": int64(1)},
					"devices": []interface{}{map[string]interface{}{"name": "gpu-0"}, map[string]interface{}{"name": "gpu-1"}}}}}
			_, err := b.d.Resource(slices).Create(ctx, slice, metav1.CreateOptions{})
			return err
		})
	}
	return g.Wait()
}

// requests is how many requests for resource.k8s.io kube-apiserver served.
func (b *bench) requests(ctx context.Context) (float64, error) {
	raw, err := discovery.NewDiscoveryClientForConfigOrDie(b.cfg).RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "apiserver_request_total{") && strings.Contains(line, `group="resource.k8s.io"`) {
			v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			total += v
		}
	}
	return total, nil
}

// upgrade times `claimbridge upgrade --to 1.33 --yes`, with a journal file
// of its own, and reads its peak memory.
func (b *bench) upgrade(ctx context.Context, what string, objects int) (row, error) {
	before, err := b.requests(ctx)
	if err != nil {
		return row{}, err
	}
	logf("%s", what)
	journal := filepath.Join(b.dir, fmt.Sprintf("journal-%d.json", time.Now().UnixNano()))
	cmd := exec.Command(b.bin, "upgrade", "--kubeconfig", b.kubeconfig, "--to", "1.33", "--yes", "--journal", journal)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		return row{}, fmt.Errorf("claimbridge upgrade: %v, want exit 3:\n%s", err, out.String())
	}
	after, err := b.requests(ctx)
	if err != nil {
		return row{}, err
	}
	peak := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	return row{what: what, objects: objects, took: took, requests: after - before, peakMiB: peak}, nil
}

// migrate runs kube-controller-manager 1.36 with its storage version
// migrator and times a StorageVersionMigration of claims and slices.
func (b *bench) migrate(ctx context.Context, assets string, objects int) (row, error) {
	kcm := exec.Command(filepath.Join(assets, "kube-controller-manager"), "--kubeconfig="+b.kubeconfig, "--leader-elect=false", "--secure-port=0",
		"--controllers=garbage-collector-controller,storage-version-migrator-controller", "--feature-gates=StorageVersionMigrator=true")
	var log bytes.Buffer
	kcm.Stdout, kcm.Stderr = &log, &log
	if err := kcm.Start(); err != nil {
		return row{}, err
	}
	defer func() { _ = kcm.Process.Kill(); _ = kcm.Wait() }()
	c, err := cluster.ForConfig(b.cfg)
	if err != nil {
		return row{}, err
	}
	hashes := map[string]string{}
	for _, r := range []string{"resourceclaims", "resourceslices"} {
		if _, hashes[r], err = c.Storage(r); err != nil {
			return row{}, err
		}
	}
	before, err := b.requests(ctx)
	if err != nil {
		return row{}, err
	}
	logf("StorageVersionMigration, all")
	start := time.Now()
	migrated, err := c.Migrate(ctx, hashes, time.Minute)
	took := time.Since(start)
	if err != nil || !migrated {
		return row{}, fmt.Errorf("StorageVersionMigration: %v, migrated %t:\n%s", err, migrated, log.String())
	}
	after, err := b.requests(ctx)
	if err != nil {
		return row{}, err
	}
	return row{what: "StorageVersionMigration, all", objects: objects, took: took, requests: after - before}, nil
}
