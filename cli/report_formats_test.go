package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	// The SARIF 2.1.0 schema that the SARIF reports are checked against
	// comes with this module (sarifSchema); importing it keeps the module
	// in go.mod and its source in the module cache.
	_ "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// sarifModule is the module whose source holds the official SARIF 2.1.0
// JSON schema, as a Go string constant.
const sarifModule = "github.com/owenrumney/go-sarif/v3"

// sarifSchema is the SARIF 2.1.0 schema of sarifModule, where go.mod has
// it, compiled to assert formats too. It fails, never skips, without it.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", sarifModule).Output()
	if err != nil {
		t.Fatalf("go list -m -json %s: %v", sarifModule, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go list -m -json %s: no directory (%v): run go mod download %s\n%s", sarifModule, err, sarifModule, out)
	}
	file := filepath.Join(mod.Dir, "pkg", "report", "v210", "sarif", "schema.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, text, ok := strings.Cut(string(src), "const schema = `")
	text, _, ok2 := strings.Cut(text, "`")
	if !ok || !ok2 {
		t.Fatalf("%s: no const schema", file)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	id, _ := doc.(map[string]any)["id"].(string)
	if !strings.HasSuffix(id, "/sarif-schema-2.1.0.json") {
		t.Fatalf("%s: the schema's id is %q, not that of SARIF 2.1.0", file, id)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return schema
}

// malformedClaim is a claim whose spec is no object: unusable input.
const malformedClaim = "---\napiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: bad, namespace: ml}\nspec: gpu\n"

// TestReportSARIFFollowsItsSchema: the SARIF report of every command
// validates against the official SARIF 2.1.0 schema, and has a result for
// every finding of the JSON report, at its file and line.
func TestReportSARIFFollowsItsSchema(t *testing.T) {
	schema := sarifSchema(t)
	if err := schema.Validate(map[string]any{"version": "2.1.0", "runs": []any{map[string]any{}}}); err == nil {
		t.Fatal("the schema takes a run without its tool")
	}
	golden, err := os.ReadFile(filepath.Join("..", "report", "testdata", "report.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(golden)); err != nil {
		t.Error(err)
	} else if err := schema.Validate(doc); err != nil {
		t.Errorf("report/testdata/report.sarif does not follow the SARIF 2.1.0 schema: %v", err)
	}
	file := filepath.Join(t.TempDir(), "in put.yaml")
	if err := os.WriteFile(file, []byte(reportInput+malformedClaim), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{} // seen
	for _, args := range [][]string{
		{"convert", "--to", "1.31", "-f", "-"},
		{"migrate", "--to", "1.33", "-f", "-"},
		{"validate", "--to", "1.33", "-f", "-"},
		{"validate", "-f", "-"},
		{"validate", "--to", "1.31", "-f", file},
		{"convert", "--to", "v1", "-f", file},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, _, stderr := run(t, reportInput, append(args, "--report", "sarif")...)
			stderr, _, _ = strings.Cut(stderr, "\nError: ") // what the command says after the report
			got, err := jsonschema.UnmarshalJSON(strings.NewReader(stderr))
			if err != nil {
				t.Fatalf("not one JSON document: %v\n%s", err, stderr)
			}
			if err := schema.Validate(got); err != nil {
				t.Errorf("the report does not follow the SARIF 2.1.0 schema: %v\n%s", err, stderr)
			}
			var sarif struct {
				Runs []struct {
					Results []struct {
						Level, RuleID string
						Locations     []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }
								Region           struct{ StartLine int }
							}
						}
					}
				}
			}
			if err := json.Unmarshal([]byte(stderr), &sarif); err != nil || len(sarif.Runs) != 1 {
				t.Fatalf("%v, %d runs", err, len(sarif.Runs))
			}
			_, _, stderr = run(t, reportInput, append(args, "--report", "json")...)
			var report struct {
				Findings []struct {
					Severity, File string
					Line           int
				}
			}
			if err := json.NewDecoder(strings.NewReader(stderr)).Decode(&report); err != nil {
				t.Fatal(err)
			}
			results := sarif.Runs[0].Results
			if len(results) != len(report.Findings) || len(results) == 0 {
				t.Fatalf("%d results, %d findings in JSON", len(results), len(report.Findings))
			}
			for i, f := range report.Findings {
				r, uri := results[i], "stdin"
				if f.File == file {
					uri = "file://" + strings.ReplaceAll(filepath.ToSlash(file), " ", "%20")
				}
				rules[r.RuleID] = true
				loc := r.Locations[0].PhysicalLocation
				if r.Level != f.Severity || !strings.HasPrefix(r.RuleID, f.Severity+"/") || loc.ArtifactLocation.URI != uri || loc.Region.StartLine != f.Line {
					t.Errorf("result %d: %+v; want the finding %+v at %s", i, r, f, uri)
				}
			}
		})
	}
	if len(rules) != 6 {
		t.Errorf("results of %d kinds, want every 6: %v", len(rules), rules)
	}
}

