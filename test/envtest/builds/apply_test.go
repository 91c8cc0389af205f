//go:build envtest

package builds

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
)

// applied is one server-side apply: a field manager's manifest of object
// name, through version, of the main resource or of /status.
type applied struct {
	resource, version, manager, subresource, name, doc string
}

func (a applied) String() string {
	s := fmt.Sprintf("%s's apply of %s through %s", a.manager, a.name, a.version)
	if a.subresource != "" {
		s += " (" + a.subresource + ")"
	}
	return s
}

// appliedManifests are what the managers of a cluster during a roll apply,
// each through its own version, in this order: a 1.26 user's claim and
// template (v1alpha1: Immediate and a parametersRef that v1alpha3 has no
// place for), a 1.31 scheduler's allocation (v1alpha3 status: a pool and
// device v1alpha1 cannot show), a 1.30 user's and driver's claim with a
// structured handle (v1alpha2), a 1.31 user's claim without the defaults
// (v1alpha3: /default adds allocationMode and count to its atomic request
// list), and labelers through the other versions.
var appliedManifests = []applied{
	{claimsResource, "v1alpha1", "team-a", "", "three", `
kind: ResourceClaim
metadata: {name: three, labels: {app: a}}
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
  parametersRef: {apiGroup: gpu.example.com, kind: GpuParams, name: small}
`},
	{claimsResource, "v1alpha3", "scheduler", "status", "three", `
kind: ResourceClaim
metadata: {name: three}
status:
  allocation:
    devices:
      results:
      - {request: request, driver: gpu.example.com, pool: node-a, device: gpu-0}
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`},
	{claimsResource, "v1alpha2", "labeler", "", "three", `
kind: ResourceClaim
metadata: {name: three, labels: {tier: x}}
`},
	{claimsResource, "v1alpha2", "team-b", "", "structured", `
kind: ResourceClaim
metadata: {name: structured, labels: {app: b}}
spec:
  resourceClassName: accel.example.com
  parametersRef: {apiGroup: resource.k8s.io, kind: ResourceClaimParameters, name: two-accelerators}
  allocationMode: WaitForFirstConsumer
`},
	{claimsResource, "v1alpha2", "driver", "status", "structured", `
kind: ResourceClaim
metadata: {name: structured}
status:
  driverName: accel.example.com
  allocation:
    resourceHandles:
    - driverName: accel.example.com
      structuredData:
        nodeName: worker-2
        results:
        - namedResources: {name: accel-0}
    shareable: true
  reservedFor:
  - {resource: pods, name: pod-1, uid: 00000000-0000-4000-8000-000000000002}
`},
	{claimsResource, "v1alpha3", "team-c", "", "defaulted", `
kind: ResourceClaim
metadata: {name: defaulted, labels: {app: c}}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
`},
	{claimsResource, "v1alpha1", "labeler", "", "defaulted", `
kind: ResourceClaim
metadata: {name: defaulted, labels: {tier: x}}
`},
	{templatesResource, "v1alpha1", "team-t", "", "tpl", `
kind: ResourceClaimTemplate
metadata: {name: tpl, labels: {app: t}}
spec:
  spec:
    resourceClassName: gpu.example.com
    allocationMode: Immediate
    parametersRef: {kind: ConfigMap, name: gpu-parameters}
`},
	{templatesResource, "v1alpha3", "labeler", "", "tpl", `
kind: ResourceClaimTemplate
metadata: {name: tpl, labels: {tier: t}}
`},
}

