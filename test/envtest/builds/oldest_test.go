//go:build envtest

package builds

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// oldest is the control plane of the second pass: the oldest release the
// server supports (1.30), whose conversion, watch cache and
// managedFields code differ from those of the release the suite's first
// pass runs (KUBEBUILDER_ASSETS).
var oldest = harness.Assets{Variable: "ENVTEST_ASSETS_1_30", PrintFlag: "--print-assets-dir=1.30", Release: "1.30"}

// TestOnOldest runs the suite's roll properties again against
// kube-apiserver 1.30 (ENVTEST_ASSETS_1_30; a missing binary fails it):
// a control plane of its own, with this build and the older builds behind
// proxies of their own, started as TestMain starts the first, the suite's
// globals pointing at it for the length of the test. Every test of the
// first pass: the rolls to, from and beside the release before this one
// (previousRelease) and a recent build (the rollback, the upgrade, refusals,
// server-side apply across builds, the conversion outage and the mixed
// rollout), and the rolls across the defaults (to and from beforeDefaults:
// the restore data for the defaulted fields).
func TestOnOldest(t *testing.T) {
	savedEnv, savedConversion, savedAdmission, savedReplicas, savedInstalled := env, conversion, admission, replicas, installed
	t.Cleanup(func() {
		env, conversion, admission, replicas, installed = savedEnv, savedConversion, savedAdmission, savedReplicas, savedInstalled
	})
	replicas, installed = map[string]string{}, ""
	e, err := harness.Start(context.Background(), harness.Options{StartServer: startReplicas, Assets: oldest})
	if err != nil {
		t.Fatalf("starting kube-apiserver 1.30 with the builds: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping kube-apiserver 1.30: %v", err)
		}
	})
	env = e
	for _, test := range onOldest {
		t.Run(testName(test), test)
	}
}

// onOldest are the tests TestOnOldest runs again: every test of the
// package but TestOnOldest and TestOnOldestRunsEveryTest.
var onOldest = []func(*testing.T){
	TestRollback,
	TestUpgrade,
	TestMixedRolloutRefusals,
	TestApplyAcrossBuilds,
	TestApplyVersionSwitchAcrossBuilds,
	TestConversionOutageDuringStorageVersionWrite,
	TestRollbackAcrossDefaults,
	TestUpgradeAcrossDefaults,
	TestMixedRollout,
}

// testName is the name of a test function (TestRollback).
func testName(test func(*testing.T)) string {
	name := runtime.FuncForPC(reflect.ValueOf(test).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}

// TestOnOldestRunsEveryTest: a test added to the package runs on 1.30 too
// (onOldest), unless it is about the 1.30 pass itself.
func TestOnOldestRunsEveryTest(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" ||
				strings.HasPrefix(fn.Name.Name, "TestOnOldest") {
				continue
			}
			want = append(want, fn.Name.Name)
		}
	}
	var got []string
	for _, test := range onOldest {
		got = append(got, testName(test))
	}
	slices.Sort(want)
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the tests TestOnOldest runs (-the package's +onOldest):\n%s", d)
	}
}
