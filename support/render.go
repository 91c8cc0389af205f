package support

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/Masterminds/semver/v3"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/report"
)

// A Matrix is the verdict on a driver release for a range of releases.
type Matrix struct {
	APIVersion string `json:"apiVersion"` // claimbridge.dev/support/v1
	Kind       string `json:"kind"`       // Support
	Cells      []Cell `json:"cells"`
	// AtDefaults and WithFlags are the first and last releases it runs on
	// at their defaults, and with flags.
	AtDefaults Span `json:"atDefaults"`
	WithFlags  Span `json:"withFlags"`
	// Notes say, once, what of the driver could not be read.
	Notes []string `json:"notes,omitempty"`
	// Errors and Warnings are the declared ranges against the cells.
	Errors []string `json:"errors,omitempty"`
	// briefs are the errors without the cell's reason the text report
	// prints already.
	briefs   []string
	Warnings []string `json:"warnings,omitempty"`
}

// A Span is a first and a last release; empty when there is none.
type Span struct {
	First string `json:"first,omitempty"`
	Last  string `json:"last,omitempty"`
}

func (s Span) String() string {
	switch {
	case s.First == "":
		return "none of them"
	case s.First == s.Last:
		return s.First
	}
	return s.First + "–" + s.Last
}

// add widens s to release.
func (s *Span) add(release string) {
	s.First = cmp.Or(s.First, release)
	s.Last = release
}

// Support is the matrix of driver d on releases minors. When the chart
// renders on none of them, alike, the input is at fault: it is said once,
// and those cells are Unjudged.
func Support(d Driver, minors []int) *Matrix {
	m := &Matrix{APIVersion: "claimbridge.dev/support/v1", Kind: "Support"}
	var libs []string
	for _, b := range d.Binaries {
		if lib := fmt.Sprintf("v0.%d", b.Library); b.Library != 0 && !slices.Contains(libs, lib) {
			libs = append(libs, lib)
		}
	}
	if len(d.Binaries) > 0 && len(libs) == 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("no binary judged imports %s: what the library writes and the gRPC it serves are not judged, only the binaries' own typed calls and the install", LibraryModule))
	}
	var rows [][]Cell
	var renders []string
	for _, minor := range minors {
		cells, render := d.cells(minor)
		rows, renders = append(rows, cells), append(renders, render)
	}
	if render := sameRender(rows, renders); render != "" {
		m.Notes = append(m.Notes, fmt.Sprintf("the chart renders on no release, as release %s in namespace %s: %s; render it as you install it (--values, --set, --release-name, --namespace)",
			d.Chart.Release, d.Chart.Namespace, render))
		for i, row := range rows {
			if row[0].Verdict != Refused {
				rows[i] = []Cell{{Release: row[0].Release, Setting: Defaults, Verdict: Unjudged}}
			}
		}
	}
	for _, cells := range rows {
		m.Cells = append(m.Cells, cells...)
		switch cells[0].Verdict {
		case Works:
			m.AtDefaults.add(cells[0].Release)
			m.WithFlags.add(cells[0].Release)
		case NeedsFlags:
			m.WithFlags.add(cells[0].Release)
		}
	}
	if sources := m.fromSources(); len(sources) > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("the DRA gRPC of the kubelet of %s and the kubeletplugin of %s %s is judged by the versions their sources define; only the kubelets of 1.%d–1.%d and the kubeletplugins of v0.%d–v0.%d have been run against each other",
			strings.Join(sources, ", "), LibraryModule, strings.Join(libs, ", "), GRPCRun[0], GRPCRun[1], GRPCRun[0], GRPCRun[1]))
	}
	return m
}

// sameRender is the chart's render error when every row the chart's
// kubeVersion admits has it, and there is one; "" otherwise.
func sameRender(rows [][]Cell, renders []string) string {
	render := ""
	for i, row := range rows {
		switch {
		case row[0].Verdict == Refused:
		case renders[i] == "" || render != "" && renders[i] != render:
			return ""
		default:
			render = renders[i]
		}
	}
	return render
}

