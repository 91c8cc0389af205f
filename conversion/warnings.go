package conversion

import (
	"fmt"
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// Warning says that a conversion kept a field only in a restore annotation
// (or in a claimbridge-specific shape) although the consumers of the target
// release — scheduler, kubelet, DRA drivers — would have acted on it: the
// converted object means less to them than the original meant to the
// consumers of the source release.
type Warning struct {
	// Kind and Object (namespace/name, or "(unnamed)") name the object.
	Kind, Object string
	// From and To are the versions of the conversion step that lost the
	// field; a conversion across two steps reports each step's losses.
	From, To string
	// Path is the field path in the From version, for example
	// spec.parametersRef or status.allocation.resourceHandles[1] (in a
	// list, prefixed by items[i]).
	Path string
	// Message says what the consumers of To miss.
	Message string
}

// String is w on one line: "<Kind> <object>: <path>: <message> (<from>→<to>)".
func (w Warning) String() string {
	return fmt.Sprintf("%s %s: %s: %s (%s→%s)", w.Kind, w.Object, w.Path, w.Message, w.From, w.To)
}

// ConvertWithWarnings is Convert, and also returns one Warning per object
// and field whose meaning the target version's consumers do not see (see
// docs/conversion.md, "Warnings"). A conversion that loses nothing returns
// no warnings.
func ConvertWithWarnings(obj map[string]interface{}, toVersion string) (map[string]interface{}, []Warning, error) {
	var ws []Warning
	out, err := convert(obj, toVersion, &ws, false, false)
	if err != nil {
		return nil, nil, err
	}
	return out, ws, nil
}

// Losses returns the warnings ConvertWithWarnings returns, at about half the
// cost: it maps each section forward only and keeps no restore data for the
// versions passed through. Its error is the conversion's, except that a
// conversion whose restore annotations would exceed the annotation size
// limit is not refused (that limit applies to the data Losses does not
// build). obj is not modified. TestLossesMatchConvertWithWarnings keeps
// the warnings identical.
func Losses(obj map[string]interface{}, toVersion string) ([]Warning, error) {
	var ws []Warning
	if _, err := convert(obj, toVersion, &ws, true, true); err != nil {
		return nil, err
	}
	return ws, nil
}

// lossReport collects the losses a mapping function notices. A report
// without losses (Convert), or a nil report (when a step maps back to
// compute the restore annotation), collects nothing, so mappings call it
// unconditionally.
//
// The report also says whether a mapping may share values with its input
// (see copy): only when it maps back, because the section mapped back is
// only compared and hashed, never stored or modified.
type lossReport struct {
	prefix string
	losses *[]loss
	// share: the forward mapping may share values with its input (see
	// stepOptions.share).
	share bool
}

// copy returns a deep copy of v for a mapping's output, or v itself when the
// mapping maps back (r is nil) or may share (r.share). What copy returns is
// only ever placed into the output, never modified.
func (r *lossReport) copy(v interface{}) interface{} {
	if r == nil || r.share {
		return v
	}
	return api.DeepCopyJSONValue(v)
}

// copyKeys copies the named keys that are present in from into to, with
// r.copy (silentReport.copyKeys copies deeply).
func (r *lossReport) copyKeys(to, from map[string]interface{}, keys ...string) {
	for _, k := range keys {
		if v, ok := from[k]; ok {
			to[k] = r.copy(v)
		}
	}
}

type loss struct{ path, message string }

// silentReport is the report of a forward mapping whose losses are not
// collected: it copies like any report and records nothing. It is shared
// and never modified.
var silentReport = &lossReport{}

// silentSharedReport is silentReport for a mapping that may share values
// with its input.
var silentSharedReport = &lossReport{share: true}

// reporting reports whether lose records anything: the mappings build the
// paths of fields they may lose only then (a webhook converts without
// collecting warnings, and a mapping back never reports).
func (r *lossReport) reporting() bool { return r != nil && r.losses != nil }

// lose records that the field at path (relative to the report's section)
// does not reach the target release's consumers.
func (r *lossReport) lose(path, format string, args ...interface{}) {
	if r == nil || r.losses == nil {
		return
	}
	p := r.prefix
	switch {
	case p == "":
		p = path // a report rooted at the object
	case path != "":
		p += "." + path
	}
	if slices.ContainsFunc(*r.losses, func(l loss) bool { return l.path == p }) {
		return // one warning per object and field
	}
	*r.losses = append(*r.losses, loss{path: p, message: fmt.Sprintf(format, args...)})
}

// at returns a report for the section under path.
func (r *lossReport) at(path string) *lossReport {
	if !r.reporting() {
		return r // records nothing: the prefix is never read
	}
	return &lossReport{prefix: r.prefix + "." + path, losses: r.losses, share: r.share}
}
