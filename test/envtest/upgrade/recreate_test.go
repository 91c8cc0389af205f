//go:build envtest

package upgrade

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestUpgradeRecreates: the change 1.30→1.31, in which 1.31 reads no DRA
// object 1.30 stored, and back, with the real kube-apiservers of both on
// one etcd. On 1.30, a ResourceClass, a template, a slice and 200 claims,
// three of them allocated and reserved by bare Pods. `upgrade --to 1.31
// --save` saves them and stops at the Pods. Once they are stopped, it is
// killed (SIGKILL) twice while it deletes the claims, then run again: it
// deletes the rest and stops at the change. The test replaces
// kube-apiserver 1.30 with 1.31 on the same etcd. There a dry run lists
// the re-creation and creates nothing; then upgrade is killed
// twice while it re-creates the claims, then run again: every object of
// the save is in v1alpha3 (the class as a DeviceClass), the stopped Pods
// are named, and 1.31 reads every DRA object. Run again, it says the
// re-creation was done before. The same back to 1.30, unkilled, with an
// exact output: every object in v1alpha2.
func TestUpgradeRecreates(t *testing.T) {
	c := startRelease(t, 30)
	ctx := t.Context()
	for _, doc := range strings.Split(objects130, "---\n") {
		obj := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		c.create(t, obj)
	}
	for i := range claimCount {
		claim := c.create(t, map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": fmt.Sprintf("claim-%d", i), "namespace": "team"},
			"spec":     map[string]interface{}{"resourceClassName": "gpu.example.com"}})
		if i >= 3 {
			continue
		}
		pod := c.create(t, map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": fmt.Sprintf("pod-%d", i), "namespace": "team"},
			"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "c", "image": "registry.k8s.io/pause:3.10",
				"resources": map[string]interface{}{"claims": []interface{}{map[string]interface{}{"name": "gpu"}}}}},
				"resourceClaims": []interface{}{map[string]interface{}{"name": "gpu", "source": map[string]interface{}{"resourceClaimName": claim.GetName()}}}}})
		claim.Object["status"] = map[string]interface{}{"driverName": "gpu.example.com",
			"allocation": map[string]interface{}{"resourceHandles": []interface{}{map[string]interface{}{"driverName": "gpu.example.com",
				"structuredData": map[string]interface{}{"nodeName": "node-1", "results": []interface{}{map[string]interface{}{"namedResources": map[string]interface{}{"name": fmt.Sprintf("gpu-%d", i)}}}}}}},
			"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": pod.GetName(), "uid": string(pod.GetUID())}}}
		if _, err := c.resource(claim.Object).UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	claimsStored := func(version string) int {
		return len(slices.DeleteFunc(storedVersions(t, c.env)["resource.k8s.io/"+version], func(key string) bool {
			return !strings.HasPrefix(key, "/registry/resourceclaims/")
		}))
	}
	dir := t.TempDir()
	for _, change := range []struct {
		from, to       int
		version        string
		recreated      int
		said, readThen string
	}{
		{30, 31, "v1alpha3", 202, "start again the Pods that were stopped: team/pod-0, team/pod-1, team/pod-2\n", "deviceclasses: 1, resourceclaims: 200, resourceclaimtemplates: 1"},
		// 1.31 did not read the ResourceClass, so it is still there.
		{31, 30, "v1alpha2", 201, "  DeviceClass gpu.example.com: left out: Kubernetes 1.30 has no DeviceClass (its claims name a ResourceClass)\n",
			"resourceclaims: 200, resourceclaimtemplates: 1, resourceclasses: 1"},
	} {
		save, journal := filepath.Join(dir, fmt.Sprintf("dra-1.%d.yaml", change.to)), filepath.Join(dir, fmt.Sprintf("journal-1.%d", change.to))
		args := func() []string {
			return []string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", fmt.Sprintf("1.%d", change.to), "--journal", journal, "--save", save, "--yes"}
		}
		upgrade := func() (int, string) {
			var out, errOut bytes.Buffer
			code := cli.Main(args(), nil, &out, &errOut)
			return code, out.String() + errOut.String()
		}
		code, out := upgrade()
		if change.from == 30 {
			if want := "step 1, done: saved to " + save + " (objects: 205)\nnext, the operator's step: stop the Pods that hold the claims 1.31 cannot read: "; code != cli.ExitOperator || !strings.HasPrefix(out, want) {
				t.Fatalf("1.%d→1.%d: exit %d, want 3, output:\n%s\nwant it to start %q", change.from, change.to, code, out, want)
			}
			// The operator's step: the Pods stopped, and their
			// reservations released, as the controller-manager does.
			for i := range 3 {
				pod := map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": fmt.Sprintf("pod-%d", i), "namespace": "team"}}
				if err := c.resource(pod).Delete(ctx, fmt.Sprintf("pod-%d", i), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
					t.Fatal(err)
				}
				claim := c.get(t, "v1alpha2", "resourceclaims", "team", fmt.Sprintf("claim-%d", i))
				unstructured.RemoveNestedField(claim.Object, "status", "reservedFor")
				if _, err := c.resource(claim.Object).UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			// Killed twice while it deletes the claims.
			killed(t, args(), 2, claimCount, func() int { return claimCount - claimsStored("v1alpha2") })
			code, out = upgrade()
		}
		if want := fmt.Sprintf("next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.%d with 1.%d", change.from, change.to); code != cli.ExitOperator ||
			!strings.Contains(out, "done: resourceclaims deleted (objects: ") || !strings.Contains(out, want) || claimsStored(change.version) > 0 {
			t.Fatalf("1.%d→1.%d: exit %d, want 3, output:\n%s\nwant the claims deleted, and %q", change.from, change.to, code, out, want)
		}
		c.change(t, change.to)
		var dry, errOut bytes.Buffer
		if code := cli.Main(append(args()[:len(args())-1], "--dry-run"), nil, &dry, &errOut); code != 0 || claimsStored(change.version) != 0 ||
			!strings.HasPrefix(dry.String(), fmt.Sprintf("step 1, claimbridge's: re-create what %s holds, as migrate writes it for 1.%d\n", save, change.to)) {
			t.Fatalf("on 1.%d, --dry-run: exit %d, want 0, %d claims created, want none; stdout:\n%s\nstderr:\n%s", change.to, code, claimsStored(change.version), dry.String(), errOut.String())
		}
		before := "0"
		if change.from == 30 { // killed twice while it re-creates the claims
			killed(t, args(), 2, claimCount, func() int { return claimsStored(change.version) })
			before = `\d+`
		}
		code, out = upgrade()
		want := regexp.QuoteMeta(fmt.Sprintf("step 1, done: re-created what %s holds (objects: %d, of which there before: ", save, change.recreated)) + before +
			regexp.QuoteMeta(fmt.Sprintf(")\n%sKubernetes 1.%d reads every DRA object of the cluster (%s)\n", change.said, change.to, change.readThen)+
				"claimbridge upgrade: 202 objects read: 0 valid, 0 invalid, 0 skipped, 0 warned; stored: 202 kept, 0 out of reach\n")
		if code != 0 || !regexp.MustCompile("^"+want+"$").MatchString(out) {
			t.Fatalf("1.%d→1.%d, run on 1.%d: exit %d, want 0, output:\n%s\nwant:\n%s", change.from, change.to, change.to, code, out, want)
		}
		var names []string
		for _, r := range []string{"resourceclaims", "resourceclaimtemplates"} {
			list, err := c.d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: change.version, Resource: r}).Namespace("team").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range list.Items {
				names = append(names, o.GetName())
			}
		}
		wantNames := []string{"gpu"}
		for i := range claimCount {
			wantNames = append(wantNames, fmt.Sprintf("claim-%d", i))
		}
		if slices.Sort(names); !slices.Equal(names, slices.Sorted(slices.Values(wantNames))) {
			t.Errorf("1.%d holds %v in %s, want %v", change.to, names, change.version, wantNames)
		}
		class := map[int]string{30: "resourceclasses", 31: "deviceclasses"}[change.to]
		c.get(t, change.version, class, "", "gpu.example.com")
		if code, out := upgrade(); code != 0 || !strings.Contains(out, "step 1, done before: re-created what "+save+" holds\n") {
			t.Errorf("run again: exit %d, output:\n%s", code, out)
		}
	}
}

