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
	// remove themselves; "" when they have none (1.26: only control-plane
	// drivers set their own "<driver>/deletion-protection").
	Finalizer string
	// Minor is the minor version of the release whose pods the version's
	// output must fit: the newest that serves it (for v1, go.mod's
	// k8s.io/api, whose PodSpec the table of podfields_generated.go ends with).
	Minor int
	// Devices is true when the version asks for devices with requests
	// (v1alpha3 and later): 1.30 ResourceClaimParameters can be translated
	// into request selectors, counts and opaque config.
	Devices bool
}

// Targets maps each version of conversion.ChainVersions to its release
// facts. A version added to the chain needs a row here (a test checks it);
// v1beta1, v1beta2 and v1 keep the 1.31 finalizer and device requests.
var Targets = map[string]Target{
	conversion.V1alpha1: {Releases: "1.26", Minor: 26},
	conversion.V1alpha2: {Releases: "1.27–1.30", Minor: 30, Finalizer: "dra.k8s.io/delete-protection"},
	conversion.V1alpha3: {Releases: "1.31", Minor: 31, Finalizer: deleteProtection, Devices: true},
	conversion.V1beta1:  {Releases: "1.32", Minor: 32, Finalizer: deleteProtection, Devices: true},
	conversion.V1beta2:  {Releases: "1.33", Minor: 33, Finalizer: deleteProtection, Devices: true},
	conversion.V1:       {Releases: "1.34+", Minor: 36, Finalizer: deleteProtection, Devices: true},
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
