package migrate

import (
	"fmt"

	"github.com/claimbridge/claimbridge/conversion"
)

// Target is what re-creating a claim on a release that serves a version
// needs to know about that release.
type Target struct {
	// Releases names the Kubernetes releases that serve the version, for messages.
	Releases string
	// Finalizer is the built-in finalizer those releases put on claims and
	// remove themselves; "" when they have none (1.26).
	Finalizer string
	// Minor is the newest minor release serving the version, whose pods the
	// output must fit (for v1, that of go.mod's k8s.io/api).
	Minor int
	// Oldest is the oldest minor release serving the version, when it is
	// not Minor: pod fields newer than it get a warning (PodFieldWarnings).
	Oldest int
	// Devices is true when the version asks for devices with requests
	// (v1alpha3 and later), into which 1.30 parameters are translated.
	Devices bool
}

// Targets maps each version of conversion.ChainVersions to its release
// facts. A version added to the chain needs a row here (a test checks it).
var Targets = map[string]Target{
	conversion.V1alpha1: {Releases: "1.26", Minor: 26},
	conversion.V1alpha2: {Releases: "1.27–1.30", Minor: 30, Oldest: 27, Finalizer: "dra.k8s.io/delete-protection"},
	conversion.V1alpha3: {Releases: "1.31", Minor: 31, Finalizer: deleteProtection, Devices: true},
	conversion.V1beta1:  {Releases: "1.32", Minor: 32, Finalizer: deleteProtection, Devices: true},
	conversion.V1beta2:  {Releases: "1.33", Minor: 33, Finalizer: deleteProtection, Devices: true},
	conversion.V1:       {Releases: "1.34+", Minor: 36, Oldest: 34, Finalizer: deleteProtection, Devices: true},
}

// deleteProtection is the built-in finalizer of 1.31 and later.
const deleteProtection = "resource.kubernetes.io/delete-protection"

// builtinFinalizer reports whether name is the built-in finalizer of some release.
func builtinFinalizer(name string) bool {
	for _, t := range Targets {
		if t.Finalizer != "" && t.Finalizer == name {
			return true
		}
	}
	return false
}

func targetFor(version string) (Target, error) {
	t, ok := Targets[version]
	if !ok {
		return Target{}, fmt.Errorf("no migration target is defined for version %q", version)
	}
	return t, nil
}
