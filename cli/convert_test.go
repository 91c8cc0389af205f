package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/manifest"
)

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), withoutSummary(t, errOut.String())
}

// summaryLine matches the summary a run ends its report with.
var summaryLine = regexp.MustCompile(`(?m)^claimbridge ((convert|migrate): \d+ objects? read: \d+ converted, \d+ rewritten, \d+ passed through, \d+ left out, \d+ warned, \d+ refused|validate: \d+ objects? read: \d+ valid, \d+ invalid, \d+ skipped, \d+ warned)\n`)

// withoutSummary is stderr without its summary line, of which there is at
// most one (TestSummary checks it).
func withoutSummary(t *testing.T, stderr string) string {
	t.Helper()
	if n := len(summaryLine.FindAllString(stderr, -1)); n > 1 {
		t.Errorf("%d summary lines:\n%s", n, stderr)
	}
	return summaryLine.ReplaceAllString(stderr, "")
}

func readObjects(t *testing.T, data string) []map[string]interface{} {
	t.Helper()
	docs, err := manifest.Parse("test", []byte(data))
	if err != nil {
		t.Fatalf("output is not a manifest: %v\n%s", err, data)
	}
	objs := make([]map[string]interface{}, len(docs))
	for i, d := range docs {
		objs[i] = d.Object
	}
	return objs
}

var numbers = cmp.Comparer(func(a, b json.Number) bool { return a.String() == b.String() })