// conflicting are applies by a manager of its own that conflict with the
// appliedManifests' fields, each with the conflict kube-apiserver reports
// with this build. kube-apiserver computes them in the version of each
// manager that owns a field, converting the result to it (through the
// webhook): every build must convert alike for them to name the same
// fields.
var conflicting = []struct {
	apply applied
	want  string
}{
	{applied{claimsResource, "v1alpha2", "team-x", "", "three", `
kind: ResourceClaim
metadata: {name: three, labels: {app: x}}
`}, `Apply failed with 1 conflict: conflict with "team-a": .metadata.labels.app`},
	{applied{claimsResource, "v1alpha3", "team-x", "", "three", `
kind: ResourceClaim
metadata: {name: three}
spec:
  devices:
    requests:
    - {name: request, deviceClassName: other.example.com, allocationMode: ExactCount, count: 1}
`}, "Apply failed with 2 conflicts: conflicts with \"team-a\":\n- .spec.allocationMode\n- .spec.resourceClassName"},
	{applied{claimsResource, "v1alpha1", "team-x", "status", "three", `
kind: ResourceClaim
metadata: {name: three}
status:
  reservedFor:
  - {resource: pods, name: pod-9, uid: 00000000-0000-4000-8000-000000000001}
`}, `Apply failed with 1 conflict: conflict with "scheduler" with subresource "status": .status.reservedFor[uid="00000000-0000-4000-8000-000000000001"].name`},
	{applied{claimsResource, "v1alpha1", "team-x", "", "defaulted", `
kind: ResourceClaim
metadata: {name: defaulted}
spec: {resourceClassName: other.example.com}
`}, `Apply failed with 1 conflict: conflict with "team-c": .spec.devices.requests`},
	{applied{templatesResource, "v1alpha3", "team-x", "", "tpl", `
kind: ResourceClaimTemplate
metadata: {name: tpl, labels: {tier: x}}
`}, `Apply failed with 1 conflict: conflict with "labeler": .metadata.labels.tier`},
}

// applyAs server-side applies a (with force, taking the fields of other
// managers) in namespace ns, retrying a webhook call the proxy cut.
func applyAs(t *testing.T, ns string, a applied, force bool) (*unstructured.Unstructured, error) {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(a.doc), &m); err != nil {
		t.Fatalf("%v: %v", a, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(api.Group + "/" + a.version)
	u.SetNamespace(ns)
	data, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	var subresources []string
	if a.subresource != "" {
		subresources = []string{a.subresource}
	}
	var out *unstructured.Unstructured
	err = retried(func() (err error) {
		out, err = res(a.version, a.resource, ns).Patch(ctxFor(t), a.name, types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: a.manager, Force: &force}, subresources...)
		return err
	})
	return out, err
}

// appliedObjects are the objects appliedManifests write, as fixtures.
func appliedObjects(ns string) []fixture {
	var out []fixture
	seen := map[string]bool{}
	for _, a := range appliedManifests {
		if !seen[a.name] {
			seen[a.name] = true
			u := &unstructured.Unstructured{}
			u.SetNamespace(ns)
			out = append(out, fixture{resource: a.resource, name: a.name, obj: u})
		}
	}
	return out
}

// applyViews reads every applied object through every version, by name.
func applyViews(t *testing.T, ns string) map[string]map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]map[string]*unstructured.Unstructured{}
	for _, f := range appliedObjects(ns) {
		out[f.name] = views(t, f)
	}
	return out
}

// managedEntry is a managedFields entry without its time: what a manager
// owns, through which version, of which subresource.
type managedEntry struct {
	Manager, Operation, APIVersion, Subresource, Fields string
}

// managed are u's managedFields without their times, sorted.
func managed(u *unstructured.Unstructured) []managedEntry {
	var out []managedEntry
	for _, e := range u.GetManagedFields() {
		var fields string
		if e.FieldsV1 != nil {
			fields = e.FieldsV1.GetRawString()
		}
		out = append(out, managedEntry{e.Manager, string(e.Operation), e.APIVersion, e.Subresource, fields})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Manager+"/"+out[i].Subresource < out[j].Manager+"/"+out[j].Subresource
	})
	return out
}

// withoutLabelsAndWrites is u without its labels and what every write
// changes (resourceVersion, generation, managedFields).
func withoutLabelsAndWrites(t *testing.T, u *unstructured.Unstructured) interface{} {
	c := u.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "metadata", "labels")
	return withoutWriteMetadata(t, c)
}

