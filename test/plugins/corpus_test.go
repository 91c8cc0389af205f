//go:build corpus

// Package plugins_test runs the real Helm 4, Helm 3, kustomize and kubectl
// over the real-world corpus with claimbridge plugged into each, as
// docs/pipelines.md shows: every object that the conversion leaves as it
// is comes out as the tool writes it without claimbridge, byte for byte.
//
// It needs the tools of `hack/envtest-assets.sh --env` and the corpus
// (`make test-corpus` gives both).
package plugins_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/test/testcorpus"
)

// to is the target: the release of the charts' Helm test, v1beta2.
const to = "1.33"

func TestCorpusThroughTools(t *testing.T) {
	tools := map[string]string{}
	for _, v := range []string{"HELM", "HELM3", "KUSTOMIZE", "KUBECTL"} {
		if tools[v] = os.Getenv(v); tools[v] == "" {
			t.Fatalf("%s is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-corpus` does both)", v)
		}
	}
	target, err := migrate.TargetOf(to)
	if err != nil {
		t.Fatal(err)
	}
	files := manifests(t)
	bin := buildAs(t, "claimbridge", "kubectl-claimbridge")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	// The tools run side by side, each with a home of its own (runner).
	t.Run("helm4", func(t *testing.T) {
		t.Parallel()
		run := runner(t, bin)
		// Helm 4 writes what a post-renderer gives it again, blank lines
		// trimmed: its baseline is a post-renderer that changes nothing.
		same := t.TempDir()
		write(t, same, "plugin.yaml", "apiVersion: v1\ntype: postrenderer/v1\nname: same\nversion: 0.1.0\nruntime: subprocess\n"+
			"runtimeConfig:\n  platformCommand:\n  - command: cat\n")
		chart := corpusChart(t, files)
		run(tools["HELM"], "plugin", "install", same)
		run(tools["HELM"], "plugin", "install", filepath.Join(root, "plugins", "helm"))
		checked(t, compare(t, target, run(tools["HELM"], "template", "c", chart, "--post-renderer", "same"),
			run(tools["HELM"], "template", "c", chart, "--post-renderer", "claimbridge", "--post-renderer-args=--to="+to)))
	})
	t.Run("helm3", func(t *testing.T) {
		t.Parallel()
		run := runner(t, bin)
		chart := corpusChart(t, files)
		checked(t, compare(t, target, run(tools["HELM3"], "template", "c", chart),
			run(tools["HELM3"], "template", "c", chart, "--post-renderer", "claimbridge",
				"--post-renderer-args=convert", "--post-renderer-args=--to="+to, "--post-renderer-args=-f=-")))
	})
	t.Run("kustomize", func(t *testing.T) {
		t.Parallel()
		run := runner(t, bin)
		built, n := 0, 0
		for _, file := range files {
			dir := t.TempDir()
			write(t, dir, "base/kustomization.yaml", "resources:\n- corpus.yaml\n")
			write(t, dir, "base/corpus.yaml", read(t, file))
			write(t, dir, "overlay/kustomization.yaml", "resources:\n- ../base\ntransformers:\n- claimbridge.yaml\n")
			write(t, dir, "overlay/claimbridge.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: claimbridge\n  annotations:\n"+
				"    config.kubernetes.io/function: |\n      exec:\n        path: claimbridge\n        args: [fn]\ndata:\n  to: \""+to+"\"\n")
			base, err := exec.Command(tools["KUSTOMIZE"], "build", filepath.Join(dir, "base")).Output()
			if err != nil {
				continue // kustomize refuses the file (an object twice, a list)
			}
			built++
			n += compare(t, target, string(base), run(tools["KUSTOMIZE"], "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(dir, "overlay")))
		}
		if built < len(files)/2 {
			t.Errorf("kustomize built %d of %d files", built, len(files))
		}
		checked(t, n)
	})
	t.Run("kubectl", func(t *testing.T) {
		t.Parallel()
		run := runner(t, bin)
		n := 0
		for _, file := range files {
			n += compare(t, target, read(t, file), run(tools["KUBECTL"], "claimbridge", "convert", "-q", "--to="+to, "-f", file))
		}
		checked(t, n)
	})
}

// compare checks that every object of before that the conversion to target
// leaves as it is has its text in after (Raw, with the comments above it),
// and returns how many it checked.
func compare(t *testing.T, target migrate.Target, before, after string) int {
	t.Helper()
	in, err := manifest.Parse("before", []byte(before))
	if err != nil {
		t.Fatal(err)
	}
	out, err := manifest.Parse("after", []byte(after))
	if err != nil {
		t.Fatalf("the output is no manifest: %v\n%s", err, after)
	}
	written := map[string]int{}
	for _, d := range out {
		written[objectText(d)]++
	}
	kept := 0
	for _, d := range in {
		if v := migrate.Convert(d.Object, target); d.Raw() == nil || !reflect.DeepEqual(v.Object, d.Object) {
			continue
		}
		if text := objectText(d); written[text] > 0 {
			written[text]--
			kept++
		} else {
			t.Errorf("%s: not written as it was:\n%s", d.Position(), text)
		}
	}
	return kept
}

// checked fails t when no object was checked, and says how many were.
func checked(t *testing.T, n int) {
	if n == 0 {
		t.Fatal("no object was checked")
	}
	t.Logf("%d objects written as they were", n)
}

// objectText is the text of d's own document: Raw from the line after the
// last "---" line above its object.
func objectText(d manifest.Document) string {
	raw, head := string(d.Raw()), string(d.Head())
	lines := strings.SplitAfter(head, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "---") {
			return raw[len(strings.Join(lines[:i+1], "")):]
		}
	}
	return raw
}

// manifests are the files of the corpus that claimbridge convert --to
// converts whole and the target accepts (exit 0; on the others the tools
// fail with it: TestCorpusManifests).
func manifests(t *testing.T) []string {
	var files []string
	for _, file := range testcorpus.Files(t) {
		if cli.Main([]string{"convert", "-q", "--to=" + to, "-f", file}, nil, io.Discard, io.Discard) == cli.ExitOK {
			files = append(files, file)
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d files of the corpus are converted", len(files))
	}
	return files
}

// corpusChart is a chart that renders every file of files as it is.
func corpusChart(t *testing.T, files []string) string {
	chart := t.TempDir()
	write(t, chart, "Chart.yaml", "apiVersion: v2\nname: corpus\nversion: 0.1.0\n")
	for i, file := range files {
		write(t, chart, fmt.Sprintf("corpus/%03d.yaml", i), read(t, file))
		write(t, chart, fmt.Sprintf("templates/%03d.yaml", i), fmt.Sprintf("{{ .Files.Get \"corpus/%03d.yaml\" }}\n", i))
	}
	return chart
}

// buildAs builds claimbridge under each of names into a new directory,
// and returns it, to put in front of the PATH.
func buildAs(t *testing.T, names ...string) string {
	bin := t.TempDir()
	for _, name := range names {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./cmd/claimbridge")
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	return bin
}

// runner runs tools with bin first on the PATH and Helm's directories of
// their own, failing the test when one fails.
func runner(t *testing.T, bin string) func(tool string, args ...string) string {
	home := t.TempDir()
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home,
		"HELM_CONFIG_HOME=" + filepath.Join(home, "config"), "HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
		"HELM_DATA_HOME=" + filepath.Join(home, "data")}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HELM_") && !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "HOME=") {
			env = append(env, e)
		}
	}
	return func(tool string, args ...string) string {
		t.Helper()
		cmd := exec.Command(tool, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w\n%s", err, ee.Stderr)
			}
			t.Fatalf("%s %s: %v", filepath.Base(tool), strings.Join(args, " "), err)
		}
		return string(out)
	}
}

func read(t *testing.T, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func write(t *testing.T, dir, name, text string) {
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
