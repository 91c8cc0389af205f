package defaulting

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decode(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var obj map[string]interface{}
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestPatchKeepsStoredManagedFields: an update that, defaulted, is the
// stored object but for managedFields times (an unchanged server-side
// apply of requests without the defaults, which kube-apiserver timed anew
// and reordered) gets the stored managedFields back; any other update
// keeps its own.
func TestPatchKeepsStoredManagedFields(t *testing.T) {
	const (
		team    = `{"manager":"team","operation":"Apply","apiVersion":"resource.claimbridge.dev/v1alpha3","time":"TEAM","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:devices":{"f:requests":{}}}}}`
		labeler = `{"manager":"labeler","operation":"Apply","apiVersion":"resource.claimbridge.dev/v1alpha2","time":"2020-01-01T00:00:02Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:tier":{}}}}}`
		then    = "2020-01-01T00:00:00Z"
		now     = "2026-11-25T04:49:10Z"
	)
	fields := func(time string, entries ...string) string {
		return strings.Replace(`[`+strings.Join(entries, ",")+`]`, "TEAM", time, 1)
	}
	claim := func(managedFields, request string) string {
		return `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"7","labels":{"tier":"x"},` +
			`"managedFields":` + managedFields + `},"spec":{"devices":{"requests":[` + request + `]}}}`
	}
	const (
		undefaulted = `{"name":"gpu","deviceClassName":"gpu.example.com"}`
		defaulted   = `{"name":"gpu","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}`
		defaults    = `[{"op":"add","path":"/spec/devices/requests/0/allocationMode","value":"ExactCount"},{"op":"add","path":"/spec/devices/requests/0/count","value":1}`
	)
	stored := claim(fields(then, team, labeler), defaulted)
	kept := `,{"op":"add","path":"/metadata/managedFields","value":` + fields(then, team, labeler) + `}`
	tests := map[string]struct {
		obj, old string // old "" for a create
		want     string
	}{
		"unchanged-apply-reordered": {obj: claim(fields(now, labeler, team), undefaulted), old: stored, want: defaults + kept + `]`},
		"unchanged-apply-in-place":  {obj: claim(fields(now, team, labeler), undefaulted), old: stored, want: defaults + kept + `]`},
		"managed-fields-as-stored":  {obj: claim(fields(then, team, labeler), undefaulted), old: stored, want: defaults + `]`},
		"another-request":           {obj: claim(fields(now, labeler, team), strings.Replace(undefaulted, `"gpu.example.com"`, `"nic.example.com"`, 1)), old: stored, want: defaults + `]`},
		"another-label":             {obj: strings.Replace(claim(fields(now, labeler, team), undefaulted), `"tier":"x"`, `"tier":"y"`, 1), old: stored, want: defaults + `]`},
		"a-field-owned-anew":        {obj: claim(strings.Replace(fields(now, labeler, team), `"f:requests":{}`, `"f:requests":{},"f:config":{}`, 1), undefaulted), old: stored, want: defaults + `]`},
		"an-entry-less":             {obj: claim(fields(now, labeler), undefaulted), old: stored, want: defaults + `]`},
		"no-managed-fields":         {obj: claim(`[]`, undefaulted), old: stored, want: defaults + `]`},
		"create":                    {obj: claim(fields(now, team, labeler), undefaulted), want: defaults + `]`},
		"nothing-to-default":        {obj: claim(fields(now, labeler, team), defaulted), old: stored, want: `null`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			oldObject := func() (map[string]interface{}, error) {
				if tc.old == "" {
					return nil, nil
				}
				return decode(t, tc.old), nil
			}
			ops, _, err := Patch(decode(t, tc.obj), oldObject, "v1alpha3", "ResourceClaim")
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(ops)
			if err != nil {
				t.Fatal(err)
			}
			var want, gotValue interface{}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &gotValue); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, gotValue); d != "" {
				t.Errorf("patch (-want +got):\n%s", d)
			}
		})
	}
}

// TestPatchOldObjectError: the stored object is decoded only when needed,
// and its error is returned then.
func TestPatchOldObjectError(t *testing.T) {
	broken := func() (map[string]interface{}, error) { return nil, errors.New("oldObject is empty") }
	undefaulted := decode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"g"}]}}}`)
	if _, _, err := Patch(undefaulted, broken, "v1alpha3", "ResourceClaim"); err == nil || err.Error() != "oldObject is empty" {
		t.Errorf("with defaults to apply: error %v, want the oldObject error", err)
	}
	defaulted := decode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"g","allocationMode":"All"}]}}}`)
	if ops, _, err := Patch(defaulted, broken, "v1alpha3", "ResourceClaim"); err != nil || ops != nil {
		t.Errorf("without defaults: %v %v, want no operations and no error", ops, err)
	}
}