// TestApplyAcrossBuilds: server-side apply by field managers of every
// version while this build and an older one with the defaults serve behind
// the Services, the conversion and the admission each answered by either
// (so also after a rollback to the older build and an upgrade from it), of
// objects either build applied first. Whichever builds answer:
//
//   - every manager's unchanged re-apply, through its own version, is
//     accepted and stores nothing: the object, every version's view and
//     the managedFields (with their times) stay exactly as they were;
//   - the applies that conflict with the managers' fields are refused with
//     the same conflicts, naming the same fields in the owners' versions,
//     and store nothing;
//   - a changed apply (a manager's label, through v1alpha1) changes only
//     that label: every version's view is otherwise as before (the restore
//     annotations, the spec and status no version can show alone), and the
//     managedFields own what they owned, through the same versions.
func TestApplyAcrossBuilds(t *testing.T) {
	for _, older := range withDefaults {
		t.Run(older, func(t *testing.T) { testApplyAcrossBuilds(t, older) })
	}
}

func testApplyAcrossBuilds(t *testing.T, older string) {
	builds := []string{thisBuild, older}
	for _, first := range builds {
		t.Run("applied first by "+first, func(t *testing.T) {
			serve(t, first)
			ns := newNamespace(t, "apply")
			for _, a := range appliedManifests {
				if _, err := applyAs(t, ns, a, false); err != nil {
					t.Fatalf("%v by %s: %s", a, first, describe(err))
				}
			}
			before := applyViews(t, ns)
			for _, conv := range builds {
				for _, admit := range builds {
					t.Run(fmt.Sprintf("converted by %s, admitted by %s", conv, admit), func(t *testing.T) {
						serveSplit(t, conv, admit)
						before = pinTimes(t, ns)
						var want []string
						if admit != thisBuild {
							want = reorderedByOlder
						}
						before = reapplyUnchanged(t, ns, before, want)
						refuseConflicts(t, ns)
						if n := conversion.counts()[replicas[conv]]; n == 0 {
							t.Errorf("no conversion call reached %s", conv)
						}
						if n := admission.counts()[replicas[admit]]; n == 0 {
							t.Errorf("no admission call reached %s", admit)
						}
						if got := applyViews(t, ns); !cmp.Equal(normalize(t, before), normalize(t, got)) {
							t.Errorf("the views read by %s after the unchanged and refused applies differ (-before +after):\n%s", conv, cmp.Diff(normalize(t, before), normalize(t, got)))
						}
						before = relabel(t, ns, before)
					})
				}
			}
		})
	}
}

// reorderedByOlder are the unchanged applies that store the object when
// an older build answers /default, which does not give back the stored
// managedFields (docs/operations.md, "kubectl apply and defaults"):
// team-c's requests without the defaults, after labeler applied (pinTimes).
var reorderedByOlder = []string{"team-c's apply of defaulted through v1alpha3"}

// reapplyUnchanged applies every appliedManifests again, unchanged: each
// answer is the object exactly as before, through the version applied,
// but for those named in stored (by applied.String), which store the
// object with only the managedFields times and order changed. It returns
// the views after.
func reapplyUnchanged(t *testing.T, ns string, before map[string]map[string]*unstructured.Unstructured, stored []string) map[string]map[string]*unstructured.Unstructured {
	t.Helper()
	var got []string
	current := map[string]map[string]*unstructured.Unstructured{}
	for name, v := range before {
		current[name] = v
	}
	for _, a := range appliedManifests {
		out, err := applyAs(t, ns, a, false)
		if err != nil {
			t.Errorf("%v unchanged: %s", a, describe(err))
			continue
		}
		want := current[a.name][a.version]
		if out.GetResourceVersion() != want.GetResourceVersion() {
			got = append(got, a.String())
			if d := cmp.Diff(withoutWriteMetadata(t, want), withoutWriteMetadata(t, out)); d != "" {
				t.Errorf("%v unchanged stored another object (-before +answer):\n%s", a, d)
			}
			if d := cmp.Diff(managed(want), managed(out)); d != "" {
				t.Errorf("%v unchanged stored other managedFields (-before +answer):\n%s", a, d)
			}
			// The next applies to it start from what is stored now.
			f := fixture{resource: a.resource, name: a.name, obj: &unstructured.Unstructured{}}
			f.obj.SetNamespace(ns)
			current[a.name] = views(t, f)
			continue
		}
		if d := cmp.Diff(normalize(t, want.Object), normalize(t, out.Object)); d != "" {
			t.Errorf("%v unchanged answered another object than read before (-before +answer):\n%s", a, d)
		}
	}
	if d := cmp.Diff(stored, got); d != "" {
		t.Errorf("the unchanged applies that stored the object (-want +got):\n%s", d)
	}
	return applyViews(t, ns)
}

