package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// APIVersion is the version of the JSON report's schema
// (docs/report.schema.json).
const APIVersion = "claimbridge.dev/report/v1"

// repeatLimit is how many objects a finding is printed for before the rest
// are counted on its first line (--verbose prints each).
const repeatLimit = 3

// Options are the flags every command shares for its report.
type Options struct {
	Quiet, Verbose, Strict bool
	Format, File           string
}

// AddFlags binds the options to fs; notes says what -q silences.
func (o *Options) AddFlags(fs *pflag.FlagSet, notes string) {
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "do not print notes ("+notes+") nor the summary; warnings and errors are always printed")
	fs.BoolVar(&o.Verbose, "verbose", false, fmt.Sprintf("print a finding for every object (by default one repeated for more than %d objects is printed once, with a count)", repeatLimit))
	fs.BoolVar(&o.Strict, "strict", false, "exit 1 on warnings too")
	fs.StringVar(&o.Format, "report", "text", "how findings are reported: text (lines on standard error), json (docs/report.schema.json), "+
		"sarif (SARIF 2.1.0, for code scanning) or junit (JUnit XML, a test case per object)")
	fs.StringVar(&o.File, "report-file", "", "write the report to this file instead of standard error")
}

// formats are the values of --report.
var formats = []string{"text", "json", "sarif", "junit"}

// Validate refuses an unknown --report format.
func (o *Options) Validate() error {
	if !slices.Contains(formats, o.Format) {
		return fmt.Errorf("--report %q: unsupported format (supported: %s)", o.Format, strings.Join(formats, ", "))
	}
	return nil
}

// A finding of a run: where the object is, and what is said of it.
type finding struct {
	File     string `json:"file"`
	Document int    `json:"document"`
	Line     int    `json:"line"`
	Item     string `json:"item,omitempty"`
	Finding
	position string
	more     int    // objects with the same finding, counted here
	outcome  string // of the object's verdict, when it was added with one
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
	// Kept and Unreachable count check's stored objects.
	Kept        int `json:"kept,omitempty"`
	Unreachable int `json:"unreachable,omitempty"`
}

// byOutcome are the counts of each outcome.
func (s *summary) byOutcome() map[string]*int {
	return map[string]*int{
		Converted: &s.Converted, Rewritten: &s.Rewritten, Passed: &s.Passed, LeftOut: &s.LeftOut,
		Refused: &s.Refused, Valid: &s.Valid, Invalid: &s.Invalid, Skipped: &s.Skipped, Kept: &s.Kept, Unreachable: &s.Unreachable,
	}
}

// A Report collects what a run says, and renders it once the input is
// read.
type Report struct {
	Options
	Command string
	// Release is the release judged, said of every finding.
	Release string
	// WarningsLast puts the warnings after the other findings, and none
	// after a refusal (convert).
	WarningsLast bool
	// Clients and Steps are check's plan: a row per client of the
	// cluster, and the steps of the change in order.
	Clients  []Row
	Steps    []string
	findings []finding
	summary  summary
	objects  []object // each object added, kept for --report junit only
}

// Add records v, the verdict on the object of doc.
func (r *Report) Add(doc manifest.Document, v Verdict) {
	r.summary.Read++
	if n := r.summary.byOutcome()[v.Outcome]; n != nil {
		*n++
	}
	if v.Warned() && v.Outcome != Refused && v.Outcome != Invalid && v.Outcome != Unreachable {
		r.summary.Warned++
	}
	if r.Format == "junit" {
		r.objects = append(r.objects, object{doc.Source, api.Describe(doc.Object), where(doc.Index, doc.Line, doc.ItemPath()), doc.Position(), v.Outcome})
	}
	for _, f := range v.Findings {
		r.say(doc, f, v.Outcome)
	}
}

// Say records f about doc's object.
func (r *Report) Say(doc manifest.Document, f Finding) { r.say(doc, f, "") }

