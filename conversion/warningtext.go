package conversion

import (
	"regexp"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// releaseOf names the Kubernetes releases that serve each version, as the
// warnings of the conversion steps name them.
var releaseOf = map[string]string{
	V1alpha1: "1.26",
	V1alpha2: "1.27–1.30",
	V1alpha3: "1.31",
	V1beta1:  "1.32",
	V1beta2:  "1.33",
	V1:       "1.34+",
}

// Release names the Kubernetes releases that serve version ("1.26",
// "1.27–1.30", "1.31", "1.32", "1.33", "1.34+"); empty for another.
func Release(version string) string { return releaseOf[version] }

// stepRelease matches a release that a step's message names as its target,
// but not as the end of a range (1.26-1.31) nor a prefix of another
// (1.310).
func stepRelease(release string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^-–.0-9])` + regexp.QuoteMeta(release) + `([^0-9+]|$)`)
}

var stepReleases = map[string]*regexp.Regexp{
	V1alpha1: stepRelease(releaseOf[V1alpha1]),
	V1alpha2: stepRelease(releaseOf[V1alpha2]),
	V1alpha3: stepRelease(releaseOf[V1alpha3]),
}

// stepVersions match a version a step's message names as its target ("no
// v1alpha3 equivalent"), but not in an annotation's name (restore-v1alpha3)
// or an apiVersion.
var stepVersions = map[string]*regexp.Regexp{
	V1alpha1: regexp.MustCompile(`(^|[ (])v1alpha1([ ,;:)]|$)`),
	V1alpha2: regexp.MustCompile(`(^|[ (])v1alpha2([ ,;:)]|$)`),
	V1alpha3: regexp.MustCompile(`(^|[ (])v1alpha3([ ,;:)]|$)`),
}

// A 1.26–1.30 claim names one resource class and has no requests: what a
// step to v1alpha3 says of a 1.31 request's device class is said of the
// claim's resource class for the first request, and not at all for the
// others, which such a claim does not have (the next step says so).
var (
	firstRequestClass = strings.NewReplacer("the converted request names no deviceClassName", "the converted claim names no resourceClassName")
	otherRequestClass = strings.NewReplacer("the converted request names no deviceClassName, which a 1.31 apiserver requires, and ", "")
)

// exactlyFields are the fields of a v1alpha3 or v1beta1 request that
// v1beta2 and v1 hold under exactly.
var exactlyFields = regexp.MustCompile(`(\.devices\.requests\[[0-9]+\])\.(deviceClassName|selectors|allocationMode|count|adminAccess|tolerations|capacity)\b`)

// For renders the warning for a conversion to target, as the commands
// print it after the document's position: "<Kind> <object>: <path>:
// <message>", phrased for the release serving target. A step's warning
// names the release of its own target (a v1alpha2 → v1alpha3 step speaks
// of 1.31); converting on past it (--to v1), that release is the target's,
// since what the step lost is lost for the target too. A path of a request
// field that v1beta2 and v1 hold under exactly is given as the target has
// it.
func (w Warning) For(target string) string {
	return w.Kind + " " + w.Object + ": " + w.Text(target)
}

// Text is For without the object: "<path>: <message>".
func (w Warning) Text(target string) string {
	msg, path := w.Message, w.Path
	if w.To == V1alpha3 && (target == V1alpha1 || target == V1alpha2) {
		if strings.Contains(path, ".requests[0].") {
			msg = firstRequestClass.Replace(msg)
		} else {
			msg = otherRequestClass.Replace(msg)
		}
	}
	if w.To != target && releaseOf[target] != "" {
		if re := stepReleases[w.To]; re != nil {
			msg = re.ReplaceAllString(msg, "${1}"+strings.ReplaceAll(releaseOf[target], "$", "$$")+"${2}")
		}
		if re := stepVersions[w.To]; re != nil {
			msg = re.ReplaceAllString(msg, "${1}"+target+"${2}")
		}
	}
	if (target == V1beta2 || target == V1) && api.VersionIndex(w.From) < api.VersionIndex(V1beta2) && api.VersionIndex(w.To) < api.VersionIndex(V1beta2) {
		path = exactlyFields.ReplaceAllString(path, "$1.exactly.$2")
	}
	return path + ": " + msg
}
