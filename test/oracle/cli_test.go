package oracle

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/claimbridge/claimbridge/cli"
)

// TestValidateCommandAgrees runs every create scenario of the corpus through
// `claimbridge validate -f -`: it must exit 0 exactly when upstream accepts
// the object, and 1 when upstream rejects it.
func TestValidateCommandAgrees(t *testing.T) {
	for _, version := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		var creates []scenario
		for _, s := range loadCorpus(t, version) {
			if s.Op == "create" {
				creates = append(creates, s)
			}
		}
		for i, a := range runOracle(t, releaseOf[version], creates) {
			s := creates[i]
			t.Run(version+"/"+s.Name, func(t *testing.T) {
				in, err := json.Marshal(s.Object)
				if err != nil {
					t.Fatal(err)
				}
				var out, errOut bytes.Buffer
				code := cli.Main([]string{"validate", "-f", "-"}, bytes.NewReader(in), &out, &errOut)
				want := cli.ExitOK
				if len(a.Errors) > 0 {
					want = cli.ExitInvalid
				}
				if code != want {
					t.Errorf("claimbridge validate exits %d, want %d (upstream %s: %v)\n%s%s", code, want, releaseOf[version], a.Errors, out.String(), errOut.String())
				}
			})
		}
	}
}
