package webhook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxLoggedString bounds each string a log line takes from a request: the
// client chooses them, and whole they could write megabytes of log.
const maxLoggedString = 256

// logString is s, a client's string, for a log line: printable, and cut to
// maxLoggedString bytes with its length. klog writes a value holding a
// newline raw over several lines, so a uid such as "x\n\x1b[2J…" would
// put escape sequences of its choice into an operator's terminal.
func logString(s string) string {
	if len(s) <= maxLoggedString {
		return printable(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", printable(s[:maxLoggedString]), len(s))
}

// printable is s with invalid UTF-8 as U+FFFD and the C0 controls (newline
// and tab included), DEL and the C1 controls as Go escapes them (\n, \x1b,
// \u009b).
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
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

// deniedFields names a denial's causes by reason and field path for its log
// line; their messages quote the object and are logged only at -v=4.
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

// fitWarnings returns warnings as the apiserver will pass them on. They quote
// the client, and kube-apiserver drops one with invalid UTF-8 or a control
// character (apimachinery's net.NewWarningHeader), so each is made printable.
// Over budget, each is cut to 256 runes and the last says how many more.
func fitWarnings(warnings []string) []string {
	warnings = slices.Clone(warnings) // the caller's slice stays as it was
	total := 0
	for i, w := range warnings {
		warnings[i] = printable(w)
		total += utf8.RuneCountInString(warnings[i])
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