// pinTimes sets the managedFields times of the applied objects as if each
// manager had applied a second after the one before it in
// appliedManifests, so that whether an apply reorders them does not depend
// on when the test runs, and returns the views after. (An update that
// changes only managedFields times sets them as sent when it reorders the
// entries; when it does not, kube-apiserver reverts it, and the entries are
// then in the pinned order already, with the times of the applies.)
func pinTimes(t *testing.T, ns string) map[string]map[string]*unstructured.Unstructured {
	t.Helper()
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range appliedObjects(ns) {
		ri := res(api.StorageVersion, f.resource, ns)
		u := get(t, ri, f.name)
		fields := u.GetManagedFields()
		for i, e := range fields {
			at := -1
			for j, a := range appliedManifests {
				if a.name == f.name && a.manager == e.Manager && a.subresource == e.Subresource {
					at = j
					break
				}
			}
			if at < 0 {
				t.Fatalf("%s: managedFields entry of %q (subresource %q) that no applied manifest made", f.name, e.Manager, e.Subresource)
			}
			fields[i].Time = &metav1.Time{Time: base.Add(time.Duration(at) * time.Second)}
		}
		u.SetManagedFields(fields)
		if _, err := writeBack(t, ri, u, false); err != nil {
			t.Fatalf("%s: setting the managedFields times: %s", f.name, describe(err))
		}
	}
	return applyViews(t, ns)
}

// refuseConflicts applies every conflicting apply: each is refused with
// its conflict.
func refuseConflicts(t *testing.T, ns string) {
	t.Helper()
	for _, c := range conflicting {
		_, err := applyAs(t, ns, c.apply, false)
		if err == nil {
			t.Errorf("%v was stored, want the conflict %q", c.apply, c.want)
		} else if err.Error() != c.want {
			t.Errorf("%v: got %s, want the conflict %q", c.apply, describe(err), c.want)
		}
	}
}

// relabel applies team-a's and team-t's manifests (v1alpha1) with another
// label value and then as before: each stores the object, whose every view
// but the labels stays as before, and whose managedFields own the same
// fields through the same versions. It returns the views after.
func relabel(t *testing.T, ns string, before map[string]map[string]*unstructured.Unstructured) map[string]map[string]*unstructured.Unstructured {
	t.Helper()
	for _, a := range appliedManifests {
		if a.manager != "team-a" && a.manager != "team-t" {
			continue
		}
		for _, value := range []string{"relabeled", "restored"} {
			changed := a
			changed.doc = strings.Replace(a.doc, "{app: ", "{app: "+value+"-", 1)
			if value == "restored" {
				changed = a
			}
			if _, err := applyAs(t, ns, changed, false); err != nil {
				t.Errorf("%v with the label %s: %s", a, value, describe(err))
				continue
			}
			f := fixture{resource: a.resource, name: a.name, obj: &unstructured.Unstructured{}}
			f.obj.SetNamespace(ns)
			after := views(t, f)
			for _, v := range api.ServedVersions {
				want, got := before[a.name][v], after[v]
				if d := cmp.Diff(withoutLabelsAndWrites(t, want), withoutLabelsAndWrites(t, got)); d != "" {
					t.Errorf("%v with the label %s: the %s view differs beyond the labels (-before +after):\n%s", a, value, v, d)
				}
				if d := cmp.Diff(managed(want), managed(got)); d != "" {
					t.Errorf("%v with the label %s: managedFields of the %s view (-before +after):\n%s", a, value, v, d)
				}
				if value == "restored" {
					if d := cmp.Diff(want.GetLabels(), got.GetLabels()); d != "" {
						t.Errorf("%v applied again as before: the %s view's labels (-before +after):\n%s", a, v, d)
					}
				}
			}
		}
	}
	return applyViews(t, ns)
}

