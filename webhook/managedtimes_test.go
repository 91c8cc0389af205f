package webhook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/defaulting"
)

// TestStoredManagedFields: an update that, defaulted, is the stored object
// but for managedFields times (an unchanged server-side apply of requests
// without the defaults, which kube-apiserver timed anew and reordered) gets
// the stored managedFields back; any other update keeps its own.
func TestStoredManagedFields(t *testing.T) {
	const (
		team    = `{"manager":"team","operation":"Apply","apiVersion":"resource.claimbridge.dev/v1alpha3","time":"TEAM","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:devices":{"f:requests":{}}}}}`
		labeler = `{"manager":"labeler","operation":"Apply","apiVersion":"resource.claimbridge.dev/v1alpha2","time":"2020-01-01T00:00:02Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:tier":{}}}}}`
		stored  = `[` + labeler + `,` + team + `]`
	)
	claim := func(managedFields, request string) string {
		return `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"7","labels":{"tier":"x"},` +
			`"managedFields":` + managedFields + `},"spec":{"devices":{"requests":[` + request + `]}}}`
	}
	const (
		undefaulted = `{"name":"gpu","deviceClassName":"gpu.example.com"}`
		defaulted   = `{"name":"gpu","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}`
	)
	old := claim(strings.Replace(`[`+team+`,`+labeler+`]`, "TEAM", "2020-01-01T00:00:00Z", 1), defaulted)
	for _, c := range []struct {
		name, obj string
		want      string // the managedFields given back, or "" for none
	}{
		{"an unchanged apply, timed anew and reordered", claim(strings.Replace(stored, "TEAM", "2026-11-25T04:49:10Z", 1), undefaulted),
			`[` + strings.Replace(team, "TEAM", "2020-01-01T00:00:00Z", 1) + `,` + labeler + `]`},
		{"an unchanged apply, timed anew in place", claim(strings.Replace(`[`+team+`,`+labeler+`]`, "TEAM", "2026-11-25T04:49:10Z", 1), undefaulted),
			`[` + strings.Replace(team, "TEAM", "2020-01-01T00:00:00Z", 1) + `,` + labeler + `]`},
		{"managedFields as stored", claim(strings.Replace(`[`+team+`,`+labeler+`]`, "TEAM", "2020-01-01T00:00:00Z", 1), undefaulted), ""},
		{"another request", claim(strings.Replace(stored, "TEAM", "2026-11-25T04:49:10Z", 1), strings.Replace(undefaulted, `"gpu.example.com"`, `"nic.example.com"`, 1)), ""},
		{"another label", strings.Replace(claim(strings.Replace(stored, "TEAM", "2026-11-25T04:49:10Z", 1), undefaulted), `"tier":"x"`, `"tier":"y"`, 1), ""},
		{"a field owned anew", claim(strings.Replace(strings.Replace(stored, "TEAM", "2026-11-25T04:49:10Z", 1), `"f:requests":{}`, `"f:requests":{},"f:config":{}`, 1), undefaulted), ""},
		{"an entry less", claim(`[`+labeler+`]`, undefaulted), ""},
		{"no managedFields", claim(`[]`, undefaulted), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj, err := decodeObject([]byte(c.obj))
			if err != nil {
				t.Fatal(err)
			}
			stored, err := decodeObject([]byte(old))
			if err != nil {
				t.Fatal(err)
			}
			ops := defaulting.Patch(obj, "v1alpha3", "ResourceClaim")
			got := storedManagedFields(obj, stored, ops)
			if c.want == "" {
				if got != nil {
					t.Errorf("gave back managedFields: %+v", got)
				}
				return
			}
			if got == nil {
				t.Fatal("gave back no managedFields")
			}
			if got.Op != "add" || got.Path != "/metadata/managedFields" {
				t.Errorf("operation %s %s, want add /metadata/managedFields", got.Op, got.Path)
			}
			var want, value interface{}
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got.Value)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &value); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, value); d != "" {
				t.Errorf("managedFields given back (-want +got):\n%s", d)
			}
		})
	}
}