// TestConvertExamplesRoundTrip converts every example to every version and
// back, directly and through the third version, through the command line.
func TestConvertExamplesRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	versions := []string{"v1alpha1", "v1alpha2", "v1alpha3"}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		orig := readObjects(t, string(data))
		from := strings.Split(orig[0]["apiVersion"].(string), "/")[1]
		for _, b := range versions {
			for _, c := range versions {
				if b == from || c == b {
					continue
				}
				t.Run(filepath.Base(file)+"/"+from+"-"+b+"-"+c+"-"+from, func(t *testing.T) {
					cur := string(data)
					path := []string{b, c, from}
					if c == from {
						path = []string{b, from}
					}
					for _, v := range path {
						code, out, stderr := run(t, cur, "convert", "--to", v, "-f", "-")
						if code != 0 {
							t.Fatalf("convert --to %s: exit %d: %s", v, code, stderr)
						}
						cur = out
					}
					if diff := cmp.Diff(orig, readObjects(t, cur), numbers); diff != "" {
						t.Errorf("round trip changed the objects (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}

func TestConvertPassesOtherObjectsThroughInOrder(t *testing.T) {
	in := `apiVersion: v1
kind: ConfigMap
metadata: {name: first}
data: {a: "1"}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {resourceClassName: gpu.example.com}
---
# only a comment
---
apiVersion: resource.k8s.io/v2
kind: ResourceClaim
metadata: {name: newer}
spec: {}
`
	code, out, stderr := run(t, in, "convert", "--to", "v1alpha3", "-f", "-")
	// Written all the same; exit 1: 1.31 rejects the v2 claim.
	if code != ExitInvalid {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	objs := readObjects(t, out)
	if len(objs) != 3 {
		t.Fatalf("got %d objects, want 3:\n%s", len(objs), out)
	}
	want0 := map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": "first"}, "data": map[string]interface{}{"a": "1"}}
	if diff := cmp.Diff(want0, objs[0]); diff != "" {
		t.Errorf("ConfigMap changed (-want +got):\n%s", diff)
	}
	wantSpec := map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
		map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": json.Number("1")}}}}
	if objs[1]["apiVersion"] != "resource.k8s.io/v1alpha3" {
		t.Errorf("claim apiVersion = %v, want resource.k8s.io/v1alpha3 (group kept)", objs[1]["apiVersion"])
	}
	if diff := cmp.Diff(wantSpec, objs[1]["spec"]); diff != "" {
		t.Errorf("claim spec (-want +got):\n%s", diff)
	}
	if objs[2]["apiVersion"] != "resource.k8s.io/v2" {
		t.Errorf("v2 claim was not passed through: %v", objs[2])
	}
	if !strings.Contains(stderr, "passed through unchanged") {
		t.Errorf("no note about the unconvertible claim on stderr: %q", stderr)
	}
}

func TestConvertJSONOutput(t *testing.T) {
	claim := `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"a","namespace":"n"},"spec":{"resourceClassName":"c"}}`
	code, out, stderr := run(t, claim, "convert", "--to", "v1alpha2", "-f", "-", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var one map[string]interface{}
	if err := json.Unmarshal([]byte(out), &one); err != nil || one["kind"] != "ResourceClaim" {
		t.Fatalf("one object must print as itself, got %s (%v)", out, err)
	}
	list := `{"apiVersion":"v1","kind":"List","items":[` + claim + `,{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}]}`
	code, out, stderr = run(t, list, "convert", "--to", "v1alpha2", "-f", "-", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		APIVersion string                   `json:"apiVersion"`
		Kind       string                   `json:"kind"`
		Items      []map[string]interface{} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.APIVersion != "v1" || got.Kind != "List" || len(got.Items) != 2 ||
		got.Items[0]["apiVersion"] != "resource.claimbridge.dev/v1alpha2" || got.Items[1]["kind"] != "Namespace" {
		t.Errorf("several objects must print as a v1 List in order, got %s", out)
	}
}

func TestConvertBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, good, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: n}\nspec: {resourceClassName: c}\n")
	writeFile(t, bad, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n")
	for name, tc := range map[string]struct {
		args     []string
		stdin    string
		code     int
		contains string
	}{
		"yaml-error-names-file-and-document": {args: []string{"-f", good, "-f", bad}, code: ExitBadInput, contains: bad + ": document 2 (line 5)"},
		"missing-file":                       {args: []string{"-f", filepath.Join(dir, "nope.yaml")}, code: ExitBadInput, contains: "Error: " + filepath.Join(dir, "nope.yaml") + ": no such file or directory\n"},
		"not-an-object":                      {args: []string{"-f", "-"}, stdin: "- a\n- b\n", code: ExitBadInput, contains: "<stdin>: document 1 (line 1): expected an object"},
		"no-kind":                            {args: []string{"-f", "-"}, stdin: "apiVersion: v1\n", code: ExitBadInput, contains: `no "kind"`},
		"unknown-version":                    {args: []string{"-f", good, "--to", "v2"}, code: ExitBadInput, contains: `unsupported version`},
		"missing-to":                         {args: []string{"-f", good, "--to", ""}, code: ExitBadInput, contains: "--to is required"},
		"bad-output":                         {args: []string{"-f", good, "-o", "xml"}, code: ExitBadInput, contains: "unsupported output format"},
		"no-filename":                        {args: []string{}, code: ExitBadInput, contains: "-f is required"},
		"stdin-twice":                        {args: []string{"-f", "-", "-f", good, "-f", "-"}, stdin: "apiVersion: v1\nkind: A\n", code: ExitBadInput, contains: `standard input ("-") can be read only once`},
		"metadata-not-an-object":             {args: []string{"-f", "-", "--to", "v1alpha2"}, stdin: "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: 5\nspec: {devices: {requests: [{name: a, deviceClassName: c}, {name: b, deviceClassName: c}]}}\n", code: ExitBadInput, contains: "document 1 (line 1): ResourceClaim (unnamed) is malformed: metadata must be an object, not a number"},
		"file-without-f":                     {args: []string{good}, code: ExitBadInput, contains: "convert takes no arguments: give the input with -f (-f " + good + ")"},
		"url":                                {args: []string{"-f", "https://example.com/claim.yaml"}, code: ExitBadInput, contains: "https://example.com/claim.yaml: URLs are not read"},
		"ga-spec-devices-an-array":           {args: []string{"-f", "-", "--to", "v1alpha3"}, stdin: "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: []}\n", code: ExitBadInput, contains: "document 1 (line 1): ResourceClaim c is malformed: spec.devices must be an object, not an array"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"convert", "--to", "v1alpha3"}, tc.args...)
			code, out, stderr := run(t, tc.stdin, args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if out != "" {
				t.Errorf("stdout must stay empty on failure, got %q", out)
			}
			if !strings.Contains(stderr, tc.contains) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.contains)
			}
		})
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// yamlRoundTrip guards the YAML writer: keys sorted, no document marker
// before the first object.
func TestConvertYAMLStream(t *testing.T) {
	in := "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n"
	code, out, _ := run(t, in, "convert", "--to", "v1alpha1", "-f", "-")
	if code != 0 || out != "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n" {
		t.Errorf("exit %d, output %q", code, out)
	}
	var v interface{}
	if err := yaml.Unmarshal([]byte(out), &v); err != nil {
		t.Error(err)
	}
}

// TestConvertWarnings: losses a consumer of the target release would act on
// are printed on stderr, one line per object and field, with the document;
// stdout is the same with and without --quiet, and the exit code is 0.
func TestConvertWarnings(t *testing.T) {
	const twoDocs = `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: plain, namespace: ns}
spec: {resourceClassName: gpu, allocationMode: WaitForFirstConsumer}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: tpl, namespace: ns}
spec:
  spec:
    resourceClassName: gpu
    allocationMode: Immediate
    parametersRef: {kind: ResourceClaimParameters, name: two-gpus}
`
	code, out, stderr := run(t, twoDocs, "convert", "--to", "v1alpha3", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `<stdin>: document 2 (line 6): warning: ResourceClaimTemplate ns/tpl: spec.spec.parametersRef: ResourceClaimParameters have no v1alpha3 equivalent: a 1.31 scheduler allocates one device of class "gpu" without the parameters' selectors and counts
<stdin>: document 2 (line 6): warning: ResourceClaimTemplate ns/tpl: spec.spec.allocationMode: 1.31 has no allocation mode "Immediate": the claim is allocated only when the first pod that uses it is scheduled
`
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	for _, quiet := range []string{"--quiet", "-q"} {
		qcode, qout, qerr := run(t, twoDocs, "convert", "--to", "v1alpha3", quiet, "-f", "-")
		if qcode != 0 || qerr != want || qout != out { // warnings are never silenced
			t.Errorf("%s: exit %d, stderr %q, stdout changed: %v", quiet, qcode, qerr, qout != out)
		}
	}
	// A conversion that loses nothing prints nothing.
	code, _, stderr = run(t, strings.SplitN(twoDocs, "---\n", 2)[0], "convert", "--to", "v1alpha1", "-f", "-")
	if code != 0 || stderr != "" {
		t.Errorf("plain claim: exit %d, stderr %q", code, stderr)
	}
}

// TestConvertWarnsOfUnknownFields: a field the input's own version does
// not have is kept only in the restore annotation, so the converted object
// does not ask for it; convert says so (found by a walkthrough: a 1.31
// template labelled v1alpha2, as on the 1.31 DRA docs page, converted into a
// template without requests, exit 0, nothing said). A round trip still gives
// the input back. An unknown metadata field is carried as it is, and named
// as what the target's apiserver rejects (kubectl --validate=strict).
func TestConvertWarnsOfUnknownFields(t *testing.T) {
	const in = `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: mislabelled, namespace: ns, carried: 1}
spec:
  spec:
    devices:
      requests: [{name: gpu, deviceClassName: gpu.example.com}]
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimList
items:
- metadata: {name: typo, namespace: ns}
  spec: {resourceClassname: gpu}
`
	code, out, stderr := run(t, in, "convert", "--to", "v1alpha3", "-f", "-")
	if code != ExitInvalid { // what 1.31 rejects: written, exit 1
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `Error: <stdin>: document 1 (line 1): ResourceClaimTemplate ns/mislabelled: metadata.carried: Forbidden: unknown field: a Kubernetes 1.31 apiserver rejects this object
<stdin>: document 1 (line 1): warning: ResourceClaimTemplate ns/mislabelled: spec.spec.devices: unknown field in resource.k8s.io/v1alpha2: kept only in the claimbridge.dev/restore-v1alpha2 annotation, so the converted object does not carry it; spec.devices is the shape of v1alpha3 (Kubernetes 1.31) and later: is the apiVersion right?
<stdin>: document 2 (line 9): warning: ResourceClaim ns/typo: items[0].spec.resourceClassname: unknown field in resource.k8s.io/v1alpha2: kept only in the claimbridge.dev/restore-v1alpha2 annotation, so the converted object does not carry it
`
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	code, back, stderr := run(t, out, "convert", "--to", "v1alpha2", "-f", "-")
	if code != ExitInvalid || strings.Contains(stderr, "kept only") {
		t.Fatalf("back to v1alpha2: exit %d, stderr %q", code, stderr)
	}
	// Back in v1alpha2 it is what it was: what 1.27–1.30 reject.
	if want := "Error: <stdin>: document 1 (line 1): ResourceClaimTemplate ns/mislabelled: spec.spec.devices: Forbidden: unknown field: a Kubernetes 1.27–1.30 apiserver rejects this object\n"; !strings.Contains(stderr, want) {
		t.Errorf("back to v1alpha2: stderr:\n%s\nwant it to contain:\n%s", stderr, want)
	}
	if !strings.Contains(back, "deviceClassName: gpu.example.com") || !strings.Contains(back, "resourceClassname: gpu") {
		t.Errorf("the round trip lost the unknown fields:\n%s", back)
	}
}

// TestConvertMalformed: an object whose known fields have the wrong JSON
// type is refused with exit 2, naming file, document and field path, and
// nothing is written.
func TestConvertMalformed(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "claims.yaml")
	content := `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: ok}
spec: {resourceClassName: gpu}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: bad, namespace: ns}
status:
  reservedFor: {name: pod}
`
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "", "convert", "--to", "v1alpha3", "-f", file)
	if code != ExitBadInput || out != "" {
		t.Fatalf("exit %d (want %d), stdout %q", code, ExitBadInput, out)
	}
	want := file + ": document 2 (line 6): ResourceClaim ns/bad is malformed: status.reservedFor must be an array, not an object"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not contain %q", stderr, want)
	}
}

// TestConvertConsumerMeaning: the 1.30 structured example becomes a 1.31
// scheduler allocation (no controller), and its parametersRef and its
// 1.30 finalizer (by which 1.31 would take the allocation for a classic
// one) are reported.
func TestConvertConsumerMeaning(t *testing.T) {
	code, out, stderr := run(t, "", "convert", "--to", "v1alpha3", "-f", filepath.Join("..", "examples", "claim-v1alpha2.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	objs := readObjects(t, out)
	alloc := objs[0]["status"].(map[string]interface{})["allocation"].(map[string]interface{})
	if c, ok := alloc["controller"]; ok {
		t.Errorf("structured 1.30 allocation got controller %v", c)
	}
	for _, want := range []string{
		"warning: ResourceClaim inference/accel-claim: metadata.finalizers[0]: a 1.31 scheduler and resourceclaim controller recognise a structured allocation by finalizer resource.kubernetes.io/delete-protection",
		"warning: ResourceClaim inference/accel-claim: spec.parametersRef: ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q, want a warning containing %q", stderr, want)
		}
	}
	if n := strings.Count(stderr, "warning:"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, stderr)
	}
}

// TestMistakenClaimsAreRefused: a claim of a version that cannot be a real
// one, or of a misspelt kind, is refused by convert, migrate and validate
// with exit 1, naming the mistake, rather than passed through or skipped
// with exit 0 (found by a walkthrough: migrate ... | kubectl create saw
// success); a later upstream version still passes through (above).
func TestMistakenClaimsAreRefused(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1alpha4
kind: ResourceClaim
metadata: {name: a, namespace: ns}
spec: {}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaims
metadata: {name: b, namespace: ns}
spec: {resourceClassName: gpu}
`
	for _, args := range [][]string{
		{"convert", "--to", "v1alpha3"},
		{"migrate", "--to", "v1"},
		{"validate"},
	} {
		code, out, stderr := run(t, in, append(args, "-f", "-")...)
		if args[0] == "validate" {
			out, stderr = "", out // validate's report is its standard output
		}
		if code != ExitInvalid || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want %d and nothing written", args[0], code, out, ExitInvalid)
		}
		for _, want := range []string{
			`document 1 (line 1): ResourceClaim ns/a: not `, `unsupported version "v1alpha4"`,
			`document 2 (line 6): ResourceClaims ns/b: not `, `(did you mean kind ResourceClaim?)`,
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], want, stderr)
			}
		}
	}
}

// TestMistakenListItemIsRefused: migrate and validate take an item of a
// typed list by its own apiVersion and kind, as kubectl creates it, so a
// misspelt item kind is refused as a document of its own is (exit 1, the
// item named, the kind meant); convert converts the list from the list's
// identity and refuses the item as malformed (exit 2). migrate refused it
// without naming the item or the kind meant (found by a walkthrough).
func TestMistakenListItemIsRefused(t *testing.T) {
	in := `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimList
items:
- {apiVersion: resource.k8s.io/v1alpha2, kind: ResourceClaim, metadata: {name: a, namespace: ns}, spec: {resourceClassName: gpu}}
- {apiVersion: resource.k8s.io/v1alpha2, kind: ResourceClaims, metadata: {name: b, namespace: ns}, spec: {resourceClassName: gpu}}
`
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"migrate", "--to", "v1alpha3"}, ExitInvalid, `Error: <stdin>: document 1 (line 1), items[1]: ResourceClaims ns/b: not converted: ` +
			`kind "ResourceClaims" of resource.k8s.io/v1alpha2 is not converted (only ResourceClaim, ResourceClaimTemplate and their lists) (did you mean kind ResourceClaim?)`},
		{[]string{"validate"}, ExitInvalid, `<stdin>: document 1 (line 1), items[1]: ResourceClaims ns/b: not checked: ` +
			`kind "ResourceClaims" of resource.k8s.io/v1alpha2 is not converted (only ResourceClaim, ResourceClaimTemplate and their lists) (did you mean kind ResourceClaim?)`},
		{[]string{"convert", "--to", "v1alpha3"}, ExitBadInput, `items[1].kind must be a ResourceClaim, not a ResourceClaims`},
	} {
		code, out, stderr := run(t, in, append(tc.args, "-f", "-")...)
		if tc.args[0] == "validate" {
			out, stderr = "", out // validate's report is its standard output
		}
		if code != tc.code || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit %d, nothing written, %q", tc.args[0], code, out, stderr, tc.code, tc.want)
		}
	}
}

// TestTypedListInListPositions: migrate and validate name an item of a
// typed list inside a kind: List by both indices, in refusals and in the
// duplicate warning (which named the list's document only).
func TestTypedListInListPositions(t *testing.T) {
	in := `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: ns}}
- apiVersion: resource.k8s.io/v1alpha2
  kind: ResourceClaimList
  items:
  - {apiVersion: resource.k8s.io/v1alpha2, kind: ResourceClaim, metadata: {name: a, namespace: ns}, spec: {resourceClassName: gpu}}
  - {apiVersion: resource.k8s.io/v1alpha2, kind: ResourceClaim, metadata: {name: a, namespace: ns}, spec: {resourceClassName: gpu}}
`
	code, _, stderr := run(t, in, "migrate", "--to", "v1alpha3", "-f", "-")
	want := "<stdin>: document 1 (line 1), items[1].items[1]: warning: ResourceClaim ns/a: the same object (group, kind, namespace and name) as <stdin>: document 1 (line 1), items[1].items[0]: kubectl create refuses the second; keep one\n"
	if code != ExitOK || !strings.Contains(stderr, want) {
		t.Errorf("migrate: exit %d, stderr:\n%s\nwant 0 and %q", code, stderr, want)
	}
	bad := in + "  - {apiVersion: resource.k8s.io/v1alpha2, kind: ResourceClaims, metadata: {name: b, namespace: ns}, spec: {resourceClassName: gpu}}\n"
	for _, args := range [][]string{{"migrate", "--to", "v1alpha3"}, {"validate"}} {
		code, out, stderr := run(t, bad, append(args, "-f", "-")...)
		if code != ExitInvalid || !strings.Contains(out+stderr, "<stdin>: document 1 (line 1), items[1].items[2]: ResourceClaims ns/b: not ") {
			t.Errorf("%s: exit %d, output:\n%s%s", args[0], code, out, stderr)
		}
	}
}

// TestMistakenOldObjectIsANote: validate --old does not validate its old
// objects, so a mistaken one among them is noted on standard error and the
// valid update still exits 0 (found by a review).
func TestMistakenOldObjectIsANote(t *testing.T) {
	stored := strings.Replace(validClaimYAML, "namespace: ns", "namespace: ns\n  resourceVersion: \"1\"", 1)
	old := writeValidateFile(t, "old.yaml", stored+"---\napiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaims\nmetadata: {name: x, namespace: ns}\n")
	code, out, errOut := runValidate(t, stored, "-f", "-", "--old", old)
	if code != ExitOK || out != "" || !strings.Contains(errOut, "old ResourceClaims ns/x: not checked") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, nothing, a note", code, out, errOut)
	}
}

// TestConvertCarriesUnknownGAFields: between GA versions an unknown field is
// carried as it is, so no warning says it is kept only in an annotation;
// from a GA version to an alpha one it is kept in v1beta1's restore
// annotation, and the warning names that one.
func TestConvertCarriesUnknownGAFields(t *testing.T) {
	in := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: {extra: 2}\n"
	code, out, stderr := run(t, in, "convert", "--to", "v1beta1", "-f", "-")
	// Carried, not kept in an annotation; and named as what 1.32 rejects.
	if code != ExitInvalid || stderr != "Error: <stdin>: document 1 (line 1): ResourceClaim ns/a: spec.extra: Forbidden: unknown field: a Kubernetes 1.32 apiserver rejects this object\n" || !strings.Contains(out, "extra: 2") {
		t.Errorf("to v1beta1: exit %d, stderr %q, stdout:\n%s", code, stderr, out)
	}
	code, out, stderr = run(t, in, "convert", "--to", "v1alpha3", "-f", "-")
	want := "<stdin>: document 1 (line 1): warning: ResourceClaim ns/a: spec.extra: unknown field in resource.k8s.io/v1: kept only in the claimbridge.dev/restore-v1beta1 annotation, so the converted object does not carry it\n"
	if code != ExitOK || stderr != want || !strings.Contains(out, "claimbridge.dev/restore-v1beta1") {
		t.Errorf("to v1alpha3: exit %d, stderr %q (want %q), stdout:\n%s", code, stderr, want, out)
	}
}

// TestAdminAccessNeedsALabelledNamespace: a 1.33+ apiserver with
// DRAAdminAccess on (the default from 1.34) rejects a claim or template
// with adminAccess in a namespace without the admin-access label; convert
// and migrate say so once, in validate's words (found over real objects:
// validate warned, convert and migrate said nothing). 1.32 checks no
// label: nothing is said of one.
func TestAdminAccessNeedsALabelledNamespace(t *testing.T) {
	const (
		pos   = "<stdin>: document 1 (line 1): warning: "
		label = "needs a namespace labeled resource.kubernetes.io/admin-access=true (Kubernetes 1.34+; resource.k8s.io/admin-access=true in 1.33)\n"
		claim = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - {name: a, deviceClassName: gpu, adminAccess: true}
`
		template = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - {name: a, deviceClassName: gpu, adminAccess: true}
`
	)
	on := []string{"--feature-gates", "DRAAdminAccess=true"}
	tests := []struct {
		name, in string
		args     []string
		want     string
	}{
		{"convert-claim-1.33", claim, append([]string{"convert", "--to", "1.33"}, on...), pos + "ResourceClaim ns/c: spec.devices.requests[0].exactly.adminAccess: " + label},
		{"convert-template-1.33", template, append([]string{"convert", "--to", "1.33"}, on...), pos + "ResourceClaimTemplate ns/t: spec.spec.devices.requests[0].exactly.adminAccess: " + label},
		{"migrate-claim-1.33", claim, append([]string{"migrate", "--to", "1.33"}, on...), pos + "ResourceClaim ns/c: spec.devices.requests[0].exactly.adminAccess: " + label},
		{"migrate-template-1.33", template, append([]string{"migrate", "--to", "1.33"}, on...), pos + "ResourceClaimTemplate ns/t: spec.spec.devices.requests[0].exactly.adminAccess: " + label},
		{"validate-claim-1.33", claim, append([]string{"validate", "--to", "1.33"}, on...), pos + "ResourceClaim ns/c: spec.devices.requests[0].adminAccess: " + label},
		{"convert-claim-1.34", claim, []string{"convert", "--to", "1.34"}, pos + "ResourceClaim ns/c: spec.devices.requests[0].exactly.adminAccess: " + label},
		{"migrate-template-1.34", template, []string{"migrate", "--to", "1.34"}, pos + "ResourceClaimTemplate ns/t: spec.spec.devices.requests[0].exactly.adminAccess: " + label},
		// 1.32 keeps adminAccess with the gate on and checks no label.
		{"convert-claim-1.32", claim, append([]string{"convert", "--to", "1.32"}, on...), ""},
		{"convert-template-1.32", template, append([]string{"convert", "--to", "1.32"}, on...), ""},
		{"migrate-claim-1.32", claim, append([]string{"migrate", "--to", "1.32"}, on...), ""},
		{"migrate-template-1.32", template, append([]string{"migrate", "--to", "1.32"}, on...), ""},
		{"validate-claim-1.32", claim, append([]string{"validate", "--to", "1.32"}, on...), ""},
		{"validate-template-1.32", template, append([]string{"validate", "--to", "1.32"}, on...), ""},
		// With the gate off (1.32's and 1.33's default) the field is dropped.
		{"validate-claim-1.32-default", claim, []string{"validate", "--to", "1.32"},
			pos + "ResourceClaim ns/c: spec.devices.requests[0].adminAccess: Kubernetes 1.32 drops it on a create: its DRAAdminAccess feature gate is off by default (on from 1.34)\n"},
		{"convert-claim-1.33-default", claim, []string{"convert", "--to", "1.33"},
			pos + "ResourceClaim ns/c: spec.devices.requests[0].exactly.adminAccess: Kubernetes 1.33 drops it on a create: its DRAAdminAccess feature gate is off by default (on from 1.34)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.in, append(tt.args, "-f", "-")...)
			if code != ExitOK {
				t.Errorf("exit %d", code)
			}
			if d := cmp.Diff(tt.want, stderr); d != "" {
				t.Errorf("%v: stderr (-want +got):\n%s", tt.args, d)
			}
			if strings.Contains(tt.name, "1.32") && strings.Contains(stderr, "admin-access") {
				t.Errorf("a label is named for 1.32:\n%s", stderr)
			}
		})
	}
}
