package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const modulePath = "github.com/claimbridge/claimbridge"

// RepoRoot is the directory of claimbridge's go.mod, found by walking up from
// the working directory (a test's package directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// kustomizeBinary is $KUSTOMIZE, resolved against the repository root when it
// is a relative path.
func kustomizeBinary(root string) (string, error) {
	bin := os.Getenv("KUSTOMIZE")
	if bin == "" {
		return "", errors.New("KUSTOMIZE is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	if !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
		bin = filepath.Join(root, bin)
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("KUSTOMIZE=%s is not usable (%v): run `make envtest-assets`", bin, err)
	}
	return path, nil
}

// Render runs `$KUSTOMIZE build dir` in the repository root (dir is relative to
// it, e.g. "config/default") and returns the objects in output order.
func Render(dir string) ([]*unstructured.Unstructured, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	bin, err := kustomizeBinary(root)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "build", dir)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s build %s: %w\n%s", bin, dir, err, stderr.String())
	}
	objs, err := decode(&stdout)
	if err != nil {
		return nil, fmt.Errorf("reading kustomize build %s: %w", dir, err)
	}
	return objs, nil
}

// RenderChart runs `$HELM template release charts/claimbridge --namespace
// namespace args...` in the repository root and returns the objects in
// output order. HELM must be set (`make test` sets it): a missing helm is an
// error.
func RenderChart(release, namespace string, args ...string) ([]*unstructured.Unstructured, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	bin := os.Getenv("HELM")
	if bin == "" {
		return nil, errors.New("HELM is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	if !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
		bin = filepath.Join(root, bin)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"template", release, "charts/claimbridge", "--namespace", namespace}, args...)...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s template: %w\n%s", bin, err, stderr.String())
	}
	objs, err := decode(&stdout)
	if err != nil {
		return nil, fmt.Errorf("reading helm template: %w", err)
	}
	return objs, nil
}

// decode reads a YAML stream into its non-empty documents, in order.
func decode(in io.Reader) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	r := utilyaml.NewYAMLReader(bufio.NewReader(in))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		var obj map[string]interface{}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, err
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

// OfKind returns the objects of kind.
func OfKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}
