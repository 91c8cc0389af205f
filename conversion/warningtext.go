package conversion

import (
	"regexp"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// stepReleases match the release of a step's target in its message, but
// not as the end of a range (1.26-1.31) nor as a prefix (1.310);
// stepVersions match the version, but not in an annotation's name
// (restore-v1alpha3) or an apiVersion.
var stepReleases, stepVersions = func() (releases, versions map[string]*regexp.Regexp) {
	releases, versions = map[string]*regexp.Regexp{}, map[string]*regexp.Regexp{}
	for _, v := range api.ServedVersions {
		releases[v] = regexp.MustCompile(`(^|[^-–.0-9])` + regexp.QuoteMeta(api.Serving(v)) + `([^0-9+]|$)`)
		versions[v] = regexp.MustCompile(`(^|[ (])` + v + `([ ,;:)]|$)`)
	}
	return releases, versions
}()

// A 1.26–1.30 claim names one resource class and has no requests: what a
// step to v1alpha3 says of a 1.31 request's device class is said of the
// claim's resource class for the first request, and not at all for the
// others, which such a claim does not have (the next step says so).
var (
	firstRequestClass = strings.NewReplacer("the converted request names no deviceClassName", "the converted claim names no resourceClassName")
	otherRequestClass = strings.NewReplacer("the converted request names no deviceClassName, which a 1.31 apiserver requires, and ", "")
)

// exactlyFields match a path to a field of api.ExactRequestFields in a
// v1alpha3 or v1beta1 request.
var exactlyFields = regexp.MustCompile(`(\.devices\.requests\[[0-9]+\])\.(` + strings.Join(api.ExactRequestFields, "|") + `)\b`)

// Text renders the warning for a conversion to target as "<path>:
// <message>". A step's message names its own target's release; here it
// names target's, since what the step lost is lost for target too. A
// request field's path is given as target has it.
func (w Warning) Text(target string) string {
	msg, path := w.Message, w.Path
	if w.To == api.V1alpha3 && (target == api.V1alpha1 || target == api.V1alpha2) {
		if strings.Contains(path, ".requests[0].") {
			msg = firstRequestClass.Replace(msg)
		} else {
			msg = otherRequestClass.Replace(msg)
		}
	}
	if w.To != target && api.Serving(target) != "" {
		if re := stepReleases[w.To]; re != nil {
			msg = re.ReplaceAllString(msg, "${1}"+strings.ReplaceAll(api.Serving(target), "$", "$$")+"${2}")
		}
		if re := stepVersions[w.To]; re != nil {
			msg = re.ReplaceAllString(msg, "${1}"+target+"${2}")
		}
	}
	if (target == api.V1beta2 || target == api.V1) && api.VersionIndex(w.From) < api.VersionIndex(api.V1beta2) && api.VersionIndex(w.To) < api.VersionIndex(api.V1beta2) {
		path = exactlyFields.ReplaceAllString(path, "$1.exactly.$2")
	}
	return path + ": " + msg
}
