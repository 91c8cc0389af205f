package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
)

// ReportAPIVersion is the version of the JSON report's schema
// (docs/report.schema.json).
const ReportAPIVersion = "claimbridge.dev/report/v1"

// repeatLimit is how many objects a finding is printed for before the rest
// are counted on its first line (--verbose prints each).
const repeatLimit = 3

// reportOptions are the flags every command shares for its findings.
type reportOptions struct {
	quiet, verbose, strict bool
	format, file           string
}

func (o *reportOptions) addFlags(cmd *cobra.Command, notes string) {
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "do not print notes ("+notes+") nor the summary; warnings and errors are always printed")
	cmd.Flags().BoolVar(&o.verbose, "verbose", false, fmt.Sprintf("print a finding for every object (by default one repeated for more than %d objects is printed once, with a count)", repeatLimit))
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1 on warnings too")
	cmd.Flags().StringVar(&o.format, "report", "text", "how findings are reported: text (lines on standard error) or json (docs/report.schema.json)")
	cmd.Flags().StringVar(&o.file, "report-file", "", "write the report to this file instead of standard error")
}

func (o *reportOptions) validate() error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("--report %q: unsupported format (supported: text, json)", o.format)
	}
	return nil
}

// A finding of a run: where the object is, and what is said of it.
type finding struct {
	File     string `json:"file"`
	Document int    `json:"document"`
	Line     int    `json:"line"`
	Item     string `json:"item,omitempty"`
	migrate.Finding
	position string
}

// summary counts a run's objects by outcome.
type summary struct {
	Read      int `json:"read"`
	Converted int `json:"converted"`
	Rewritten int `json:"rewritten"`
	Passed    int `json:"passedThrough"`
	LeftOut   int `json:"leftOut"`
	Warned    int `json:"warned"`
	Refused   int `json:"refused"`
}

// report collects what a run says, and renders it once the input is read.
type report struct {
	reportOptions
	command, release string
	findings         []finding
	summary          summary
}

// add records v, the verdict on the object of doc.
func (r *report) add(doc manifest.Document, v migrate.Verdict) {
	r.summary.Read++
	switch v.Outcome {
	case migrate.Converted:
		r.summary.Converted++
	case migrate.Rewritten:
		r.summary.Rewritten++
	case migrate.Passed:
		r.summary.Passed++
	case migrate.LeftOut:
		r.summary.LeftOut++
	case migrate.Refused:
		r.summary.Refused++
	}
	if v.Warned() && v.Outcome != migrate.Refused {
		r.summary.Warned++
	}
	for _, f := range v.Findings {
		r.say(doc, f)
	}
}

// say records f about doc's object.
func (r *report) say(doc manifest.Document, f migrate.Finding) {
	if f.Release == "" {
		f.Release = r.release
	}
	r.findings = append(r.findings, finding{doc.Source, doc.Index, doc.Line, doc.ItemPath(), f, doc.Position()})
}

// errors and warnings count the findings of each severity.
func (r *report) count(severity string) (n int) {
	for _, f := range r.findings {
		if f.Severity == severity {
			n++
		}
	}
	return n
}

// exitCode is 2 for malformed input, 1 for a refusal (or with --strict a
// warning), else 0.
func (r *report) exitCode() int {
	code := ExitOK
	for _, f := range r.findings {
		switch {
		case f.Malformed:
			return ExitBadInput
		case f.Severity == migrate.SeverityError, r.strict && f.Severity == migrate.SeverityWarning:
			code = ExitInvalid
		}
	}
	return code
}

// line renders f as the commands print it.
func (f finding) line() string {
	who := ""
	if f.Object != "" {
		who = f.Kind + " " + f.Object + ": "
	}
	if f.Path != "" {
		who += f.Path + ": "
	}
	switch f.Severity {
	case migrate.SeverityError:
		return "Error: " + f.position + ": " + who + f.Message
	case migrate.SeverityWarning:
		return f.position + ": warning: " + who + f.Message
	}
	return f.position + ": " + who + f.Message
}

// write renders the report on w (stderr, unless --report-file), with
// warnings last when warningsLast (and then none after an error).
func (r *report) write(w io.Writer, warningsLast bool) error {
	if r.file != "" {
		f, err := os.Create(r.file)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if r.format == "json" {
		return r.writeJSON(w)
	}
	shown := r.findings
	if r.quiet {
		shown = nil
		for _, f := range r.findings {
			if f.Severity != migrate.SeverityNote {
				shown = append(shown, f)
			}
		}
	}
	var lines []string
	if warningsLast {
		var first, last []finding
		for _, f := range shown {
			if f.Severity == migrate.SeverityWarning {
				last = append(last, f)
			} else {
				first = append(first, f)
			}
		}
		if r.count(migrate.SeverityError) > 0 {
			last = nil
		}
		lines = append(r.lines(first), r.lines(last)...)
	} else {
		lines = r.lines(shown)
	}
	if !r.quiet {
		lines = append(lines, r.summaryLine())
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// lines renders fs, a finding repeated for more than repeatLimit objects
// once, with a count (unless --verbose).
func (r *report) lines(fs []finding) []string {
	type key struct{ severity, kind, path, message string }
	seen := map[key]int{}
	if !r.verbose {
		for _, f := range fs {
			seen[key{f.Severity, f.Kind, f.Path, f.Message}]++
		}
	}
	var out []string
	for _, f := range fs {
		k := key{f.Severity, f.Kind, f.Path, f.Message}
		switch n := seen[k]; {
		case n > repeatLimit:
			out = append(out, f.line()+fmt.Sprintf(" (and %d more objects; --verbose lists each)", n-1))
			seen[k] = -1
		case n < 0:
		default:
			out = append(out, f.line())
		}
	}
	return out
}

// summaryLine is the last line of a run, unless -q.
func (r *report) summaryLine() string {
	s := r.summary
	return fmt.Sprintf("claimbridge %s: %d objects read: %d converted, %d rewritten, %d passed through, %d left out, %d warned, %d refused",
		r.command, s.Read, s.Converted, s.Rewritten, s.Passed, s.LeftOut, s.Warned, s.Refused)
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		APIVersion string    `json:"apiVersion"`
		Kind       string    `json:"kind"`
		Command    string    `json:"command"`
		Release    string    `json:"release,omitempty"`
		Summary    summary   `json:"summary"`
		Findings   []finding `json:"findings"`
	}{ReportAPIVersion, "Report", r.command, r.release, r.summary, append([]finding{}, r.findings...)})
}