func (r *Report) say(doc manifest.Document, f Finding, outcome string) {
	f.Release = cmp.Or(f.Release, r.Release)
	r.findings = append(r.findings, finding{File: doc.Source, Document: doc.Index, Line: doc.Line, Item: doc.ItemPath(), Finding: f, position: doc.Position(), outcome: outcome})
}

// Merge appends the findings and counts of rs to r's.
func (r *Report) Merge(rs ...*Report) {
	for _, o := range rs {
		r.findings, r.objects = append(r.findings, o.findings...), append(r.objects, o.objects...)
		s, t := &r.summary, o.summary
		s.Read, s.Converted, s.Rewritten, s.Passed, s.LeftOut = s.Read+t.Read, s.Converted+t.Converted, s.Rewritten+t.Rewritten, s.Passed+t.Passed, s.LeftOut+t.LeftOut
		s.Valid, s.Invalid, s.Skipped, s.Warned, s.Refused = s.Valid+t.Valid, s.Invalid+t.Invalid, s.Skipped+t.Skipped, s.Warned+t.Warned, s.Refused+t.Refused
		s.Kept, s.Unreachable = s.Kept+t.Kept, s.Unreachable+t.Unreachable
	}
}

// has reports whether a finding has severity.
func (r *Report) has(severity string) bool {
	return slices.ContainsFunc(r.findings, func(f finding) bool { return f.Severity == severity })
}

// Unusable reports whether input could not be used: an object whose known
// fields have the wrong JSON type, or one that could not be checked.
func (r *Report) Unusable() bool {
	return slices.ContainsFunc(r.findings, func(f finding) bool { return f.Malformed })
}

// Rejected reports whether the target rejects an object (an error), or,
// with --strict, reads one differently (a warning).
func (r *Report) Rejected() bool {
	return r.has(Error) || r.Strict && r.has(Warning)
}

// Refused counts the objects refused.
func (r *Report) Refused() int { return r.summary.Refused }

// subject is what f is about, before its message: "<Kind> <ns>/<name>: <path>: ".
func (f finding) subject() string {
	who := ""
	if f.Object != "" {
		who = f.Kind + " " + f.Object + ": "
	}
	if f.Path != "" {
		who += f.Path + ": "
	}
	return who
}

// line renders f as the commands print it; validate's errors have no
// "Error: " (they are its findings, on standard output).
func (f finding) line(plainErrors bool) string {
	who := f.subject()
	switch {
	case f.Severity == Error && !plainErrors:
		return "Error: " + f.position + ": " + who + f.Message
	case f.Severity == Warning:
		return f.position + ": warning: " + who + f.Message
	}
	return f.position + ": " + who + f.Message
}

