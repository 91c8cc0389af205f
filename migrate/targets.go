package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation"
)

// Target is what converting or re-creating an object for a release needs
// to know about that release.
type Target struct {
	// Cluster is the release whose rules judge the output and whose pods
	// it must fit (for a version, the newest release serving it), with the
	// feature gates and versions it serves.
	api.Cluster
	// Version is the version written.
	Version string
	// Releases names the Kubernetes releases judged, for messages: "1.33",
	// "1.34+" for --to v1.
	Releases string
	// Oldest is the oldest release serving the version, when it is not
	// Minor: pod fields newer than it get a warning (PodFieldWarnings).
	Oldest int
	// cel keeps the CEL selectors the checks of the output compiled, for
	// the run (compiling one costs about 200 µs).
	cel *validation.CELCache
	// Devices is true when the version asks for devices with requests
	// (v1alpha3 and later), into which 1.30 parameters are translated.
	Devices bool
}

// TargetOf reads --to: a version of api.ConversionVersions, judged by the
// newest release serving it, or a release ("1.33"), which writes the
// version it serves and is judged by its own rules (the release after the
// newest by the newest's, api.ParseNext).
func TargetOf(to string) (Target, error) {
	if r, ok := api.ParseRelease(to); ok {
		return Target{Version: r.Version, Releases: r.String(), Cluster: api.Defaults(r.Minor), Devices: r.Devices(), cel: validation.NewCELCache()}, nil
	}
	if newest, next, ok := api.ParseNext(to); ok {
		t, err := TargetOf(newest.String()) // judged by the newest's rules
		t.Releases = fmt.Sprintf("1.%d", next)
		return t, err
	}
	if !slices.Contains(api.ConversionVersions, to) {
		return Target{}, fmt.Errorf("--to %q: unsupported version or release (supported: %s, %s, %s)",
			to, api.ReleaseRange(), api.Next(), strings.Join(api.ConversionVersions, ", "))
	}
	newest, _ := api.Judge(to)
	t := Target{Version: to, Releases: api.Serving(to), Cluster: api.Defaults(newest.Minor), Devices: newest.Devices(), cel: validation.NewCELCache()}
	if oldest := api.Oldest(to); oldest.Minor != newest.Minor {
		t.Oldest = oldest.Minor
	}
	return t, nil
}

// devicesIn reports whether version asks for devices with requests
// (v1alpha3 and later), as a Target of it does.
func devicesIn(version string) bool {
	judge, _ := api.Judge(version)
	return judge.Devices()
}
