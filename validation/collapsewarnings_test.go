package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCollapseIndexed(t *testing.T) {
	handle := func(i string) string {
		return "stored as v1alpha3: status.allocation.resourceHandles[" + i + "].data: not a JSON object: wrapped"
	}
	for name, tc := range map[string]struct{ in, want []string }{
		"none":   {nil, nil},
		"single": {[]string{handle("0")}, []string{handle("0")}},
		"per-entry-in-order": {
			[]string{"first: a", handle("0"), "middle: b", handle("1"), handle("2")},
			[]string{"first: a", "stored as v1alpha3: status.allocation.resourceHandles[*].data (3 entries): not a JSON object: wrapped", "middle: b"},
		},
		"no-message-after-the-path": {
			[]string{"spec.devices.requests[0].selectors", "spec.devices.requests[1].selectors"},
			[]string{"spec.devices.requests[*].selectors (2 entries)"},
		},
		"same-outer-index-kept": {
			[]string{"spec.devices.requests[1].selectors[0].cel: long", "spec.devices.requests[1].selectors[3].cel: long"},
			[]string{"spec.devices.requests[1].selectors[*].cel (2 entries): long"},
		},
		"different-messages-kept-apart": {
			[]string{"spec.devices.requests[0].count: one", "spec.devices.requests[1].count: two"},
			[]string{"spec.devices.requests[0].count: one", "spec.devices.requests[1].count: two"},
		},
		"identical-said-once": { // as the apiserver does
			[]string{"metadata.finalizers: x", "spec: y", "metadata.finalizers: x"},
			[]string{"metadata.finalizers: x", "spec: y"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, collapseIndexedWarnings(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