// Write renders the report on errOut (or --report-file). findingsOut,
// for validate, takes the errors about valid input instead.
func (r *Report) Write(errOut, findingsOut io.Writer) error {
	if r.File != "" {
		f, err := os.Create(r.File)
		if err != nil {
			return err
		}
		defer f.Close()
		errOut, findingsOut = f, f
	}
	switch r.Format {
	case "json":
		return r.writeJSON(errOut)
	case "sarif":
		return r.writeSARIF(errOut)
	case "junit":
		return r.writeJUnit(errOut)
	}
	var first, last []finding
	for _, f := range r.findings {
		switch {
		case r.Quiet && f.Severity == Note:
		case r.WarningsLast && f.Severity == Warning:
			last = append(last, f)
		default:
			first = append(first, f)
		}
	}
	if r.summary.Refused > 0 {
		last = nil // what is refused explains itself; nothing is written
	}
	for _, f := range r.repeated(append(first, last...)) {
		w := errOut
		if findingsOut != nil && f.Severity == Error && !f.Malformed {
			w = findingsOut
		}
		line := f.line(findingsOut != nil)
		if f.more > 0 {
			line += fmt.Sprintf(" (and %d more objects; --verbose lists each)", f.more)
		}
		if r.Verbose && len(f.Pods) > 5 {
			line += fmt.Sprintf(" (all %d Pods: %s)", len(f.Pods), strings.Join(f.Pods, ", "))
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if !r.Quiet {
		if err := r.writePlan(errOut); err != nil {
			return err
		}
		_, err := fmt.Fprintln(errOut, r.summaryLine())
		return err
	}
	return nil
}

// A Row is one client of a cluster in check's plan: a node's kubelet, a
// field manager of its DRA objects, or a deprecated version requested.
type Row struct {
	Subject string `json:"subject"` // node, manager or requests
	Name    string `json:"name"`
	Release string `json:"kubelet,omitempty"` // a node's kubelet version
	// Version is the resource.k8s.io version it reads or writes through.
	Version string `json:"version,omitempty"`
	Kind    string `json:"kind,omitempty"`    // a manager's objects: their kind
	Objects int    `json:"objects,omitempty"` // and how many
	Verdict string `json:"verdict"`           // ok, blocking, advice or unknown
	Message string `json:"message,omitempty"`
	// Step is the number of the step that mends a blocking row.
	Step int `json:"step,omitempty"`
}

// writePlan prints the clients, one table per subject, and the steps:
// when there are steps, or with --verbose.
func (r *Report) writePlan(w io.Writer) error {
	if len(r.Steps) == 0 && !r.Verbose {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, subject := range []struct{ name, header string }{
		{"node", "NODE\tKUBELET\tREADS CLAIMS THROUGH\tVERDICT"},
		{"manager", "MANAGER\tWRITES THROUGH\tKIND\tOBJECTS\tVERDICT"},
		{"requests", "REQUESTED\tVERSION\tVERDICT"},
	} {
		header := subject.header
		for _, c := range r.Clients {
			if c.Subject != subject.name {
				continue
			}
			if header != "" {
				fmt.Fprintln(tw, header)
				header = ""
			}
			switch subject.name {
			case "node":
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Release, cmp.Or(c.Version, "-"), c.Verdict)
			case "manager":
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", c.Name, c.Version, cmp.Or(c.Kind, "-"), c.Objects, c.Verdict)
			default:
				fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Version, c.Verdict)
			}
		}
		if header == "" {
			fmt.Fprintln(tw)
		}
	}
	if len(r.Steps) > 0 {
		fmt.Fprintln(tw, "Steps, in order:")
	}
	for i, step := range r.Steps {
		fmt.Fprintf(tw, "  %d. %s\n", i+1, step)
	}
	return tw.Flush()
}

// repeated is fs with a finding repeated for more than repeatLimit objects
// said once, counting the others in more (unless --verbose).
func (r *Report) repeated(fs []finding) []finding {
	if r.Verbose {
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
func (r *Report) summaryLine() string {
	s := r.summary
	read := fmt.Sprintf("%d objects read", s.Read)
	if s.Read == 1 {
		read = "1 object read"
	}
	if slices.Contains([]string{"validate", "check", "upgrade"}, r.Command) {
		line := fmt.Sprintf("claimbridge %s: %s: %d valid, %d invalid, %d skipped, %d warned",
			r.Command, read, s.Valid, s.Invalid, s.Skipped, s.Warned)
		if s.Kept+s.Unreachable > 0 {
			line += fmt.Sprintf("; stored: %d kept, %d out of reach", s.Kept, s.Unreachable)
		}
		return line
	}
	return fmt.Sprintf("claimbridge %s: %s: %d converted, %d rewritten, %d passed through, %d left out, %d warned, %d refused",
		r.Command, read, s.Converted, s.Rewritten, s.Passed, s.LeftOut, s.Warned, s.Refused)
}

func (r *Report) writeJSON(w io.Writer) error {
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
		Clients    []Row     `json:"clients,omitempty"`
		Steps      []string  `json:"steps,omitempty"`
	}{APIVersion, "Report", r.Command, r.Release, r.summary, append([]finding{}, r.findings...), r.Clients, r.Steps})
}
