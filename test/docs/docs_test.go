// Package docs checks README.md and the docs that describe the current state
// against the repository: every repository path they name exists, every
// relative link points at a file, and every Test…, Benchmark…, Fuzz… and
// Example… function they name is defined in a _test.go file, every section
// they link to or name by its title and every make target they name exists
// (anchors_test.go), so that a renamed file, test, section or target cannot
// leave a doc pointing at nothing.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documents are README.md and every docs/*.md.
func documents(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v, %d files", err, len(docs))
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, "docs/"+filepath.Base(d))
	}
	return out
}

// notPaths look like repository paths but are not paths from the
// repository's root.
var notPaths = map[string]string{
	"cmd/webhook/server/options": "pod-security-admission's options package",
	"cli/flag":                   "component-base's cli/flag package",
	"migrate/exported-1.30.yaml": "examples/migrate/exported-1.30.yaml, in a list of examples/ files",
	"api/all":                    "a key of kube-apiserver's --runtime-config",
	"api/alpha":                  "a key of kube-apiserver's --runtime-config",
	"api/beta":                   "a key of kube-apiserver's --runtime-config",
}

var (
	// testFuncName is a Test, Benchmark, Fuzz or Example function; a
	// trailing * names every function with that prefix.
	testFuncName = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz|Example)[A-Z0-9_][A-Za-z0-9_]*\*?`)
	testFuncDecl = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)
	// markdownLink is the target of a Markdown link.
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// TestDocsNameExistingPaths: a word that starts with one of the repository's
// top-level directories (webhook/shed.go, test/envtest/overload) exists, each
// of its {a,b} alternatives, and a glob (hack/oracle/k8s-1.*) matches
// something. A path after another project's prefix (k8s.io/api/core/v1) or
// with a placeholder (conversion/testdata/<case>.yaml) is not one.
func TestDocsNameExistingPaths(t *testing.T) {
	root := repoRoot(t)
	var tops []string
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// bin/ is git-ignored: what the docs name there is built.
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "bin" {
			tops = append(tops, regexp.QuoteMeta(e.Name()))
		}
	}
	path := regexp.MustCompile(`(?:^|[\s(\[` + "`" + `'"])((?:` + strings.Join(tops, "|") + `)/[A-Za-z0-9_.*{},/-]*)`)
	for _, doc := range documents(t) {
		for i, line := range readLines(t, root, doc) {
			for _, m := range path.FindAllStringSubmatchIndex(line, -1) {
				if m[3] < len(line) && line[m[3]] == '<' {
					continue // a placeholder follows
				}
				p := strings.TrimRight(line[m[2]:m[3]], ".,/")
				if _, ok := notPaths[p]; ok {
					continue
				}
				for _, alt := range expandBraces(p) {
					matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(alt)))
					if err != nil {
						t.Fatalf("%s:%d: %s: %v", doc, i+1, p, err)
					}
					if len(matches) == 0 {
						t.Errorf("%s:%d: %s does not exist (if it is not a repository path, add it to notPaths)", doc, i+1, alt)
					}
				}
			}
		}
	}
}

// TestDocsLinkToExistingFiles: every relative link target exists, relative to
// the document.
func TestDocsLinkToExistingFiles(t *testing.T) {
	root := repoRoot(t)
	for _, doc := range documents(t) {
		for i, line := range readLines(t, root, doc) {
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target, _, _ := strings.Cut(m[1], "#")
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(doc), filepath.FromSlash(target))); err != nil {
					t.Errorf("%s:%d: link to %s: %v", doc, i+1, m[1], err)
				}
			}
		}
	}
}

// TestDocsNameExistingTests: every Test…, Benchmark…, Fuzz… or Example…
// word is a function of a _test.go file of the repository (Name* any with that prefix).
func TestDocsNameExistingTests(t *testing.T) {
	root := repoRoot(t)
	var funcs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || p == filepath.Join(root, "bin")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range testFuncDecl.FindAllSubmatch(data, -1) {
			funcs = append(funcs, string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range documents(t) {
		for i, line := range readLines(t, root, doc) {
			for _, name := range testFuncName.FindAllString(line, -1) {
				prefix, isPrefix := strings.CutSuffix(name, "*")
				if !slices.ContainsFunc(funcs, func(f string) bool {
					return f == name || isPrefix && strings.HasPrefix(f, prefix)
				}) {
					t.Errorf("%s:%d: %s is no Test, Benchmark, Fuzz or Example function of the repository", doc, i+1, name)
				}
			}
		}
	}
}

// expandBraces expands {a,b} alternatives, as a shell does.
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	end := strings.IndexByte(p[open:], '}')
	if end < 0 {
		return []string{p}
	}
	var out []string
	for _, alt := range strings.Split(p[open+1:open+end], ",") {
		out = append(out, expandBraces(p[:open]+alt+p[open+end+1:])...)
	}
	return out
}

func readLines(t *testing.T, root, doc string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}

// repoRoot is the repository's root: go test runs a package's tests in its
// directory, test/docs.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}