// TestApplyVersionSwitchAcrossBuilds: a field manager that applied a claim
// through v1alpha1 applies the same claim through v1alpha3 (its manifest
// upgraded) while another manager owns its status. kube-apiserver then
// sends the conversion webhook an object pruned to the manager's old
// fields, without metadata; a build before 44db939 answers it without
// metadata, which kube-apiserver refuses ("missing metadata in converted
// object", a 500) — 0e199e8, the release before this one, is such a build
// (docs/operations.md, "Upgrades and rollbacks"). Whichever build admits
// the apply, it succeeds when this build or bd67635 converts it, and every
// version's spec and status stay as they read.
func TestApplyVersionSwitchAcrossBuilds(t *testing.T) {
	const (
		v1 = `
kind: ResourceClaim
metadata: {name: NAME, labels: {app: u}}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
`
		v3 = `
kind: ResourceClaim
metadata: {name: NAME, labels: {app: u}}
spec:
  devices:
    requests:
    - {name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}
`
		refused = `failed to prune fields: failed add back owned items: failed to convert pruned object at version resource.claimbridge.dev/v1alpha3: ` +
			`conversion webhook for resource.claimbridge.dev/v1alpha1, Kind=ResourceClaim returned invalid metadata: missing metadata in converted object`
	)
	status := appliedManifests[1] // the scheduler's allocation through v1alpha3
	serve(t, thisBuild)
	ns := newNamespace(t, "apply-switch")
	for _, conv := range []string{thisBuild, previousRelease, recent} {
		admits := []string{thisBuild}
		if conv != thisBuild {
			admits = append(admits, conv)
		}
		for _, admit := range admits {
			name := fmt.Sprintf("switch-%s-%s", conv, admit)
			t.Run(fmt.Sprintf("converted by %s, admitted by %s", conv, admit), func(t *testing.T) {
				serve(t, thisBuild)
				first := applied{claimsResource, "v1alpha1", "team-u", "", name, strings.ReplaceAll(v1, "NAME", name)}
				if _, err := applyAs(t, ns, first, false); err != nil {
					t.Fatalf("%v: %s", first, describe(err))
				}
				allocation := status
				allocation.name, allocation.doc = name, strings.ReplaceAll(status.doc, "three", name)
				if _, err := applyAs(t, ns, allocation, false); err != nil {
					t.Fatalf("%v: %s", allocation, describe(err))
				}
				f := fixture{resource: claimsResource, name: name, obj: &unstructured.Unstructured{}}
				f.obj.SetNamespace(ns)
				before := views(t, f)

				serveSplit(t, conv, admit)
				upgraded := applied{claimsResource, "v1alpha3", "team-u", "", name, strings.ReplaceAll(v3, "NAME", name)}
				_, err := applyAs(t, ns, upgraded, false)
				switch {
				case conv == previousRelease:
					if !apierrors.IsInternalError(err) || err.Error() != refused {
						t.Errorf("%v converted by %s: got %v, want the 500 %q", upgraded, conv, err, refused)
					}
				case err != nil:
					t.Errorf("%v: %s", upgraded, describe(err))
				}
				serve(t, thisBuild)
				after := views(t, f)
				for _, v := range api.ServedVersions {
					for _, section := range []string{"spec", "status"} {
						if d := cmp.Diff(normalize(t, before[v].Object[section]), normalize(t, after[v].Object[section])); d != "" {
							t.Errorf("the %s %s changed (-before +after):\n%s", v, section, d)
						}
					}
				}
			})
		}
	}
}
