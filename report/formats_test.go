package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/internal/version"
	"github.com/claimbridge/claimbridge/manifest"
)

// goldenReport is a validate run with a finding of every kind: an invalid
// claim, a skipped ConfigMap, a claim with a warning on a field and a note,
// an unusable one, an item of a List with a warning on the object, one on
// standard input, and a finding said of a document no object was added
// for.
func goldenReport(o Options) *Report {
	r := &Report{Options: o, Command: "validate", Release: "1.33"}
	doc := func(source string, index, line, item int, kind, name string) manifest.Document {
		return manifest.Document{Source: source, Index: index, Line: line, Item: item, Object: map[string]interface{}{
			"kind": kind, "metadata": map[string]interface{}{"namespace": "ml", "name": name}}}
	}
	finding := func(severity, kind, name, path, msg string) Finding {
		return Finding{Severity: severity, Kind: kind, Object: "ml/" + name, Path: path, Message: msg}
	}
	r.Add(doc("manifests/a.yaml", 1, 1, -1, "ResourceClaim", "gpu"), Verdict{Outcome: Invalid, Findings: []Finding{
		finding(Error, "ResourceClaim", "gpu", "spec.devices.requests[0].name", "Required value"),
		finding(Error, "ResourceClaim", "gpu", "", "apiVersion: Kubernetes 1.33 serves resource.k8s.io/v1beta2, not v1: its apiserver rejects this object"),
	}})
	r.Add(doc("manifests/a.yaml", 2, 9, -1, "ConfigMap", "settings"), Verdict{Outcome: Skipped, Findings: []Finding{
		{Severity: Note, Message: "skipping object v1 ConfigMap ml/settings: not a ResourceClaim"}}})
	r.Add(doc("manifests/b.yaml", 1, 3, -1, "ResourceClaim", "any"), Verdict{Outcome: Valid, Findings: []Finding{
		finding(Warning, "ResourceClaim", "any", "spec.devices.requests[0].firstAvailable", "Kubernetes 1.33 drops it on a create"),
		finding(Note, "ResourceClaim", "any", "", "note: status not validated"),
	}})
	bad := finding(Error, "ResourceClaim", "bad", "", "is malformed: spec must be an object, not a string")
	bad.Malformed = true
	r.Add(doc("manifests/b.yaml", 2, 12, -1, "ResourceClaim", "bad"), Verdict{Outcome: Invalid, Findings: []Finding{bad}})
	r.Add(doc("/abs/list.yaml", 1, 1, 0, "ResourceClaimTemplate", "t <&>"), Verdict{Outcome: Valid, Findings: []Finding{
		finding(Warning, "ResourceClaimTemplate", "t <&>", "", "a \"quoted\" warning\nwith a second line")}})
	r.Add(doc(manifest.Stdin, 1, 1, -1, "ResourceClaim", "in"), Verdict{Outcome: Valid})
	r.Say(doc("manifests/c.yaml", 3, 20, -1, "ResourceClaim", "late"), finding(Error, "ResourceClaim", "late", "", "the cluster rejects it"))
	return r
}

// TestReportFormatsGolden: the SARIF and JUnit renderings of goldenReport
// are those of testdata/, with the build's version as VERSION
// (UPDATE_GOLDEN=1 go test ./report -run TestReportFormatsGolden rewrites
// them).
func TestReportFormatsGolden(t *testing.T) {
	for _, tc := range []struct {
		format, file string
		quiet        bool
	}{
		{"sarif", "report.sarif", false},
		{"junit", "report.junit.xml", false},
		{"junit", "report-quiet.junit.xml", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := goldenReport(Options{Format: tc.format, Quiet: tc.quiet})
			var out bytes.Buffer
			if err := r.Write(&out, nil); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(out.String(), `"version": `+strconv.Quote(version.Get().Version), `"version": "VERSION"`)
			file := filepath.Join("testdata", tc.file)
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-want +got):\n%s", file, d)
			}
		})
	}
}

// TestRulesDocumented: docs/cli.md lists every rule of SARIF and JUnit
// reports with its level.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if row := "| `" + r.id + "` | " + r.level + " |"; !strings.Contains(string(data), row) {
			t.Errorf("docs/cli.md has no row %q", row)
		}
	}
}
