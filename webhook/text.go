package webhook

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

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

// kube-apiserver's budget for the warnings of one response
// (k8s.io/apiserver/pkg/endpoints/filters/warning.go): past 4096 runes in
// all it cuts every warning to 256 runes and drops those that no longer fit,
// without saying so.
const (
	warningBudgetRunes = 4096
	warningItemRunes   = 256
)

// fitWarnings returns warnings as the apiserver will pass them on: each one
// made headerSafe, then unchanged when they fit its budget; otherwise each
// cut to 256 runes (ending in "…") and, when there are more than fit, the
// last place taken by how many more there were, so that nothing disappears
// unannounced.
func fitWarnings(warnings []string) []string {
	copied := false
	for i, w := range warnings {
		if safe := headerSafe(w); safe != w {
			if !copied { // the caller's slice stays as it was
				warnings, copied = append([]string(nil), warnings...), true
			}
			warnings[i] = safe
		}
	}
	total := 0
	for _, w := range warnings {
		total += utf8.RuneCountInString(w)
	}
	if total <= warningBudgetRunes {
		return warnings
	}
	maxItems := warningBudgetRunes / warningItemRunes
	out := make([]string, 0, min(len(warnings), maxItems))
	for i, w := range warnings {
		if len(out) == maxItems-1 && len(warnings)-i > 1 {
			out = append(out, fmt.Sprintf("%d more warnings not shown (the apiserver passes on at most 4 KiB of them): claimbridge validate -f <the object> prints them all", len(warnings)-i))
			break
		}
		if utf8.RuneCountInString(w) > warningItemRunes {
			w = string([]rune(w)[:warningItemRunes-1]) + "…"
		}
		out = append(out, w)
	}
	return out
}

// headerSafe is w as a Warning header can carry it. kube-apiserver drops,
// without a word, a warning that is not valid UTF-8 or holds a control
// character (apimachinery's net.NewWarningHeader), and warnings quote what
// the client wrote (a parametersRef kind with a tab): invalid bytes become
// U+FFFD and control characters their Go escape (\t, \x1b, \u0085).
func headerSafe(w string) string {
	return escapeControls(strings.ToValidUTF8(w, "\uFFFD"))
}
