package conversion

import (
	"slices"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// TestVersionListsAreCopies: the exported version lists are copies, so a
// caller that changes one changes neither api's lists nor what Convert
// accepts.
func TestVersionListsAreCopies(t *testing.T) {
	served, chain := slices.Clone(api.ServedVersions), slices.Clone(api.ConversionVersions)
	saved := [][]string{slices.Clone(Versions), slices.Clone(GAVersions), slices.Clone(ChainVersions)}
	defer func() { copy(Versions, saved[0]); copy(GAVersions, saved[1]); copy(ChainVersions, saved[2]) }()
	for _, l := range [][]string{Versions, GAVersions, ChainVersions} {
		for i := range l {
			l[i] = "changed"
		}
	}
	if !slices.Equal(api.ServedVersions, served) || !slices.Equal(api.ConversionVersions, chain) {
		t.Errorf("api's lists changed: %v, %v", api.ServedVersions, api.ConversionVersions)
	}
	claim := map[string]interface{}{"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "c"}, "spec": map[string]interface{}{"resourceClassName": "gpu"}}
	if _, err := Convert(claim, "v1alpha1"); err != nil {
		t.Errorf("Convert after changing the exported lists: %v", err)
	}
}
