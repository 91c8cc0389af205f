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
	more     int // objects with the same finding, counted here
}

// summary counts a run's objects by outcome.
type summary struct {
	Read      int `json:"read"`
	Converted int `json:"converted,omitempty"`
	Rewritten int `json:"rewritten,omitempty"`
	Passed    int `json:"passedThrough,omitempty"`
	LeftOut   int `json:"leftOut,omitempty"`
	Valid     int `json:"valid,omitempty"`
	Invalid   int `json:"invalid,omitempty"`
	Skipped   int `json:"skipped,omitempty"`
	Warned    int `json:"warned"`
	Refused   int `json:"refused,omitempty"`
}

// report collects what a run says, and renders it once the input is read.
type report struct {
	reportOptions
	command, release string
	warningsLast     bool // convert: warnings after the notes, none after a refusal
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
	case outcomeValid:
		r.summary.Valid++
	case outcomeInvalid:
		r.summary.Invalid++
	case outcomeSkipped:
		r.summary.Skipped++
	}
	if v.Warned() && v.Outcome != migrate.Refused && v.Outcome != outcomeInvalid {
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
	r.findings = append(r.findings, finding{File: doc.Source, Document: doc.Index, Line: doc.Line, Item: doc.ItemPath(), Finding: f, position: doc.Position()})
}

// merge appends the findings and counts of rs to r's.
func (r *report) merge(rs ...*report) {
	for _, o := range rs {
		r.findings = append(r.findings, o.findings...)
		s, t := &r.summary, o.summary
		s.Read, s.Converted, s.Rewritten, s.Passed, s.LeftOut = s.Read+t.Read, s.Converted+t.Converted, s.Rewritten+t.Rewritten, s.Passed+t.Passed, s.LeftOut+t.LeftOut
		s.Valid, s.Invalid, s.Skipped, s.Warned, s.Refused = s.Valid+t.Valid, s.Invalid+t.Invalid, s.Skipped+t.Skipped, s.Warned+t.Warned, s.Refused+t.Refused
	}
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

// line renders f as the commands print it; validate's errors have no
// "Error: " (they are its findings, on standard output).
func (f finding) line(plainErrors bool) string {
	who := ""
	if f.Object != "" {
		who = f.Kind + " " + f.Object + ": "
	}
	if f.Path != "" {
		who += f.Path + ": "
	}
	switch {
	case f.Severity == migrate.SeverityError && !plainErrors:
		return "Error: " + f.position + ": " + who + f.Message
	case f.Severity == migrate.SeverityWarning:
		return f.position + ": warning: " + who + f.Message
	}
	return f.position + ": " + who + f.Message
}

// write renders the report on errOut (or --report-file). findingsOut,
// for validate, takes the errors about valid input instead.
func (r *report) write(errOut, findingsOut io.Writer) error {
	if r.file != "" {
		f, err := os.Create(r.file)
		if err != nil {
			return err
		}
		defer f.Close()
		errOut, findingsOut = f, f
	}
	if r.format == "json" {
		return r.writeJSON(errOut)
	}
	var first, last []finding
	for _, f := range r.findings {
		switch {
		case r.quiet && f.Severity == migrate.SeverityNote:
		case r.warningsLast && f.Severity == migrate.SeverityWarning:
			last = append(last, f)
		default:
			first = append(first, f)
		}
	}
	if r.count(migrate.SeverityError) > 0 {
		last = nil
	}
	for _, f := range r.repeated(append(first, last...)) {
		w := errOut
		if findingsOut != nil && f.Severity == migrate.SeverityError && !f.Malformed {
			w = findingsOut
		}
		line := f.line(findingsOut != nil)
		if f.more > 0 {
			line += fmt.Sprintf(" (and %d more objects; --verbose lists each)", f.more)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if !r.quiet {
		_, err := fmt.Fprintln(errOut, r.summaryLine())
		return err
	}
	return nil
}

// repeated is fs with a finding repeated for more than repeatLimit objects
// said once, counting the others in more (unless --verbose).
func (r *report) repeated(fs []finding) []finding {
	if r.verbose {
		return fs
	}
	type key struct{ severity, kind, path, message string }
	n := map[key]int{}
	for _, f := range fs {
		n[key{f.Severity, f.Kind, f.Path, f.Message}]++
	}
	var out []finding
	for _, f := range fs {
		k := key{f.Severity, f.Kind, f.Path, f.Message}
		switch {
		case n[k] > repeatLimit:
			f.more, n[k] = n[k]-1, -1
			out = append(out, f)
		case n[k] > 0:
			out = append(out, f)
		}
	}
	return out
}

// summaryLine is the last line of a run, unless -q.
func (r *report) summaryLine() string {
	s := r.summary
	if r.command == "validate" {
		return fmt.Sprintf("claimbridge validate: %d objects read: %d valid, %d invalid, %d skipped, %d warned",
			s.Read, s.Valid, s.Invalid, s.Skipped, s.Warned)
	}
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
