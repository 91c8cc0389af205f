package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/internal/version"
	"github.com/claimbridge/claimbridge/manifest"
)

// sarifSchema is the SARIF 2.1.0 schema a SARIF report names.
const sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// home is claimbridge's page, the SARIF driver's informationUri.
const home = "https://github.com/claimbridge/claimbridge"

// A rule is a kind of finding: a SARIF rule, a JUnit failure's type.
type rule struct{ id, level, text string }

// rules are every kind of finding, as docs/cli.md lists them.
var rules = []rule{
	{"error/rejected", Error, "The target release rejects the object: it is refused or invalid."},
	{"error/unusable", Error, "The input cannot be used: a known field has the wrong JSON type, or the object cannot be checked."},
	{"warning/field", Warning, "The target release drops, reads differently or rejects a field of the object."},
	{"warning/object", Warning, "The target release reads the object differently, or does not serve it."},
	{"note/skipped", Note, "The object is not checked, or written unchanged, or left out."},
	{"note/info", Note, "What was done to the object, or what was not checked of it."},
}

// rule is the index in rules of f's kind.
func (f finding) rule() int {
	id := "note/info"
	switch {
	case f.Malformed:
		id = "error/unusable"
	case f.Severity == Error:
		id = "error/rejected"
	case f.Severity == Warning && f.Path != "":
		id = "warning/field"
	case f.Severity == Warning:
		id = "warning/object"
	case f.outcome == Skipped || f.outcome == Passed || f.outcome == LeftOut:
		id = "note/skipped"
	}
	return slices.IndexFunc(rules, func(r rule) bool { return r.id == id })
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string    `json:"id"`
	ShortDescription     sarifText `json:"shortDescription"`
	HelpURI              string    `json:"helpUri"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifRun struct {
	Tool struct {
		Driver struct {
			Name           string      `json:"name"`
			InformationURI string      `json:"informationUri"`
			Version        string      `json:"version"`
			Rules          []sarifRule `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *sarifRegion `json:"region,omitempty"`
	} `json:"physicalLocation"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// writeSARIF writes the findings as a SARIF 2.1.0 log of one run; with -q,
// without the notes.
func (r *Report) writeSARIF(w io.Writer) error {
	run := sarifRun{Results: []sarifResult{}}
	driver := &run.Tool.Driver
	driver.Name, driver.InformationURI, driver.Version = "claimbridge", home, version.Get().Version
	for _, rl := range rules {
		sr := sarifRule{ID: rl.id, ShortDescription: sarifText{rl.text}, HelpURI: home + "/blob/main/docs/cli.md#the-report"}
		sr.DefaultConfiguration.Level = rl.level
		driver.Rules = append(driver.Rules, sr)
	}
	for _, f := range r.findings {
		if r.Quiet && f.Severity == Note {
			continue
		}
		text := f.subject() + f.Message
		if f.Item != "" {
			text = f.Item + ": " + text
		}
		i := f.rule()
		res := sarifResult{RuleID: rules[i].id, RuleIndex: i, Level: f.Severity, Message: sarifText{text}, Locations: make([]sarifLocation, 1)}
		loc := &res.Locations[0].PhysicalLocation
		loc.ArtifactLocation.URI = sarifURI(f.File)
		if f.Line > 0 {
			loc.Region = &sarifRegion{f.Line}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}{sarifSchema, "2.1.0", []sarifRun{run}})
}

// sarifURI is the artifact URI of file: a relative reference for a
// relative path (code scanning takes it from the repository's root), a
// file URI for an absolute one, and "stdin" for standard input.
func sarifURI(file string) string {
	if file == manifest.Stdin {
		return "stdin"
	}
	u := url.URL{Path: filepath.ToSlash(file)}
	if filepath.IsAbs(file) {
		u.Scheme = "file"
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path // C:/x
		}
	}
	return u.String()
}
