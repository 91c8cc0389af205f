package validation

import (
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
