package webhook

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
	if utf8.ValidString(w) && strings.IndexFunc(w, unicode.IsControl) < 0 {
		return w
	}
	w = strings.ToValidUTF8(w, "\uFFFD")
	var b strings.Builder
	for _, r := range w {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