// fromSources are the releases whose DRA gRPC verdict comes from the
// sources alone.
func (m *Matrix) fromSources() []string {
	var out []string
	for _, c := range m.Cells {
		if c.Setting == Defaults && c.GRPC == FromSources {
			out = append(out, c.Release)
		}
	}
	return out
}

// Declare checks the releases that constraint (a kubeVersion-style range,
// named by what) admits against the cells at defaults: one where the
// driver cannot run is an error, one where it needs flags a warning.
func (m *Matrix) Declare(what, constraint string) error {
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, constraint, err)
	}
	for _, cell := range m.Cells {
		v, err := semver.NewVersion(cell.Release + ".0")
		if err != nil || cell.Setting != Defaults || cell.Verdict == Unjudged || !c.Check(v) {
			continue
		}
		switch cell.Verdict {
		case Cannot:
			brief := fmt.Sprintf("%s %s admits Kubernetes %s, where the driver cannot run", what, constraint, cell.Release)
			m.Errors, m.briefs = append(m.Errors, brief+": "+cell.Reasons[0]), append(m.briefs, brief+" (its reasons above)")
		case Refused:
			msg := fmt.Sprintf("%s %s admits Kubernetes %s, which the chart's kubeVersion refuses", what, constraint, cell.Release)
			m.Errors, m.briefs = append(m.Errors, msg), append(m.briefs, msg)
		case NeedsFlags:
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s %s admits Kubernetes %s, where the driver runs only with %s", what, constraint, cell.Release, cell.Flags))
		}
	}
	return nil
}

// WriteJSON writes the matrix as one JSON object.
func (m *Matrix) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(m)
}

// rows are the matrix by release: its cell at defaults, and the one with
// flags when there is one.
func (m *Matrix) rows() [][2]*Cell {
	var out [][2]*Cell
	for i := range m.Cells {
		if c := &m.Cells[i]; c.Setting == Defaults {
			out = append(out, [2]*Cell{c, nil})
		} else {
			out[len(out)-1][1] = c
		}
	}
	return out
}

// withFlags is a row's verdict with flags: the flags, "-" when it needs
// none, or its verdict when none help.
func withFlags(row [2]*Cell) string {
	switch {
	case row[1] != nil:
		return row[1].Flags
	case row[0].Verdict == Works:
		return "-"
	}
	return row[0].Verdict
}

// WriteText writes the matrix for a person: a table, the span, then the
// reasons by release.
func (m *Matrix) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tDEFAULTS\tWITH FLAGS")
	for _, row := range m.rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row[0].Release, row[0].Verdict, withFlags(row))
	}
	fmt.Fprintf(tw, "\nRuns at defaults on %s; with flags on %s.\n\n", m.AtDefaults, m.WithFlags)
	for _, c := range m.Cells {
		for _, r := range c.Reasons {
			fmt.Fprintf(tw, "%s %s: %s\n", c.Release, c.Setting, r)
		}
	}
	return tw.Flush()
}

