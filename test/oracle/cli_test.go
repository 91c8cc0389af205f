package oracle

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/claimbridge/claimbridge/cli"
)

// TestValidateCommandAgrees runs every create scenario of the corpus through
// `claimbridge validate -f -`: it must exit 0 exactly when upstream accepts
// the object as kubectl sends it, and 1 when upstream rejects it. kubectl
// puts a manifest without metadata.namespace into its context's namespace,
// and validate checks it as if in "default": upstream is asked about it
// there too.
func TestValidateCommandAgrees(t *testing.T) {
	for _, version := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		var creates, sent []scenario
		for _, s := range loadCorpus(t, version) {
			if s.Op == "create" {
				creates = append(creates, s)
				k := s
				k.Object = asKubectlSends(s.Object)
				sent = append(sent, k)
			}
		}
		for i, a := range runOracle(t, releaseOf[version], sent) {
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

// asKubectlSends is obj as kubectl create sends it: in namespace "default"
// (its context's) when the manifest names none.
func asKubectlSends(obj map[string]interface{}) map[string]interface{} {
	out := deepCopy(obj).(map[string]interface{})
	meta, ok := out["metadata"].(map[string]interface{})
	if !ok {
		return out
	}
	if ns, _ := meta["namespace"].(string); ns == "" {
		meta["namespace"] = "default"
	}
	return out
}
