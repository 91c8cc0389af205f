package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/cluster"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/validation"
)

const checkClaimV1beta1 = `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"gpu","namespace":"team-a"},` +
	`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}]}}}`

// TestCheckSources: each finding names where the object comes from — the
// Helm release with its revision and chart, the live object, what kubectl
// apply last sent — and live objects are judged without what the server
// set, in the target's version.
func TestCheckSources(t *testing.T) {
	o := &checkOptions{validateOptions: validateOptions{to: "1.37", cel: validation.NewCELCache(), Options: report.Options{Format: "json"}}}
	r := o.newReport()
	r.Command = "check"
	h := cluster.HelmRelease{Namespace: "team-a", Name: "gpu", Revision: 2, Chart: "gpu-0.1.0",
		Manifest: "---\n# Source: gpu/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n" +
			"---\n# Source: gpu/templates/claim.yaml\n" + strings.Replace(checkClaimV1beta1, `,"namespace":"team-a"`, "", 1) + "\n"} // in team-a, as helm -n puts it
	if err := o.judgeStream(r, "helm:"+h.String(), h.Manifest, h.Namespace); err != nil {
		t.Fatal(err)
	}
	var live map[string]interface{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaim",`+
		`"metadata":{"name":"gpu","namespace":"team-a","uid":"1","resourceVersion":"7","managedFields":[{"manager":"kubectl"}],`+
		`"annotations":{"kubectl.kubernetes.io/last-applied-configuration":`+jsonString(checkClaimV1beta1)+`}},`+
		`"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}}]}},`+
		`"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"2"}]}}`), &live); err != nil {
		t.Fatal(err)
	}
	if err := o.judgeLive(r, live); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.Write(&out, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Command, Release string
		Summary          map[string]int
		Findings         []struct{ File, Severity, Kind, Object, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	notServed := "apiVersion: Kubernetes 1.37 serves resource.k8s.io/v1, not v1beta1: its apiserver rejects this object"
	type finding struct{ File, Severity, Object, Message string }
	want := []finding{
		{"helm:team-a/gpu@2 (chart gpu-0.1.0)", "error", "team-a/gpu", notServed},
		{"last-applied:ResourceClaim team-a/gpu", "error", "team-a/gpu", notServed},
	}
	var fs []finding
	for _, f := range got.Findings {
		fs = append(fs, finding{f.File, f.Severity, f.Object, f.Message})
	}
	if d := cmp.Diff(want, fs); d != "" || got.Command != "check" || got.Release != "1.37" {
		t.Errorf("command %q, release %q; findings (-want +got):\n%s", got.Command, got.Release, d)
	}
	// The live claim, converted to v1 without its status: valid, no note.
	if d := cmp.Diff(map[string]int{"read": 3, "valid": 1, "invalid": 2, "warned": 0}, got.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	stored := asStored(live, "v1")
	if stored["apiVersion"] != "resource.k8s.io/v1" || stored["status"] != nil || stored["metadata"].(map[string]interface{})["uid"] != nil ||
		len(annotations(stored)) != 0 || annotations(live)[lastApplied] == nil {
		t.Errorf("asStored: %v", stored)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCheckFlagErrors: what check cannot use exits 2 before it reads.
func TestCheckFlagErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--to", "1.99"}, `Error: --to "1.99": not a release (1.26 … 1.37)`},
		{[]string{"check", "--report", "xml"}, `Error: --report "xml": unsupported format`},
		{[]string{"check", "--kubeconfig", missing}, "Error: stat " + missing + ": no such file or directory"},
		{[]string{"check", "prod"}, `Error: unknown command "prod" for "claimbridge check"`},
	} {
		code, stdout, stderr := run(t, "", tt.args...)
		if code != ExitBadInput || stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// TestReleaseAfter: the default target is the release after the
// cluster's; one claimbridge does not know is an error that says what to do.
func TestReleaseAfter(t *testing.T) {
	for release, want := range map[string]string{
		"1.25": "1.26", "1.33": "1.34", "1.36": "1.37",
		"1.37": "error: the cluster runs Kubernetes 1.37; the release after it, 1.38, is not one claimbridge knows (1.26 … 1.37): name a target with --to (--to 1.37 judges by the newest it knows)",
		"2.0":  `error: the cluster's version "2.0" is no Kubernetes 1.x release: name a target with --to`,
	} {
		got, err := releaseAfter(release)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != want {
			t.Errorf("%s: %s, want %s", release, got, want)
		}
	}
}
