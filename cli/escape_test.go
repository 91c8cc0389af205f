package cli

import (
	"strings"
	"testing"
)

// TestStderrEscapesControlCharacters: the reports on standard error quote
// names and values from the input; a manifest's escape sequences (ESC, BEL,
// C1's CSI) come out escaped, so they cannot drive the terminal, while
// standard output keeps the manifest's data as its encoder writes it.
func TestStderrEscapesControlCharacters(t *testing.T) {
	in := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\n" +
		"metadata: {name: \"c\\e[31mred\", namespace: ns}\n" +
		"spec: {resourceClassName: gpu, parametersRef: {kind: \"K\\e]0;title\\a\\u009b2J\", name: p}}\n"
	code, stdout, stderr := run(t, in, "convert", "--to", "v1alpha3", "-o", "json", "-f", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\x1b\a\u009b") {
		t.Errorf("stderr carries control characters: %q", stderr)
	}
	for _, want := range []string{`ResourceClaim ns/c\x1b[31mred`, `K\x1b]0;title\a\u009b2J`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, `"name": "c\u001b[31mred"`) {
		t.Errorf("stdout does not keep the name as JSON writes it:\n%s", stdout)
	}
}

// TestValidateReportEscapesControlCharacters: validate's standard output is
// a report naming objects and field paths from the input (found by a
// walkthrough: a namespace and an unknown key with ESC and BEL reached the
// terminal raw).
func TestValidateReportEscapesControlCharacters(t *testing.T) {
	in := "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\n" +
		"metadata: {name: ok, namespace: \"n\\e[2J\"}\n" +
		"spec: {resourceClassName: gpu, \"\\e]0;pwned\\a\": 1}\n"
	code, stdout, stderr := run(t, in, "validate", "-f", "-")
	if code != ExitInvalid {
		t.Fatalf("exit %d, want %d: %s%s", code, ExitInvalid, stdout, stderr)
	}
	if strings.ContainsAny(stdout, "\x1b\a") {
		t.Errorf("stdout carries control characters: %q", stdout)
	}
	for _, want := range []string{`ResourceClaim n\x1b[2J/ok`, `spec.\x1b]0;pwned\a: Forbidden: unknown field`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout)
		}
	}
}
