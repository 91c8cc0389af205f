package validation

import (
	"fmt"
	"regexp"
	"strings"
)

// listIndex is a list index in a field path: "[12]".
var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

// collapseIndexedWarnings says once what it would otherwise repeat per list entry:
// warnings that differ only in list indices (one per handle of a 32-handle
// allocation, one per request) become one, with "[*]" for each index that
// differs and the number of entries after the path, "status.allocation.
// resourceHandles[*].data (32 entries): …", in the place of the first;
// identical warnings are said once, as the apiserver does.
// kube-apiserver cuts a response's warnings to 256 characters each and drops
// those beyond 4 KiB in all, so that 32 copies of one would push every other
// warning out; a terminal is spared them as well. Warnings are kept in order.
func collapseIndexedWarnings(warnings []string) []string {
	if len(warnings) < 2 {
		return warnings
	}
	groups := map[string][]string{} // identical texts share one too
	var order []string
	for _, w := range warnings {
		key := listIndex.ReplaceAllString(w, "[*]")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], w)
	}
	if len(order) == len(warnings) {
		return warnings
	}
	out := make([]string, 0, len(order))
	for _, key := range order {
		if members := groups[key]; len(members) == 1 {
			out = append(out, members[0])
		} else {
			out = append(out, collapsed(members))
		}
	}
	return out
}

// collapsed writes members (the same text but for list indices) once: each
// index the same in all of them kept, the others "[*]", and the number of
// distinct members after the path (before the first ": " that follows the
// first "[*]").
func collapsed(members []string) string {
	first := members[0]
	spans := listIndex.FindAllStringIndex(first, -1)
	same := make([]bool, len(spans))
	for i := range spans {
		same[i] = true
	}
	distinct := map[string]bool{}
	for _, m := range members {
		distinct[m] = true
		for i, idx := range listIndex.FindAllString(m, -1) {
			if i < len(spans) && idx != first[spans[i][0]:spans[i][1]] {
				same[i] = false
			}
		}
	}
	var b strings.Builder
	last, star := 0, -1
	for i, sp := range spans {
		b.WriteString(first[last:sp[0]])
		if same[i] {
			b.WriteString(first[sp[0]:sp[1]])
		} else {
			if star < 0 {
				star = b.Len()
			}
			b.WriteString("[*]")
		}
		last = sp[1]
	}
	b.WriteString(first[last:])
	text := b.String()
	if star < 0 {
		return text // identical texts: said once
	}
	note := fmt.Sprintf(" (%d entries)", len(distinct))
	if end := strings.Index(text[star:], ": "); end >= 0 {
		at := star + end
		return text[:at] + note + text[at:]
	}
	return text + note
}