// claimCount is how many claims 1.30 holds.
const claimCount = 200

// objects130 are the objects 1.30 holds beside the claims.
const objects130 = `apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu.example.com
structuredParameters: true
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: team}
spec:
  spec: {resourceClassName: gpu.example.com}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com}
nodeName: node-1
driverName: gpu.example.com
namedResources:
  instances: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]
`

// release is a kube-apiserver of 1.30, 1.31 or 1.32, with DRA on, on an etcd of
// its own, and a kubeconfig file of it.
type release struct {
	cluster136
	assets map[int]string
}

// serving is the --runtime-config each release's kube-apiserver serves its
// DRA versions with (1.35: its DeviceTaintRules).
var serving = map[int]string{30: "resource.k8s.io/v1alpha2=true", 31: "resource.k8s.io/v1alpha3=true", 32: "resource.k8s.io/v1beta1=true",
	33: "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true", 35: "resource.k8s.io/v1alpha3=true", 36: "resource.k8s.io/v1=true", 37: "resource.k8s.io/v1=true"}

// gates are the --feature-gates of release 1.minor: 1.35's with its
// DeviceTaintRules.
func gates(minor int) string {
	if minor == 35 {
		return "DynamicResourceAllocation=true,DRADeviceTaints=true,DRADeviceTaintRules=true"
	}
	return "DynamicResourceAllocation=true"
}

