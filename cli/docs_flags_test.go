package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docLine is a line of the docs and where it is.
type docLine struct {
	where, text string
}

// docLines are the lines of README.md and of every docs/*.md.
func docLines(t *testing.T) []docLine {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v, %d files", err, len(docs))
	}
	var lines []docLine
	for _, d := range append([]string{filepath.Join("..", "README.md")}, docs...) {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range strings.Split(string(data), "\n") {
			lines = append(lines, docLine{fmt.Sprintf("%s:%d", strings.TrimPrefix(filepath.ToSlash(d), "../"), i+1), text})
		}
	}
	return lines
}

// commandFlags maps every command of the tree but help and completion
// (cobra's own) to its flags but --help.
func commandFlags() map[*cobra.Command][]*pflag.Flag {
	root := NewRootCommand(streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	root.InitDefaultVersionFlag()
	out := map[*cobra.Command][]*pflag.Flag{}
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		var flags []*pflag.Flag
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" {
				flags = append(flags, f)
			}
		})
		out[c] = flags
	}
	return out
}

// TestCommandSynopsesNameEveryFlag: every command but serve (whose flags
// are the README's table, TestREADMEFlagsTable) has a synopsis in the docs,
// one line that names the command and each of its flags, by its long or
// its short name, so that a flag added to a command cannot go unmentioned.
func TestCommandSynopsesNameEveryFlag(t *testing.T) {
	lines := docLines(t)
	for c, flags := range commandFlags() {
		if c.Name() == "serve" {
			continue
		}
		// `claimbridge convert`, `convert --to …`: the command as typed.
		word := regexp.MustCompile("(claimbridge |`)" + regexp.QuoteMeta(c.Name()) + `\b`)
		if c == c.Root() {
			word = regexp.MustCompile("`claimbridge\\b")
		}
		var best docLine
		bestMissing := flagNames(flags)
		for _, line := range lines {
			if !word.MatchString(line.text) {
				continue
			}
			var missing []string
			for _, f := range flags {
				if !namesFlag(line.text, f) {
					missing = append(missing, "--"+f.Name)
				}
			}
			if best.where == "" || len(missing) < len(bestMissing) {
				best, bestMissing = line, missing
			}
		}
		switch {
		case best.where == "":
			t.Errorf("no line of README.md or docs/*.md names %q with any of its flags %v", c.Name(), bestMissing)
		case len(bestMissing) > 0:
			t.Errorf("no line of README.md or docs/*.md names %q with all its flags; the closest, %s, lacks %v: %s", c.Name(), best.where, bestMissing, best.text)
		}
	}
}

func flagNames(flags []*pflag.Flag) []string {
	var names []string
	for _, f := range flags {
		names = append(names, "--"+f.Name)
	}
	return names
}

// namesFlag reports whether line names f as --name or -shorthand, as a
// word of its own (--to, not --token-…).
func namesFlag(line string, f *pflag.Flag) bool {
	names := []string{"--" + f.Name}
	if f.Shorthand != "" {
		names = append(names, "-"+f.Shorthand)
	}
	for _, n := range names {
		if regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(n) + `([^\w-]|$)`).MatchString(line) {
			return true
		}
	}
	return false
}

// otherToolsFlags are the --flags the docs name of other programs, with
// where they belong; every other --flag must be one of claimbridge's.
var otherToolsFlags = map[string]string{
	"--admission-control-config-file":  "kube-apiserver",
	"--all":                            "kubectl delete",
	"--api-version":                    "kubectl explain",
	"--api-versions":                   "helm template",
	"--cacert":                         "curl",
	"--chunk-size":                     "kubectl get",
	"--clusterrole":                    "kubectl create clusterrolebinding",
	"--create-namespace":               "helm install",
	"--data":                           "curl",
	"--dry-run":                        "kubectl",
	"--enable-aggregator-routing":      "kube-apiserver",
	"--enable-alpha-plugins":           "kustomize build",
	"--enable-exec":                    "kustomize build",
	"--feature-gates":                  "kube-apiserver",
	"--for":                            "kubectl wait",
	"--force":                          "helm upgrade",
	"--force-conflicts":                "kubectl apply --server-side",
	"--ignore-not-found":               "kubectl delete",
	"--kube-version":                   "helm template",
	"--max-mutating-requests-inflight": "kube-apiserver",
	"--max-requests-inflight":          "kube-apiserver",
	"--min-compatibility-version":      "kube-apiserver",
	"--namespace":                      "helm",
	"--post-renderer":                  "helm install",
	"--kube-context":                   "helm install",
	"--post-renderer-args":             "helm install",
	"--raw":                            "kubectl get",
	"--reset-then-reuse-values":        "helm upgrade",
	"--reuse-values":                   "helm upgrade",
	"--runtime-config":                 "kube-apiserver",
	"--server-side":                    "kubectl apply",
	"--set-string":                     "helm install",
	"--serviceaccount":                 "kubectl create clusterrolebinding",
	"--set":                            "helm",
	"--status-include-resources":       "velero restore",
	"--type":                           "kubectl patch",
	"--name":                           "the chart's extraArgs entries, --name=value",
	// docs/releasing.md and the README's install lines
	"--bundle":                  "cosign sign-blob, verify-blob",
	"--certificate-identity":    "cosign verify",
	"--certificate-oidc-issuer": "cosign verify",
	"--ignore-missing":          "sha256sum -c",
	"--notes-file":              "gh release create",
	"--password-stdin":          "crane auth login, helm registry login",
	"--recursive":               "cosign sign",
	"--rm":                      "docker run",
	"--verify-tag":              "gh release create",
	"--yes":                     "cosign",
}

// TestDocsNameExistingFlags: every --flag the docs write is a flag of a
// claimbridge command (a trailing * names those with that prefix) or one of
// otherToolsFlags, so that a renamed or removed flag cannot leave a doc
// telling users to pass one that is refused.
func TestDocsNameExistingFlags(t *testing.T) {
	ours := []string{"--help"}
	for _, flags := range commandFlags() {
		for _, f := range flags {
			ours = append(ours, "--"+f.Name)
		}
	}
	flag := regexp.MustCompile(`(?:^|[^\w-])(--[a-z][a-z0-9-]*\*?)`)
	for _, line := range docLines(t) {
		for _, m := range flag.FindAllStringSubmatch(line.text, -1) {
			name := m[1]
			if prefix, ok := strings.CutSuffix(name, "*"); ok {
				if !slices.ContainsFunc(ours, func(f string) bool { return strings.HasPrefix(f, prefix) }) {
					t.Errorf("%s: %s names no claimbridge flag", line.where, name)
				}
				continue
			}
			if slices.Contains(ours, name) {
				continue
			}
			if _, ok := otherToolsFlags[name]; ok {
				continue
			}
			t.Errorf("%s: %s is no flag of claimbridge (nor listed in otherToolsFlags)", line.where, name)
		}
	}
}
