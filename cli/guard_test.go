package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// TestGuardJudgeIsValidate: the upgrade guard's verdict on each object of
// the repository's manifests and of the gate tests is validate --to's,
// word for word (for 1.38, 1.39 and for 1.35 with gates on): its errors and
// warnings are the messages validate prints after the object's name.
func TestGuardJudgeIsValidate(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	drivers, _ := filepath.Glob("../test/manifests/drivers/*.yaml")
	files = append(files, drivers...)
	gates := filepath.Join(t.TempDir(), "gates.yaml")
	if err := os.WriteFile(gates, []byte(strings.Join([]string{betaClass, splitSlice, distinctClaim, multiClass}, "---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	files = append(files, gates)
	c35 := api.Defaults(35)
	if err := c35.SetFeatureGates("DRAPartitionableDevices=true,DRAConsumableCapacity=true"); err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, target := range []struct {
		cluster api.Cluster
		beyond  int
		args    []string
	}{
		{api.Defaults(38), 0, []string{"--to", "1.38"}},
		{api.Defaults(38), 39, []string{"--to", "1.39"}},
		{c35, 0, []string{"--to", "1.35", "--feature-gates", "DRAPartitionableDevices=true,DRAConsumableCapacity=true"}},
	} {
		for _, file := range files {
			docs, err := manifest.ReadAll([]string{file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range docs {
				errs, warnings := guardJudge(doc.Object, target.cluster, target.beyond)
				data, err := yaml.Marshal(doc.Object)
				if err != nil {
					t.Fatal(err)
				}
				one := writeValidateFile(t, "one.yaml", string(data))
				_, out, errOut := runValidate(t, "", append([]string{"-q", "-f", one}, target.args...)...)
				var want, got []string
				for _, line := range strings.Split(strings.TrimSpace(out+errOut), "\n") {
					if _, msg, ok := strings.Cut(line, "): "); ok && !strings.HasPrefix(msg, "note: ") {
						msg = strings.TrimPrefix(msg, "warning: ")
						_, msg, _ = strings.Cut(msg, ": ") // Kind namespace/name
						want = append(want, msg)
					}
				}
				got = append(errs, warnings...)
				slices.Sort(want)
				slices.Sort(got)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s, %v: %s (-validate +guard):\n%s", file, target.args, api.Describe(doc.Object), d)
				}
				judged++
			}
		}
	}
	if judged < 20 {
		t.Errorf("only %d objects judged", judged)
	}
}
