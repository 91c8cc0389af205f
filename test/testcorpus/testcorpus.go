// Package testcorpus gives tests the held-out corpus of real DRA manifests:
// files that DRA drivers, Kubernetes and its documentation published, kept
// outside this repository (they are other projects' files). The directory is
// named by the environment variable CLAIMBRIDGE_CORPUS; its layout is
// <owner>__<repo>/<ref>/<file>.yaml.
//
// Only tests built with the corpus build tag use it:
//
//	CLAIMBRIDGE_CORPUS=../shared/corpus/realworld go test -tags corpus ./cli/ ./manifest/ -run Corpus
//
// Such a test fails, never skips, when the corpus is not there: a run that
// asked for the corpus and checked nothing must not pass.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the corpus directory.
const EnvVar = "CLAIMBRIDGE_CORPUS"

// Dir returns the corpus directory named by CLAIMBRIDGE_CORPUS, made
// absolute. A relative path is taken from the module root (the directory
// of go.mod above the test's working directory), not from the package
// directory that go test runs a test in, so that the command line above
// works from the clone root. It fails the test when the variable is unset
// or names no directory.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvVar)
	if dir == "" {
		t.Fatal(EnvVar + " is not set: set it to the directory of the real-world manifest corpus " +
			"(<owner>__<repo>/<ref>/<file>.yaml), e.g. " + EnvVar + "=../shared/corpus/realworld")
	}
	if !filepath.IsAbs(dir) {
		root, err := moduleRoot()
		if err != nil {
			t.Fatalf("%s=%s is relative, and the module root to resolve it from is not found: %v", EnvVar, dir, err)
		}
		dir = filepath.Join(root, dir)
	}
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	if !info.IsDir() {
		t.Fatalf("%s=%s is not a directory", EnvVar, dir)
	}
	return dir
}

// Files returns every *.yaml file of the corpus (<dir>/*/*/*.yaml), sorted.
// It fails the test when CLAIMBRIDGE_CORPUS is unset or holds none.
func Files(t testing.TB) []string {
	t.Helper()
	dir := Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s=%s holds no manifest: want <owner>__<repo>/<ref>/<file>.yaml files", EnvVar, dir)
	}
	return files
}

// Name is a file's name in test output and subtest names: its path in the
// corpus, <owner>__<repo>/<ref>/<file>.yaml.
func Name(file string) string {
	ref := filepath.Dir(file)
	return filepath.Base(filepath.Dir(ref)) + "/" + filepath.Base(ref) + "/" + filepath.Base(file)
}

// moduleRoot is the nearest directory at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
