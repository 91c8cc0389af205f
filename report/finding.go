// Package report is what claimbridge says about the objects it reads: one
// Finding type for every command, a Verdict per object, and a Report that
// renders them as lines, as JSON (docs/report.schema.json), as SARIF or as
// JUnit XML.
package report

import "slices"

// Severities of a Finding.
const (
	// Error: the target release rejects the object, or it cannot be
	// processed.
	Error = "error"
	// Warning: the target release drops, reads differently or rejects
	// something of the object.
	Warning = "warning"
	// Note: what was done (changed, dropped, left out, passed through).
	Note = "note"
)

// A Finding is one thing said about one object.
type Finding struct {
	Severity string `json:"severity"`
	// Kind and Object (namespace/name) name the object; both are empty
	// when the finding is about the document.
	Kind   string `json:"kind,omitempty"`
	Object string `json:"object,omitempty"`
	// Path is the field, in the output's version, when one is named.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Pods are every Pod the finding concerns ("namespace/name"): the
	// message names five at the most.
	Pods []string `json:"pods,omitempty"`
	// Release is the release the finding concerns ("1.33", "1.34+").
	Release string `json:"release,omitempty"`
	// Malformed is set on an error about input whose known fields have
	// the wrong JSON type.
	Malformed bool `json:"-"`
}

// Outcomes of a Verdict, counted in a run's summary.
const (
	Converted = "converted" // a claim, template or class in the target's version
	Rewritten = "rewritten" // a Pod or workload given the target's shape
	Passed    = "passed"    // written unchanged
	LeftOut   = "left out"  // not written: the target has no such object
	Refused   = "refused"   // not written: see the errors
	Valid     = "valid"     // validate: the target accepts it
	Invalid   = "invalid"   // validate: the target rejects it
	Skipped   = "skipped"   // validate: not checked
	// check's stored objects, through an upgrade or a rollback in place:
	Kept        = "kept"        // the target reads and serves it as it is
	Unreachable = "unreachable" // the target cannot read or does not serve it
)

// A Verdict is what becomes of one object for a target.
type Verdict struct {
	Outcome  string
	Object   map[string]interface{} // what to write, unless left out or refused
	Findings []Finding
}

// Warned reports whether a finding is a warning or an error.
func (v Verdict) Warned() bool {
	return slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.Severity != Note })
}
