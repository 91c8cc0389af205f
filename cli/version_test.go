package cli

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/internal/version"
)

// TestVersion: claimbridge version prints the build's one line, or its
// fields as JSON; --version prints the version alone.
func TestVersion(t *testing.T) {
	want := version.Get()
	code, out, errOut := run(t, "", "version")
	if code != ExitOK || out != want.String()+"\n" || errOut != "" {
		t.Errorf("version: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, want.String()+"\n")
	}
	code, out, _ = run(t, "", "version", "-o", "json")
	var got version.Info
	if err := json.Unmarshal([]byte(out), &got); code != ExitOK || err != nil {
		t.Fatalf("version -o json: exit %d, %v:\n%s", code, err, out)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("version -o json (-want +got):\n%s", diff)
	}
	if code, out, _ = run(t, "", "--version"); code != ExitOK || out != want.Version+"\n" {
		t.Errorf("--version: exit %d, stdout %q, want %q", code, out, want.Version+"\n")
	}
	if code, _, errOut = run(t, "", "version", "-o", "yaml"); code != ExitBadInput || errOut != "Error: --output \"yaml\": use text or json\n" {
		t.Errorf("version -o yaml: exit %d, stderr %q", code, errOut)
	}
}
