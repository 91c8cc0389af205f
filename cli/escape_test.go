package cli

import (
	"encoding/json"
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
	if code != ExitInvalid { // 1.31 rejects the name; written all the same
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

// TestJSONOutputEscapesC1Controls: encoding/json writes DEL and the C1
// controls raw; -o json escapes them (\u009b), which is the same JSON, so
// that converted output cannot drive the terminal (found by a security
// review: an annotation with CSI and OSC reached stdout raw).
func TestJSONOutputEscapesC1Controls(t *testing.T) {
	value := "\u009d0;PWNED\u009c \u009b2J \u007f é"
	in := `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"a","namespace":"ns","annotations":{"x":"` +
		"\\u009d0;PWNED\\u009c \\u009b2J \\u007f é" + `"}},"spec":{"resourceClassName":"c"}}`
	for _, cmd := range []string{"convert", "migrate"} {
		code, out, stderr := run(t, in, cmd, "--to", "v1alpha3", "-o", "json", "-f", "-")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
		}
		if strings.ContainsAny(out, "\u007f\u009b\u009c\u009d") || !strings.Contains(out, `\u009b2J`) {
			t.Errorf("%s: stdout carries raw C1 controls or lacks the escape:\n%q", cmd, out)
		}
		var obj struct {
			Metadata struct{ Annotations map[string]string }
		}
		if err := json.Unmarshal([]byte(out), &obj); err != nil || obj.Metadata.Annotations["x"] != value {
			t.Errorf("%s: the annotation reads back as %q (%v), want %q", cmd, obj.Metadata.Annotations["x"], err, value)
		}
	}
}

// TestStderrEscapesBytesThatAreNoUTF8: a lone byte such as 0x9b (CSI to a
// terminal that reads Latin-1) is written as \x9b.
func TestStderrEscapesBytesThatAreNoUTF8(t *testing.T) {
	var b strings.Builder
	if _, err := (controlEscaper{&b}).Write([]byte("a\x9bb é\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "a\\x9bb é\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
