package conversion

import (
	"regexp"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// stepRelease matches release in a step's message, but not as the end of
// a range (1.26-1.31) nor as a prefix (1.310).
func stepRelease(release string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^-–.0-9])` + regexp.QuoteMeta(release) + `([^0-9+]|$)`)
}

var stepReleases = map[string]*regexp.Regexp{
	api.V1alpha1: stepRelease(api.Serving(api.V1alpha1)),
	api.V1alpha2: stepRelease(api.Serving(api.V1alpha2)),
	api.V1alpha3: stepRelease(api.Serving(api.V1alpha3)),
}

// stepVersions match a version in a step's message, but not in an
// annotation's name (restore-v1alpha3) or an apiVersion.
var stepVersions = map[string]*regexp.Regexp{
	api.V1alpha1: regexp.MustCompile(`(^|[ (])v1alpha1([ ,;:)]|$)`),
	api.V1alpha2: regexp.MustCompile(`(^|[ (])v1alpha2([ ,;:)]|$)`),
	api.V1alpha3: regexp.MustCompile(`(^|[ (])v1alpha3([ ,;:)]|$)`),
}

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

// For renders the warning for a conversion to target as "<Kind> <object>:
// <path>: <message>". A step's message names its own target's release; here
// it names target's, since what the step lost is lost for target too. A
// request field's path is given as target has it.
func (w Warning) For(target string) string {
	return w.Kind + " " + w.Object + ": " + w.Text(target)
}

// Text is For without the object: "<path>: <message>".
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