// WriteMarkdown writes the table a maintainer pastes into a README.
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| Kubernetes | At defaults | With flags |\n|---|---|---|\n")
	for _, row := range m.rows() {
		flags := withFlags(row)
		switch {
		case row[1] != nil:
			flags = "works with `" + flags + "`"
		case flags == "-":
			flags = "works"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0].Release, row[0].Verdict, flags)
	}
	fmt.Fprintf(&b, "\nRuns at defaults on %s; with flags on %s.\n", m.AtDefaults, m.WithFlags)
	if slices.ContainsFunc(m.Cells, func(c Cell) bool { return strings.Contains(c.Flags, api.DynamicResourceAllocation+"=true") }) {
		fmt.Fprintf(&b, "Before 1.34, DRA is off by default: `%s=true` goes in the `--feature-gates` of kube-apiserver, kube-scheduler, kube-controller-manager and every kubelet; `--runtime-config` is kube-apiserver's.\n", api.DynamicResourceAllocation)
	}
	if sources := m.fromSources(); len(sources) > 0 {
		fmt.Fprintf(&b, "The DRA gRPC of %s is read from the sources of the kubelet and the library, not run.\n", strings.Join(sources, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ParseReleases reads a range of releases, FIRST-LAST, or one release of
// api.Releases, as minors.
func ParseReleases(s string) ([]int, error) {
	first, last, ok := strings.Cut(s, "-")
	if !ok {
		last = first
	}
	a, okA := api.ParseRelease(strings.TrimSpace(first))
	b, okB := api.ParseRelease(strings.TrimSpace(last))
	if !okA || !okB || a.Minor > b.Minor {
		return nil, fmt.Errorf("%q: not a range of releases FIRST-LAST of %s", s, api.ReleaseRange())
	}
	var minors []int
	for m := a.Minor; m <= b.Minor; m++ {
		minors = append(minors, m)
	}
	return minors, nil
}

// WriteJUnit writes the matrix as a JUnit suite: a case per cell, of
// class (the file that declares the driver's releases), failed where the
// driver does not work.
func (m *Matrix) WriteJUnit(w io.Writer, class string) error {
	var cases []report.Case
	for _, c := range m.Cells {
		kase := report.Case{Name: fmt.Sprintf("Kubernetes %s (%s)", c.Release, c.Setting), Class: class, Output: strings.Join(c.Reasons, "\n")}
		if c.Verdict != Works {
			kase.Failure = fmt.Sprintf("%s on Kubernetes %s (%s)", c.Verdict, c.Release, c.Setting)
		}
		cases = append(cases, kase)
	}
	return report.WriteJUnit(w, "claimbridge support", cases)
}

// WriteSARIF writes the notes, warnings and errors as SARIF results at
// file, the file that declares the driver's releases: at its kubeVersion
// line when it is a Chart.yaml.
func (m *Matrix) WriteSARIF(w io.Writer, file string) error {
	r := &report.Report{Options: report.Options{Format: "sarif"}, Command: "support"}
	doc := manifest.Document{Source: file, Item: -1}
	data, _ := os.ReadFile(file)
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "kubeVersion:") {
			doc.Line = i + 1
		}
	}
	for i, said := range [][]string{m.Notes, m.Warnings, m.Errors} {
		for _, msg := range said {
			r.Say(doc, report.Finding{Severity: []string{report.Note, report.Warning, report.Error}[i], Message: msg})
		}
	}
	return r.Write(w, nil)
}

// Write writes m to out in format (text, markdown, json, sarif, junit);
// with text and markdown, its notes, warnings and errors on errOut.
// declaring is the file that declares the driver's releases (Declaring).
func (m *Matrix) Write(format, declaring string, out, errOut io.Writer) error {
	switch format {
	case "json":
		return m.WriteJSON(out)
	case "junit":
		return m.WriteJUnit(out, declaring)
	case "sarif":
		return m.WriteSARIF(out, declaring)
	}
	write, errs := m.WriteText, m.briefs // the report holds the reasons
	if format == "markdown" {
		write, errs = m.WriteMarkdown, m.Errors
	}
	if err := write(out); err != nil {
		return err
	}
	for i, said := range [][]string{m.Notes, m.Warnings, errs} {
		for _, msg := range said {
			fmt.Fprintln(errOut, []string{"note: ", "warning: ", "Error: "}[i]+msg)
		}
	}
	return nil
}

// The comments around the table in a README that --update keeps.
const (
	BeginTable = "<!-- BEGIN claimbridge support -->"
	EndTable   = "<!-- END claimbridge support -->"
)

// Update puts table between the markers of text, or, when text has none,
// at its end with them; it says whether text had them.
func Update(text, table string) (string, bool) {
	block := BeginTable + "\n" + table + EndTable
	begin := strings.Index(text, BeginTable)
	end := strings.Index(text, EndTable)
	if begin < 0 || end < begin {
		return strings.TrimRight(text, "\n") + "\n\n" + block + "\n", false
	}
	return text[:begin] + block + text[end+len(EndTable):], true
}
