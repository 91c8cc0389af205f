package validation

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// seenThroughVersion is the version a cross-version finding names.
var seenThroughVersion = regexp.MustCompile(` as seen through (v[0-9]+(?:alpha|beta)?[0-9]*)`)

// mergeAcrossVersions reports once what several views report alike: findings
// of the same type and field whose details differ only in the version they
// are seen through become one, "as seen through v1alpha1 and v1alpha2", in
// the place of the first. (A v1alpha3 write that changes what both older
// versions show would otherwise get the same sentence twice.)
func mergeAcrossVersions(errs field.ErrorList) field.ErrorList {
	if len(errs) < 2 {
		return errs
	}
	type key struct {
		typ          field.ErrorType
		field, shape string
	}
	first := map[key]int{}
	versions := map[int][]string{}
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		m := seenThroughVersion.FindStringSubmatchIndex(e.Detail)
		if m == nil {
			out = append(out, e)
			continue
		}
		k := key{e.Type, e.Field, e.Detail[:m[2]] + "%v" + e.Detail[m[3]:]}
		version := e.Detail[m[2]:m[3]]
		if i, ok := first[k]; ok {
			versions[i] = append(versions[i], version)
			continue
		}
		first[k] = len(out)
		versions[len(out)] = []string{version}
		out = append(out, e)
	}
	if len(out) == len(errs) {
		return errs
	}
	for i, vs := range versions {
		if len(vs) < 2 {
			continue
		}
		e := *out[i]
		m := seenThroughVersion.FindStringSubmatchIndex(e.Detail)
		joined := strings.Join(vs[:len(vs)-1], ", ") + " and " + vs[len(vs)-1]
		e.Detail = e.Detail[:m[2]] + joined + e.Detail[m[3]:]
		out[i] = &e
	}
	return out
}

// listIndex is a list index in a field path: "[12]".
var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

// collapseIndexedWarnings merges warnings that differ only in list indices
// into one, in the place of the first, with "[*]" for each index that
// differs and the count after the path ("handles[*].data (32 entries): …").
// Identical warnings are said once. kube-apiserver keeps only 4 KiB of
// warnings, so 32 copies would push the others out.
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
		out = append(out, collapsed(groups[key])) // one member is itself
	}
	return out
}

// collapsed writes members (the same text but for list indices) once, with
// "[*]" for each index that differs and the count after the path.
func collapsed(members []string) string {
	first := members[0]
	spans := listIndex.FindAllStringIndex(first, -1)
	differs := make([]bool, len(spans))
	distinct := map[string]bool{}
	for _, m := range members {
		distinct[m] = true
		for i, idx := range listIndex.FindAllString(m, -1) {
			if i < len(spans) && idx != first[spans[i][0]:spans[i][1]] {
				differs[i] = true
			}
		}
	}
	var b strings.Builder
	last, star := 0, -1
	for i, sp := range spans {
		b.WriteString(first[last:sp[0]])
		if differs[i] {
			if star < 0 {
				star = b.Len()
			}
			b.WriteString("[*]")
		} else {
			b.WriteString(first[sp[0]:sp[1]])
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
