package api

import "fmt"

// GroupTypo is the "did you mean" for an object whose API group is one
// edit (an insertion, deletion, substitution or transposition of
// neighbours) away from resource.k8s.io or resource.claimbridge.dev: no
// cluster serves that group, so the object is rejected. It says what the
// object has and what it probably means; empty for any other object.
func GroupTypo(obj map[string]interface{}) string {
	apiVersion, group, version, _, ok := TypeOf(obj)
	if !ok || IsGroup(group) {
		return ""
	}
	for _, want := range []string{UpstreamGroup, Group} {
		if oneEditApart(group, want) {
			return fmt.Sprintf("apiVersion %q: group %q is not one claimbridge knows: did you mean %s/%s?", apiVersion, group, want, version)
		}
	}
	return ""
}

// oneEditApart reports whether a and b differ by exactly one insertion,
// deletion, substitution or transposition of two neighbouring characters
// (Damerau–Levenshtein distance 1).
func oneEditApart(a, b string) bool {
	if a == b {
		return false
	}
	switch la, lb := len(a), len(b); {
	case la == lb:
		i := 0
		for i < la && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true // a substitution
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case la == lb+1:
		return oneDeletion(a, b)
	case lb == la+1:
		return oneDeletion(b, a)
	}
	return false
}

// oneDeletion reports whether deleting one character of long gives short.
func oneDeletion(long, short string) bool {
	i := 0
	for i < len(short) && long[i] == short[i] {
		i++
	}
	return long[i+1:] == short[i:]
}