// startRelease starts kube-apiserver 1.minor (a key of serving).
func startRelease(t *testing.T, minor int) *release {
	t.Helper()
	c := &release{assets: map[int]string{}}
	for m := range serving {
		variable, flag := fmt.Sprintf("ENVTEST_ASSETS_1_%d", m), fmt.Sprintf("--print-assets-dir=1.%d", m)
		if m == 37 { // the current release
			variable, flag = "KUBEBUILDER_ASSETS", "--print-assets-dir"
		}
		assets, err := harness.AssetsDirFrom(variable, flag)
		if err == nil {
			err = harness.CheckRelease(assets, fmt.Sprintf("1.%d", m))
		}
		if err != nil {
			t.Fatal(err)
		}
		c.assets[m] = assets
	}
	c.env = &envtest.Environment{ControlPlaneStartTimeout: 60 * time.Second}
	s := c.env.ControlPlane.GetAPIServer()
	s.Path = filepath.Join(c.assets[minor], "kube-apiserver")
	s.Configure().Set("feature-gates", gates(minor)).Set("runtime-config", serving[minor])
	c.env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(c.assets[minor], "etcd")}
	cfg, err := c.env.Start()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Cleanup(func() { _ = harness.StopControlPlane(c.env, dir) })
	c.kubeconfig = filepath.Join(dir, "kubeconfig")
	c.connect(t, cfg)
	return c
}

// change replaces kube-apiserver with release 1.minor's, on the same
// etcd, as the operator's change of release does: without
// --min-compatibility-version, which is the release's before.
func (c *release) change(t *testing.T, minor int) {
	t.Helper()
	s := c.env.ControlPlane.GetAPIServer()
	s.Path = filepath.Join(c.assets[minor], "kube-apiserver")
	s.Configure().Disable("min-compatibility-version").Set("feature-gates", gates(minor))
	c.restart(t, "runtime-config", serving[minor])
}

// resource is the client of obj's resource (the plural of its kind).
func (c *release) resource(obj map[string]interface{}) dynamic.ResourceInterface {
	u := unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	plural := strings.ToLower(gvk.Kind) + "s"
	if strings.HasSuffix(gvk.Kind, "s") {
		plural = strings.ToLower(gvk.Kind) + "es"
	}
	r := c.d.Resource(gvk.GroupVersion().WithResource(plural))
	if u.GetNamespace() == "" {
		return r
	}
	return r.Namespace(u.GetNamespace())
}

// create creates obj.
func (c *release) create(t *testing.T, obj map[string]interface{}) *unstructured.Unstructured {
	t.Helper()
	u, err := c.resource(obj).Create(t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %v: %v", obj["kind"], err)
	}
	return u
}

// get reads an object of resource.k8s.io.
func (c *release) get(t *testing.T, version, resource, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := c.d.Resource(schema.GroupVersionResource{Group: "resource.k8s.io", Version: version, Resource: resource}).Namespace(namespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s %s %s/%s: %v", version, resource, namespace, name, err)
	}
	return u
}
