package webhook

import (
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxLoggedString bounds each string a log line takes from a request: the
// request's fields are its client's to choose, and logged whole they would
// let one request write megabytes of log (and hold them in memory while the
// line is built).
const maxLoggedString = 256

// logString is s for a log line: valid UTF-8, at most maxLoggedString
// bytes of it, and its length when cut, with every control character
// escaped as Go escapes it (\n, \x1b, \u009b). klog's text format quotes a
// value, escaping its controls, only when it has no newline: one with a
// newline is written raw over several lines, so that a uid sent as
// "x\n\x1b[2J…" would put the escape sequences of its choice into the log
// that an operator reads in a terminal (kubectl logs).
func logString(s string) string {
	if len(s) <= maxLoggedString {
		return escapeControls(strings.ToValidUTF8(s, "\uFFFD"))
	}
	return fmt.Sprintf("%s… (%d bytes)", escapeControls(strings.ToValidUTF8(s[:maxLoggedString], "\uFFFD")), len(s))
}

// escapeControls escapes the C0 controls (newline and tab included), DEL and
// the C1 controls of s, valid UTF-8.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// maxLoggedCauses bounds the causes a denial's log line names.
const maxLoggedCauses = 8

// deniedFields names what a denial found, for its log line: each cause's
// reason and field path, not its message, which quotes the object's values
// (object contents are not logged; -v=4 logs the message).
func deniedFields(st *metav1.Status) []string {
	if st == nil || st.Details == nil {
		return nil
	}
	var out []string
	for i, c := range st.Details.Causes {
		if i == maxLoggedCauses {
			out = append(out, fmt.Sprintf("… (%d causes)", len(st.Details.Causes)))
			break
		}
		out = append(out, logString(string(c.Type)+" "+c.Field))
	}
	return out
}
