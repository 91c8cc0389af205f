package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// sourcesSeen records the sources (files, standard input) that gave at
// least one object.
type sourcesSeen map[string]bool

func (s sourcesSeen) add(doc manifest.Document) { s[doc.Source] = true }

// noObjects is the error for the first -f argument that gave no object (an
// empty file, a file of comments, a directory of such files): whatever the
// user meant to convert, migrate or validate is not there. It is nil when
// every argument gave one.
func noObjects(filenames []string, seen sourcesSeen) error {
	for _, f := range filenames {
		if f == manifest.Stdin {
			if !seen[f] {
				return fmt.Errorf("no objects in <stdin>")
			}
			continue
		}
		found := false
		for s := range seen {
			// s is f, or a file under the directory f (also ".").
			if rel, err := filepath.Rel(f, s); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("no objects in %s", f)
		}
	}
	return nil
}

// groupTypo is the "did you mean" for an object whose API group is one
// edit (an insertion, deletion, substitution or transposition of
// neighbours) away from resource.k8s.io or resource.claimbridge.dev: no
// cluster serves that group, so the object is rejected. It says what the
// object has and what it probably means; empty for any other object.
func groupTypo(obj map[string]interface{}) string {
	apiVersion, group, version, _, ok := api.TypeOf(obj)
	if !ok || api.IsGroup(group) {
		return ""
	}
	for _, want := range []string{api.UpstreamGroup, api.Group} {
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