// junitReport is what CI systems read of a JUnit XML report.
type junitReport struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failures  []struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped   *struct{} `xml:"skipped"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestReportJUnit: the JUnit report has a test case per object, a failure
// per error and the objects validate skipped as skipped, counted as the
// JSON report's summary counts them.
func TestReportJUnit(t *testing.T) {
	for _, tc := range []struct {
		args                     []string
		tests, failures, skipped int
	}{
		{[]string{"validate", "--to", "1.33"}, 5, 3, 2},
		{[]string{"validate"}, 5, 1, 2},
		{[]string{"convert", "--to", "1.31"}, 5, 2, 0}, // the claim 1.31 rejects, the malformed one
		{[]string{"migrate", "--to", "1.33"}, 5, 2, 0},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			in := reportInput + malformedClaim
			code, _, stderr := run(t, in, append(tc.args, "-f", "-", "--report", "junit")...)
			var got junitReport
			if err := xml.NewDecoder(strings.NewReader(stderr)).Decode(&got); err != nil {
				t.Fatalf("exit %d: not JUnit XML: %v\n%s", code, err, stderr)
			}
			if len(got.Suites) != 1 {
				t.Fatalf("%d test suites:\n%s", len(got.Suites), stderr)
			}
			s := got.Suites[0]
			var failures, failed, skipped int
			for _, c := range s.Cases {
				failures += len(c.Failures)
				if len(c.Failures) > 0 {
					failed++
				}
				if c.Skipped != nil {
					skipped++
				}
				if c.Classname != "<stdin>" || !strings.Contains(c.Name, ", document ") {
					t.Errorf("test case %q of %q", c.Name, c.Classname)
				}
			}
			if s.Tests != tc.tests || len(s.Cases) != tc.tests || s.Failures != tc.failures || failed != tc.failures || s.Skipped != tc.skipped || skipped != tc.skipped {
				t.Errorf("tests %d (%d cases), failures %d (%d failed), skipped %d (%d); want %d, %d, %d\n%s",
					s.Tests, len(s.Cases), s.Failures, failed, s.Skipped, skipped, tc.tests, tc.failures, tc.skipped, stderr)
			}
			if got.Tests != s.Tests || got.Failures != s.Failures || got.Skipped != s.Skipped {
				t.Errorf("testsuites counts %d, %d, %d; the suite's %d, %d, %d", got.Tests, got.Failures, got.Skipped, s.Tests, s.Failures, s.Skipped)
			}
			_, _, stderr = run(t, in, append(tc.args, "-f", "-", "--report", "json")...)
			var report struct {
				Summary  map[string]int
				Findings []struct{ Severity string }
			}
			if err := json.NewDecoder(strings.NewReader(stderr)).Decode(&report); err != nil {
				t.Fatal(err)
			}
			errors := 0
			for _, f := range report.Findings {
				if f.Severity == "error" {
					errors++
				}
			}
			if s.Tests != report.Summary["read"] || failures != errors || s.Skipped != report.Summary["skipped"] {
				t.Errorf("JUnit: %d tests, %d failures, %d skipped; JSON: %d read, %d errors, %d skipped",
					s.Tests, failures, s.Skipped, report.Summary["read"], errors, report.Summary["skipped"])
			}
		})
	}
}

// TestReportFormatsQuiet: -q leaves the notes out of SARIF and JUnit (the
// skipped objects keep theirs as the reason).
func TestReportFormatsQuiet(t *testing.T) {
	for format, note := range map[string]string{"sarif": `"ruleId": "note/`, "junit": "<system-out>"} {
		_, _, loud := run(t, reportInput, "validate", "--to", "1.31", "-f", "-", "--report", format)
		_, _, quiet := run(t, reportInput, "validate", "--to", "1.31", "-f", "-", "--report", format, "-q")
		if !strings.Contains(loud, note) || strings.Contains(quiet, note) || !strings.Contains(quiet, "error/rejected") {
			t.Errorf("--report %s: without -q:\n%s\nwith -q:\n%s", format, loud, quiet)
		}
	}
}
