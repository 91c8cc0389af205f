//go:build envtest

// Package upgrade proves `claimbridge upgrade` on real kube-apiservers,
// each on an etcd of its own: 1.36 rolled back in place by rewrites
// (its own, and kube-controller-manager's storage version migrator), and
// to 1.33's whole control plane; the faults a rewrite meets; and the save,
// delete and re-creation of 1.30, 1.31 and 1.32, also through their
// schedulers and controller-managers.
package upgrade

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestUpgradeRewritesInPlace: a rollback of 1.36 to 1.33, which cannot read
// what 1.36 stores (v1), on kube-apiserver 1.36 with 1000 claims (20
// allocated and reserved), a template, a class and two slices. `upgrade
// --to 1.33` lists the steps in a dry run and writes nothing; run, it stops
// at the operator's restart with --min-compatibility-version (exit 3).
// After the restart, run by a user who may not patch, or without --yes, it
// writes nothing; with it, killed (SIGKILL) at random points of its pass
// three times and run again, it
// rewrites every object: etcd then holds each in v1beta2, what 1.33 reads,
// each claim's status is as it was, and it stops at the operator's change
// of release. Run again, it writes nothing. A journal of another target is
// refused.
func TestUpgradeRewritesInPlace(t *testing.T) {
	c := start136(t, nil)
	ctx := t.Context()
	statuses := createStored(t, ctx, c.d, 1000, 20)
	upgrade, env := c.upgrade, c.env

	code, out, errOut := upgrade("--dry-run")
	for _, want := range []string{
		"step 1, the operator's: restart every kube-apiserver 1.36 with --min-compatibility-version=1.33",
		"step 2, claimbridge's: rewrite every deviceclasses in place:\n  gpu.example.com\n  (objects: 1)\n",
		"step 3, claimbridge's: rewrite every resourceclaims in place:\n  team/claim-000\n",
		"  team/claim-999\n  (objects: 1000)\n",
		"step 5, claimbridge's: rewrite every resourceslices in place:",
		"step 6, the operator's: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.36 with 1.33",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("--dry-run: exit %d, want 0, and %q in stdout:\n%s\nstderr:\n%s", code, want, out, errOut)
		}
	}
	if _, err := c.d.Resource(configMaps).Namespace("kube-system").Get(ctx, "claimbridge-upgrade", metav1.GetOptions{}); err == nil {
		t.Error("--dry-run wrote the journal")
	}
	code, out, _ = upgrade("--yes")
	if want := "next, the operator's step: restart every kube-apiserver 1.36 with --min-compatibility-version=1.33"; code != cli.ExitOperator || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d, want %d, and stdout %q, want it to start %q", code, cli.ExitOperator, out, want)
	}
	stored := storedVersions(t, env)
	if len(stored) != 1 || len(stored["resource.k8s.io/v1"]) != 1004 {
		t.Fatalf("before the rewrite: etcd holds %v, want each of the 1004 DRA objects in v1", stored)
	}

	c.restart(t, "min-compatibility-version", "1.33") // the operator's step
	d := c.d
	if code, errOut := c.readOnly(t, ctx); code != cli.ExitInvalid || !strings.Contains(errOut, "Error: the cluster does not let you patch deviceclasses.resource.k8s.io, so nothing was written") {
		t.Fatalf("a user who may only read: exit %d, want 1, stderr:\n%s", code, errOut)
	}
	if code, _, errOut := upgrade(); code != cli.ExitInvalid || !strings.Contains(errOut, "not confirmed, so nothing written (--yes confirms)") {
		t.Fatalf("without --yes: exit %d, want 1, stderr:\n%s", code, errOut)
	}
	if v := storedVersions(t, env); len(v) != 1 || len(v["resource.k8s.io/v1"]) != 1004 {
		t.Fatalf("without --yes, objects were rewritten: %v", v)
	}
	killed(t, []string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", "1.33", "--yes"}, 3, 1004,
		func() int { return len(storedVersions(t, env)["resource.k8s.io/v1beta2"]) })
	code, out, errOut = upgrade("--yes")
	if want := "next, the operator's step: replace kube-apiserver"; code != cli.ExitOperator || !strings.Contains(out, "done: resourceclaims rewritten in place (objects: 1000)") || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want %d, stdout:\n%s\nstderr:\n%s", code, cli.ExitOperator, out, errOut)
	}
	rewritten := storedVersions(t, env)
	if len(rewritten) != 1 || len(rewritten["resource.k8s.io/v1beta2"]) != 1004 {
		t.Fatalf("after the rewrite, etcd holds %v, want each of the 1004 objects in v1beta2", rewritten)
	}
	if after := claimStatuses(t, ctx, d); !reflect.DeepEqual(after, statuses) {
		t.Errorf("the rewrite changed the claims' status:\n%v\nwant:\n%v", after, statuses)
	}
	versions := resourceVersions(t, ctx, d)
	if code, _, _ := upgrade("--yes"); code != cli.ExitOperator || !reflect.DeepEqual(resourceVersions(t, ctx, d), versions) {
		t.Errorf("run again: exit %d, and objects were written again", code)
	}
	var out2, errOut2 bytes.Buffer
	if code := cli.Main([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", "1.34", "--dry-run"}, nil, &out2, &errOut2); code != cli.ExitBadInput ||
		!strings.Contains(errOut2.String(), "the journal ConfigMap kube-system/claimbridge-upgrade is of the change to 1.33, not 1.34: finish that one; "+
			"once it is verified, remove the journal (`kubectl -n kube-system delete configmap claimbridge-upgrade`), or name another\n") {
		t.Errorf("a journal of another target: exit %d, stderr:\n%s", code, errOut2.String())
	}
}

// TestUpgradeThroughMigrator: the same rollback on kube-apiserver 1.36
// serving StorageVersionMigration (its gate on, storagemigration.k8s.io
// v1beta1 served) beside its kube-controller-manager running the
// migrator: `upgrade --to 1.33 --yes` has the migrator rewrite each
// resource, and etcd then holds each object in v1beta2, each claim's
// status as it was.
func TestUpgradeThroughMigrator(t *testing.T) {
	c := start136(t, map[string]string{"feature-gates": "StorageVersionMigrator=true", "runtime-config": "storagemigration.k8s.io/v1beta1=true"})
	ctx := t.Context()
	statuses := createStored(t, ctx, c.d, 50, 5)
	c.restart(t, "min-compatibility-version", "1.33")
	kcm := exec.Command(filepath.Join(c.assets, "kube-controller-manager"), "--kubeconfig="+c.kubeconfig, "--leader-elect=false", "--secure-port=0",
		"--controllers=garbage-collector-controller,storage-version-migrator-controller", "--feature-gates=StorageVersionMigrator=true")
	var log bytes.Buffer
	kcm.Stdout, kcm.Stderr = &log, &log
	if err := kcm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kcm.Process.Kill(); _ = kcm.Wait() })
	began := time.Now()
	code, out, errOut := c.upgrade("--yes")
	t.Logf("%s:\n%s", time.Since(began), out)
	want := "step 2, done: resourceclaims rewritten in place by kube-controller-manager's storage version migrator (objects: 50)\n"
	if code != cli.ExitOperator || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want %d, and %q in stdout:\n%s\nstderr:\n%s\nkube-controller-manager:\n%s", code, cli.ExitOperator, want, out, errOut, tail(log.String()))
	}
	if stored := storedVersions(t, c.env); len(stored) != 1 || len(stored["resource.k8s.io/v1beta2"]) != 54 {
		t.Errorf("after the migration, etcd holds %v, want each of the 54 objects in v1beta2", stored)
	}
	if after := claimStatuses(t, ctx, c.d); !reflect.DeepEqual(after, statuses) {
		t.Errorf("the migration changed the claims' status:\n%v\nwant:\n%v", after, statuses)
	}
}

