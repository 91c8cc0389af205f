package webhook

import (
	"fmt"
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

// fitWarnings returns warnings as the apiserver will pass them on: unchanged
// when they fit its budget; otherwise each cut to 256 runes (ending in "…")
// and, when there are more than fit, the last place taken by how many more
// there were, so that nothing disappears unannounced.
func fitWarnings(warnings []string) []string {
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
