package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/manifest"
)

// fuzzCommands are the offline commands a user runs on manifests read from
// standard input: every conversion target family, validation, and migration
// to an alpha release and to GA.
var fuzzCommands = [][]string{
	{"convert", "--to", "v1alpha1", "-f", "-"},
	{"convert", "--to", "v1alpha2", "-f", "-"},
	{"convert", "--to", "v1alpha3", "-f", "-"},
	{"convert", "--to", "v1", "-f", "-"},
	{"validate", "-f", "-"},
	{"migrate", "--to", "v1alpha1", "-f", "-"},
	{"migrate", "--to", "v1alpha3", "-f", "-"},
	{"migrate", "--to", "v1", "-f", "-"},
}

// FuzzCommands feeds arbitrary manifests to convert, validate and migrate:
// whatever the input, each command ends with one of its documented exit
// codes (never a panic), says why when it refuses the input (validate's
// findings on standard output, every other reason on standard error), and
// what convert and migrate print on success is a manifest again.
//
// The seeds are the examples, the driver-style manifests and the real
// exports of test/manifests; `go test` runs them, and
// `go test -run '^$' -fuzz FuzzCommands ./cli/` explores from them.
// TestCorpusCommands (-tags corpus) checks the same of every manifest of
// the real-world corpus.
func FuzzCommands(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{
		filepath.Join("..", "examples", "*.yaml"),
		filepath.Join("..", "examples", "migrate", "*.yaml"),
		filepath.Join("..", "test", "manifests", "exports", "*", "*.yaml"),
		filepath.Join("..", "test", "manifests", "drivers", "*.yaml"),
	} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, files...)
	}
	if len(seeds) < 20 {
		f.Fatalf("found %d seed manifests, want the examples and test/manifests (at least 20)", len(seeds))
	}
	for _, file := range seeds {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[1]}}}`))
	// A typed list in a kind: List, with a duplicate and a misspelt item kind.
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[` +
		`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"a","namespace":"ns"},"spec":{"resourceClassName":"gpu"}},` +
		`{"kind":"ResourceClaim","metadata":{"name":"a","namespace":"ns"},"spec":{"resourceClassName":"gpu"}},` +
		`{"kind":"ResourceClaims","metadata":{"name":"b"}}]}]}`))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: resource.k8s.io/v1alpha2\n  kind: ResourceClaim\n  spec: 3\n"))
	f.Fuzz(checkCommands)
}

// checkCommands runs every command of fuzzCommands on data: each ends with
// one of its documented exit codes, says why when it refuses the input
// (validate's findings on standard output, every other reason on standard
// error), and what convert and migrate print on success is a manifest.
func checkCommands(t *testing.T, data []byte) {
	for _, args := range fuzzCommands {
		var out, errOut bytes.Buffer
		code := Main(args, bytes.NewReader(data), &out, &errOut)
		cmd := strings.Join(args[:len(args)-2], " ")
		switch code {
		case ExitOK, ExitInvalid, ExitBadInput:
		default:
			t.Fatalf("%s: exit %d, not a documented exit code\nstderr: %s", cmd, code, errOut.String())
		}
		// validate lists what is invalid on standard output (exit 1);
		// every other refusal says why on standard error.
		if findings := args[0] == "validate" && code == ExitInvalid; findings && out.Len() == 0 {
			t.Fatalf("%s: exit %d with no finding on standard output\nstderr: %s", cmd, code, errOut.String())
		} else if !findings && code != ExitOK && errOut.Len() == 0 {
			t.Fatalf("%s: exit %d with nothing on standard error", cmd, code)
		}
		if code == ExitOK && args[0] != "validate" && out.Len() > 0 {
			if _, err := manifest.Parse("output", out.Bytes()); err != nil {
				t.Fatalf("%s: exit 0 but its output is not a manifest: %v\n%s", cmd, err, out.String())
			}
		}
	}
}