// TestUpgradeFaults: the rollback of TestUpgradeRewritesInPlace while an
// admission policy refuses every update of a claim, then while a writer
// updates the claims as fast as it can. Refused, upgrade stops (exit 1),
// naming the claim and the policy's words, after it rewrote and journaled
// the class; run again once the policy is gone, beside the writer (whose
// writes conflict with its own), it rewrites every object. On the release
// it runs, a dry run says the cluster reads every DRA object (exit 0). A
// journal in a namespace that does not exist is refused before anything.
func TestUpgradeFaults(t *testing.T) {
	c := start136(t, nil)
	ctx := t.Context()
	createStored(t, ctx, c.d, 300, 0)
	c.restart(t, "min-compatibility-version", "1.33")
	policies := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	bindings := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
	policy := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]interface{}{"name": "freeze"},
		"spec": map[string]interface{}{"failurePolicy": "Fail", "matchConstraints": map[string]interface{}{"resourceRules": []interface{}{map[string]interface{}{
			"apiGroups": []interface{}{"resource.k8s.io"}, "apiVersions": []interface{}{"*"}, "operations": []interface{}{"UPDATE"}, "resources": []interface{}{"resourceclaims"}}}},
			"validations": []interface{}{map[string]interface{}{"expression": "false", "message": "claims are frozen for maintenance"}}}}}
	binding := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]interface{}{"name": "freeze"}, "spec": map[string]interface{}{"policyName": "freeze", "validationActions": []interface{}{"Deny"}}}}
	if _, err := c.d.Resource(policies).Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.d.Resource(bindings).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	touch := func(name string) error { // a label written, as a controller does
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{"touched":"%d"}}}`, time.Now().UnixNano())
		_, err := c.d.Resource(claims).Namespace("team").Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}
	for touch("claim-000") == nil { // until the policy is loaded
		time.Sleep(100 * time.Millisecond)
	}
	code, _, errOut := c.upgrade("--yes")
	if code != cli.ExitInvalid || !strings.Contains(errOut, "Error: rewriting resourceclaims team/claim-") || !strings.Contains(errOut, "claims are frozen for maintenance") {
		t.Fatalf("refused by the policy: exit %d, want 1, stderr:\n%s", code, errOut)
	}
	if err := c.d.Resource(bindings).Delete(ctx, "freeze", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for touch("claim-000") != nil {
		time.Sleep(100 * time.Millisecond)
	}
	writer, stop := make(chan int), make(chan struct{})
	go func() {
		n := 0
		for ; ; n++ {
			select {
			case <-stop:
				writer <- n
				return
			default:
				_ = touch(fmt.Sprintf("claim-%03d", n%300))
			}
		}
	}()
	code, out, errOut := c.upgrade("--yes")
	close(stop)
	conflicts := 0.0
	metrics, err := discovery.NewDiscoveryClientForConfigOrDie(c.cfg).RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(metrics), "\n") {
		if strings.HasPrefix(line, "apiserver_request_total{") && strings.Contains(line, `code="409"`) && strings.Contains(line, `resource="resourceclaims"`) {
			v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			conflicts += v
		}
	}
	t.Logf("the writer wrote %d times beside the run; kube-apiserver answered %.0f conflicts", <-writer, conflicts)
	if conflicts == 0 {
		t.Error("no write of the run conflicted with the writer's")
	}
	if code != cli.ExitOperator || !strings.Contains(out, "step 1, done before: deviceclasses rewritten in place (objects: 1)") ||
		!strings.Contains(out, "step 2, done: resourceclaims rewritten in place (objects: 300)") {
		t.Fatalf("beside the writer: exit %d, want %d, stdout:\n%s\nstderr:\n%s", code, cli.ExitOperator, out, errOut)
	}
	if stored := storedVersions(t, c.env); len(stored) != 1 || len(stored["resource.k8s.io/v1beta2"]) != 304 {
		t.Errorf("etcd holds %v, want each of the 304 objects in v1beta2", stored)
	}
	if code, _, errOut := c.upgrade("--yes", "--journal-namespace", "missing"); code != cli.ExitBadInput || !strings.Contains(errOut, "Error: reading namespace missing: ") {
		t.Errorf("a journal in a namespace that does not exist: exit %d, want 2, stderr:\n%s", code, errOut)
	}
	var dry bytes.Buffer
	code = cli.Main([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", "1.36", "--dry-run", "--journal", filepath.Join(t.TempDir(), "journal")}, nil, &dry, io.Discard)
	if want := "Kubernetes 1.36 reads every DRA object of the cluster (deviceclasses: 1, resourceclaims: 300, resourceclaimtemplates: 1, resourceslices: 2)\n"; code != 0 || dry.String() != want {
		t.Errorf("on its own release: exit %d, stdout %q, want 0, %q", code, dry.String(), want)
	}
}

// TestUpgradeSaves: 1.36 rolled back to 1.32, which no rewrite helps (1.36
// cannot store what 1.32 reads). Without --save, upgrade writes nothing and
// asks for the file; with it, it saves every DRA object but the slices,
// each with its status, reads the file back, and stops at the operator's
// step: stop the Pods that hold the claims. Another file that exists it
// refuses to overwrite. Once no Pod holds a claim, it deletes the objects
// the file holds, but not a claim created since the save; and then the
// slices, which drivers publish again. It stops at the change of release,
// which names the file it re-creates the objects from on the target. There,
// kube-apiserver 1.32 on the same etcd, it re-creates them, each in
// v1beta1, and 1.32 reads every DRA object.
func TestUpgradeSaves(t *testing.T) {
	c := start136(t, nil)
	ctx := t.Context()
	createStored(t, ctx, c.d, 50, 5)
	dir := t.TempDir()
	save := filepath.Join(dir, "dra.yaml")
	upgrade := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Main(append([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", "1.32", "--journal", filepath.Join(dir, "journal")}, args...), nil, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	schema := reportSchema(t)
	reported := func(args ...string) (int, upgradeReport, string) { // with --report json
		code, out, errOut := upgrade(append(args, "--report", "json")...)
		var r struct {
			Command string
			Steps   []string
			Summary struct{ Read, Kept int }
		}
		var doc map[string]interface{}
		if err := cmp.Or(json.Unmarshal([]byte(errOut), &r), json.Unmarshal([]byte(errOut), &doc)); err != nil || r.Command != "upgrade" || strings.Join(r.Steps, "\n")+"\n" != out {
			t.Fatalf("--report json: %v, command %q, steps %q, stdout:\n%s\nstderr:\n%s", err, r.Command, r.Steps, out, errOut)
		}
		if res := schema.Validate(doc); !res.IsValid() {
			t.Errorf("the report does not follow docs/report.schema.json: %v\n%s", res.Errors, errOut)
		}
		return code, upgradeReport{r.Steps, r.Summary.Read, r.Summary.Kept}, errOut
	}
	code, out, errOut := upgrade("--dry-run", "--save", save)
	for _, want := range []string{
		"step 1, claimbridge's: save what export reads (every DRA object but the slices, and the workloads that use claims) to " + save + "\n",
		"step 2, the operator's: stop the Pods that hold the claims 1.32 cannot read: Pod team/pod-0 holds claim team/claim-000;",
		"step 4, claimbridge's: delete every resourceclaims, once saved:\n  team/claim-000\n",
		"step 7, the operator's: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.36 with 1.32",
		"; on 1.32, upgrade re-creates what " + save + " holds\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("--dry-run: exit %d, want 0, and %q in stdout:\n%s\nstderr:\n%s", code, want, out, errOut)
		}
	}
	if _, err := os.Stat(save); err == nil {
		t.Fatal("--dry-run wrote the save")
	}
	if code, _, errOut := upgrade("--yes"); code != cli.ExitInvalid || !strings.Contains(errOut, "name the file to save them to with --save FILE") {
		t.Fatalf("without --save: exit %d, want 1, stderr:\n%s", code, errOut)
	}
	code, out, errOut = upgrade("--yes", "--save", save)
	if want := "step 1, done: saved to " + save + " (objects: 52)\nnext, the operator's step: stop the Pods that hold the claims 1.32 cannot read: "; code != cli.ExitOperator || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d, want 3, stdout:\n%s\nwant it to start:\n%s\nstderr:\n%s", code, out, want, errOut)
	}
	data, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n  status:\n"); n != 5 {
		t.Errorf("%s holds %d objects with a status, want 5", save, n)
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := upgrade("--yes", "--save", other); code != cli.ExitInvalid || !strings.Contains(errOut, other+" exists, and is not the save the journal records") {
		t.Errorf("another file: exit %d, stderr:\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(other); string(data) != "kept" {
		t.Errorf("%s was overwritten", other)
	}

	// The operator's step: the Pods stopped, their reservations released.
	for i := range 5 {
		claim, err := c.d.Resource(claims).Namespace("team").Get(ctx, fmt.Sprintf("claim-%03d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(claim.Object, "status", "reservedFor")
		if _, err := c.d.Resource(claims).Namespace("team").UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	late := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": map[string]interface{}{"name": "late"},
		"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}}}}}}
	if _, err := c.d.Resource(claims).Namespace("team").Create(ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = upgrade("--yes", "--save", save)
	if want := "Error: 1 resourceclaims were created since the save (team/late): nothing deleted; save again to a new file"; code != cli.ExitInvalid ||
		!strings.Contains(out, "step 2, done: deviceclasses deleted (objects: 1; "+save+" holds them)\n") || !strings.Contains(errOut, want) {
		t.Fatalf("a claim created since the save: exit %d, want 1, stdout:\n%s\nstderr:\n%s\nwant %q", code, out, errOut, want)
	}
	if err := c.d.Resource(claims).Namespace("team").Delete(ctx, "late", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = upgrade("--yes", "--save", save)
	for _, want := range []string{
		"step 1, done before: saved to " + save + "\n",
		"done: resourceclaims deleted (objects: 50; " + save + " holds them)\n",
		"done: resourceslices deleted (objects: 2; " + save + " holds them)\n",
		"next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.36 with 1.32",
	} {
		if code != cli.ExitOperator || !strings.Contains(out, want) {
			t.Fatalf("exit %d, want 3, and %q in stdout:\n%s\nstderr:\n%s", code, want, out, errOut)
		}
	}
	if stored := storedVersions(t, c.env); len(stored) != 0 {
		t.Errorf("etcd still holds DRA objects: %v", stored)
	}
	change := "next, the operator's step: replace kube-apiserver, kube-scheduler, kube-controller-manager and the kubelets of 1.36 with 1.32 " +
		"(`claimbridge check --to 1.32` names the flags, drivers and nodes to change with them; upgrade looks for 1.32 in /version); on 1.32, upgrade re-creates what " + save + " holds; then run claimbridge upgrade again"
	code, out, _ = upgrade("--yes")
	if code != cli.ExitOperator || out != change+"\n" {
		t.Errorf("run again: exit %d, stdout:\n%s\nwant:\n%s", code, out, change)
	}
	if code, got, errOut := reported("--yes"); code != cli.ExitOperator || !reflect.DeepEqual(got, upgradeReport{Steps: []string{change}}) {
		t.Errorf("--report json: exit %d, report %+v, stderr:\n%s", code, got, errOut)
	}

	// The operator's change: kube-apiserver 1.32 on the same etcd.
	assets, err := harness.AssetsDirFrom("ENVTEST_ASSETS_1_32", "--print-assets-dir=1.32")
	if err != nil {
		t.Fatal(err)
	}
	s := c.env.ControlPlane.GetAPIServer()
	s.Path = filepath.Join(assets, "kube-apiserver")
	s.Configure().Set("feature-gates", "DynamicResourceAllocation=true")
	c.restart(t, "runtime-config", "resource.k8s.io/v1beta1=true")
	code, out, errOut = upgrade("--yes")
	if want := "step 1, done: re-created what " + save + " holds (objects: 52, of which there before: 0)\n" +
		"Kubernetes 1.32 reads every DRA object of the cluster (deviceclasses: 1, resourceclaims: 50, resourceclaimtemplates: 1)\n"; code != 0 || out != want {
		t.Fatalf("on 1.32: exit %d, want 0, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, out, want, errOut)
	}
	if stored := storedVersions(t, c.env); len(stored) != 1 || len(stored["resource.k8s.io/v1beta1"]) != 52 {
		t.Errorf("on 1.32, etcd holds %v, want each of the 52 saved objects in v1beta1", stored)
	}
	want := upgradeReport{Steps: []string{"step 1, done before: re-created what " + save + " holds",
		"Kubernetes 1.32 reads every DRA object of the cluster (deviceclasses: 1, resourceclaims: 50, resourceclaimtemplates: 1)"}, Read: 52, Kept: 52}
	if code, got, errOut := reported("--yes"); code != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("--report json: exit %d, report %+v, want %+v; stderr:\n%s", code, got, want, errOut)
	}
}

// reportSchema validates against docs/report.schema.json.
func reportSchema(t *testing.T) *validate.SchemaValidator {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "docs", "report.schema.json"))
	var schema spec.Schema
	if err := cmp.Or(err, json.Unmarshal(data, &schema)); err != nil {
		t.Fatal(err)
	}
	return validate.NewSchemaValidator(&schema, nil, "", strfmt.Default)
}

// upgradeReport is what a test reads of upgrade's --report json.
type upgradeReport struct {
	Steps      []string
	Read, Kept int
}

func TestMain(m *testing.M) {
	// The envtest environments of these tests log nothing worth reading.
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// tail is the last 30 lines of a log.
func tail(log string) string {
	lines := strings.Split(log, "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// cluster136 is a kube-apiserver 1.36 on an etcd of its own, and a
// kubeconfig file of it.
type cluster136 struct {
	env                *envtest.Environment
	assets, kubeconfig string
	cfg                *rest.Config // of an admin, with no client-side rate limit
	d                  dynamic.Interface
}

// connect writes the kubeconfig of cfg and makes the clients of c.
func (c *cluster136) connect(t *testing.T, cfg *rest.Config) {
	t.Helper()
	if err := harness.WriteKubeconfig(cfg, c.kubeconfig); err != nil {
		t.Fatal(err)
	}
	c.cfg = rest.CopyConfig(cfg)
	c.cfg.QPS = -1
	c.d = dynamic.NewForConfigOrDie(c.cfg)
}

// start136 starts kube-apiserver 1.36 with flags.
func start136(t *testing.T, flags map[string]string) *cluster136 {
	t.Helper()
	assets, err := harness.AssetsDirFrom("ENVTEST_ASSETS_1_36", "--print-assets-dir=1.36")
	if err == nil {
		err = harness.CheckRelease(assets, "1.36")
	}
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{ControlPlaneStartTimeout: 60 * time.Second}
	env.ControlPlane.GetAPIServer().Path = filepath.Join(assets, "kube-apiserver")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
	for flag, value := range flags {
		env.ControlPlane.GetAPIServer().Configure().Set(flag, value)
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Cleanup(func() { _ = harness.StopControlPlane(env, dir) })
	c := &cluster136{env: env, assets: assets, kubeconfig: filepath.Join(dir, "kubeconfig")}
	c.connect(t, cfg)
	return c
}

// restart restarts kube-apiserver with one more flag, as the operator
// does, and writes the kubeconfig of its new certificates.
func (c *cluster136) restart(t *testing.T, flag, value string) {
	t.Helper()
	s := c.env.ControlPlane.GetAPIServer()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s.Configure().Set(flag, value)
	var log bytes.Buffer
	s.Err = &log
	if err := s.Start(); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	admin, err := c.env.AddUser(envtest.User{Name: "upgrader", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.connect(t, admin.Config())
}

// readOnly runs `claimbridge upgrade --to 1.33 --yes` as a user who may
// read what it reads, and write the journal, but patch nothing.
func (c *cluster136) readOnly(t *testing.T, ctx context.Context) (code int, stderr string) {
	t.Helper()
	role := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]interface{}{"name": "reader"},
		"rules": []interface{}{
			map[string]interface{}{"apiGroups": []interface{}{"*"}, "resources": []interface{}{"*"}, "verbs": []interface{}{"get", "list"}},
			map[string]interface{}{"apiGroups": []interface{}{""}, "resources": []interface{}{"configmaps"}, "verbs": []interface{}{"create", "update"}},
			map[string]interface{}{"nonResourceURLs": []interface{}{"/metrics", "/version"}, "verbs": []interface{}{"get"}},
		}}}
	binding := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]interface{}{"name": "reader"},
		"roleRef":  map[string]interface{}{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "reader"},
		"subjects": []interface{}{map[string]interface{}{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "reader"}}}}
	for r, obj := range map[string]*unstructured.Unstructured{"clusterroles": role, "clusterrolebindings": binding} {
		if _, err := c.d.Resource(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: r}).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := c.env.AddUser(envtest.User{Name: "reader"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := harness.WriteKubeconfig(reader.Config(), kubeconfig); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code = cli.Main([]string{"upgrade", "--kubeconfig", kubeconfig, "--to", "1.33", "--yes"}, nil, &out, &errOut)
	return code, errOut.String()
}

// upgrade runs `claimbridge upgrade --to 1.33` with args.
func (c *cluster136) upgrade(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = cli.Main(append([]string{"upgrade", "--kubeconfig", c.kubeconfig, "--to", "1.33"}, args...), nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

var (
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	claims     = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
)

// createStored creates a class, a template, two slices and n claims in
// namespace team, the first allocated of them allocated and reserved; it
// returns the claims' status.
func createStored(t *testing.T, ctx context.Context, d dynamic.Interface, n, allocated int) map[string]interface{} {
	t.Helper()
	create := func(resource, namespace string, obj map[string]interface{}) *unstructured.Unstructured {
		t.Helper()
		r := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: resource}
		if resource == "namespaces" {
			r = schema.GroupVersionResource{Version: "v1", Resource: resource}
		}
		u, err := d.Resource(r).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	meta := func(name string) map[string]interface{} { return map[string]interface{}{"name": name} }
	request := map[string]interface{}{"requests": []interface{}{map[string]interface{}{"name": "gpu", "exactly": map[string]interface{}{"deviceClassName": "gpu.example.com"}}}}
	create("namespaces", "", map[string]interface{}{"apiVersion": "v1", "kind": "Namespace", "metadata": meta("team")})
	create("deviceclasses", "", map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta("gpu.example.com"),
		"spec": map[string]interface{}{"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": `device.driver == "gpu.example.com"`}}}}})
	create("resourceclaimtemplates", "team", map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": meta("gpu"),
		"spec": map[string]interface{}{"spec": map[string]interface{}{"devices": request}}})
	for _, node := range []string{"node-1", "node-2"} {
		var devices []interface{}
		for i := range allocated {
			devices = append(devices, map[string]interface{}{"name": fmt.Sprintf("gpu-%d", i)})
		}
		create("resourceslices", "", map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": meta(node + "-gpu.example.com"),
			"spec": map[string]interface{}{"driver": "gpu.example.com", "nodeName": node, "devices": devices,
				"pool": map[string]interface{}{"name": node, "generation": int64(1), "resourceSliceCount": int64(1)}}})
	}
	for i := range n {
		claim := create("resourceclaims", "team", map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
			"metadata": meta(fmt.Sprintf("claim-%03d", i)), "spec": map[string]interface{}{"devices": request}})
		if i >= allocated {
			continue
		}
		claim.Object["status"] = map[string]interface{}{
			"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{map[string]interface{}{
				"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": fmt.Sprintf("gpu-%d", i)}}}},
			"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": fmt.Sprintf("pod-%d", i), "uid": fmt.Sprintf("uid-%d", i)}},
		}
		if _, err := d.Resource(claims).Namespace("team").UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return claimStatuses(t, ctx, d)
}

// claimStatuses are the status of each claim, by name.
func claimStatuses(t *testing.T, ctx context.Context, d dynamic.Interface) map[string]interface{} {
	t.Helper()
	list, err := d.Resource(claims).Namespace("team").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]interface{}{}
	for _, c := range list.Items {
		out[c.GetName()] = c.Object["status"]
	}
	return out
}

// resourceVersions are the resourceVersion of each claim, by name.
func resourceVersions(t *testing.T, ctx context.Context, d dynamic.Interface) map[string]string {
	t.Helper()
	list, err := d.Resource(claims).Namespace("team").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		out[c.GetName()] = c.GetResourceVersion()
	}
	return out
}

// storedVersions are the keys of the DRA objects in etcd, by the
// apiVersion each is stored in.
func storedVersions(t *testing.T, env *envtest.Environment) map[string][]string {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{env.ControlPlane.Etcd.URL.String()}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	out := map[string][]string{}
	for _, resource := range []string{"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"} {
		resp, err := client.Get(t.Context(), "/registry/"+resource+"/", clientv3.WithPrefix())
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range resp.Kvs {
			version := "unknown"
			for _, v := range []string{"v1beta2", "v1beta1", "v1alpha3", "v1alpha2", "v1"} {
				if bytes.Contains(kv.Value, []byte("resource.k8s.io/"+v+"\x12")) {
					version = "resource.k8s.io/" + v
					break
				}
			}
			out[version] = append(out[version], string(kv.Key))
		}
	}
	return out
}

// built is claimbridge's binary, built from this tree.
func built(t *testing.T) string {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "claimbridge")
	build := exec.Command("go", "build", "-o", bin, "./cmd/claimbridge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// killed runs claimbridge, built, with args n times, each killed (SIGKILL)
// at a random point of its pass over total objects: once done, which
// counts the objects handled, says a random number more of them than the
// run before left. Each run must stop midway.
func killed(t *testing.T, args []string, n, total int, done func() int) {
	t.Helper()
	bin := built(t)
	for range n {
		before := done()
		target := before + 10 + rand.IntN((total-before)/2)
		cmd, _, exited := startRun(t, bin, args, func() bool { return done() >= target })
		_ = cmd.Process.Kill()
		<-exited
		after := done()
		t.Logf("killed once %d objects were handled: %d of %d are", target, after, total)
		if after >= total {
			t.Fatalf("the run was killed after it handled every object")
		}
	}
}

// startRun starts claimbridge (bin) with args, and returns once reached
// says true; a run that ends before fails the test.
func startRun(t *testing.T, bin string, args []string, reached func() bool) (cmd *exec.Cmd, out *bytes.Buffer, exited chan error) {
	t.Helper()
	cmd, out, exited = exec.Command(bin, args...), &bytes.Buffer{}, make(chan error, 1)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { exited <- cmd.Wait() }()
	for !reached() {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) too early:\n%s", err, out)
		case <-time.After(5 * time.Millisecond):
		}
	}
	return cmd, out, exited
}
