package report

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/claimbridge/claimbridge/manifest"
)

// An object is one object added to a report: a JUnit test case.
type object struct {
	file, name, where, position, outcome string
}

// where is the place of a document (or of its item) in its file.
func where(index, line int, item string) string {
	pos := fmt.Sprintf("document %d (line %d)", index, line)
	if item != "" {
		pos += ", " + item
	}
	return pos
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	Skipped   *junitSkipped  `xml:"skipped"`
	SystemOut string         `xml:"system-out,omitempty"` // its newlines written &#xA;
}

type junitSuite struct {
	XMLName  xml.Name
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
	Suites   []junitSuite
}

// junitCases are the test cases of the run: one per object (in a List,
// per item), with a failure per error, skipped when validate skipped it,
// and its warnings and notes (not with -q) as its output.
func (r *Report) junitCases() []junitCase {
	var cases []junitCase
	at := map[string]int{} // the case of each position
	for _, o := range r.objects {
		if _, ok := at[o.position]; !ok {
			at[o.position] = len(cases)
		}
		c := junitCase{Name: o.name + ", " + o.where, Classname: manifest.DisplayName(o.file)}
		if o.outcome == Skipped {
			c.Skipped = &junitSkipped{}
		}
		cases = append(cases, c)
	}
	for _, f := range r.findings {
		i, ok := at[f.position]
		if !ok { // said of no object added
			i, at[f.position] = len(cases), len(cases)
			name := cmp.Or(strings.TrimSuffix(f.subject(), ": "), "document")
			cases = append(cases, junitCase{Name: name + ", " + where(f.Document, f.Line, f.Item), Classname: manifest.DisplayName(f.File)})
		}
		c := &cases[i]
		switch {
		case f.Severity == Error:
			c.Failures = append(c.Failures, junitFailure{f.subject() + f.Message, rules[f.rule()].id, f.line(true)})
		default:
			if c.Skipped != nil && c.Skipped.Message == "" {
				c.Skipped.Message = f.subject() + f.Message
			}
			if !r.Quiet || f.Severity != Note {
				c.SystemOut += f.line(true) + "\n"
			}
		}
	}
	return cases
}

// writeJUnit writes the run as JUnit XML: one test suite in a testsuites.
func (r *Report) writeJUnit(w io.Writer) error {
	suite := junitSuite{XMLName: xml.Name{Local: "testsuite"}, Name: "claimbridge " + r.Command, Cases: r.junitCases()}
	if r.Release != "" {
		suite.Name += " for Kubernetes " + r.Release
	}
	return writeSuite(w, suite)
}

// A Case is a JUnit test case of what is not an object: a release that
// support judges a driver on.
type Case struct {
	Name, Class string
	Failure     string // "" when it passes
	Output      string
}

// WriteJUnit writes cases as the suite name.
func WriteJUnit(w io.Writer, name string, cases []Case) error {
	suite := junitSuite{XMLName: xml.Name{Local: "testsuite"}, Name: name}
	for _, c := range cases {
		jc := junitCase{Name: c.Name, Classname: c.Class, SystemOut: c.Output}
		if c.Failure != "" {
			jc.Failures, jc.SystemOut = []junitFailure{{Message: c.Failure, Type: Error, Text: c.Output}}, ""
		}
		suite.Cases = append(suite.Cases, jc)
	}
	return writeSuite(w, suite)
}

// writeSuite counts the cases of suite and writes it in a testsuites
// element.
func writeSuite(w io.Writer, suite junitSuite) error {
	for i := range suite.Cases {
		c := &suite.Cases[i]
		if len(c.Failures) > 0 {
			suite.Failures, c.Skipped = suite.Failures+1, nil
		} else if c.Skipped != nil {
			suite.Skipped++
		}
	}
	suite.Tests = len(suite.Cases)
	all := suite
	all.XMLName, all.Cases, all.Suites = xml.Name{Local: "testsuites"}, nil, []junitSuite{suite}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
