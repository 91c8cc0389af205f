package conversion

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

func decodeForTest(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]interface{}
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad test JSON: %v\n%s", err, s)
	}
	return m
}

// TestFingerprintCanonicalNumbers: fingerprints are the same for a section
// as written and as the apiserver stores it, and for a section whose numbers
// are already canonical they are the fingerprints of older builds.
func TestFingerprintCanonicalNumbers(t *testing.T) {
	const stored = `{"allocation":{"a":1,"b":[40,100,2.5,1e-7,1.2345678901234568e+22,0]},"reservedFor":[{"name":"p"}]}`
	want := sectionFingerprint("status", decodeForTest(t, stored), true)
	if legacy := legacySectionFingerprint("status", decodeForTest(t, stored), true); legacy != want {
		t.Errorf("canonical numbers: fingerprint %s, legacy fingerprint %s; want them equal", want, legacy)
	}
	for _, written := range []string{
		`{"allocation":{"a":1.0,"b":[40.0,1e2,2.50,0.0000001,12345678901234567890123,-0.0]}}`,
		`{"allocation":{"a":1e0,"b":[4e1,100.00,25e-1,1e-07,1.2345678901234567e22,0e0]},"reservedFor":[]}`,
	} {
		if got := sectionFingerprint("status", decodeForTest(t, written), true); got != want {
			t.Errorf("fingerprint of %s = %s, want %s (of %s)", written, got, want, stored)
		}
		if legacy := legacySectionFingerprint("status", decodeForTest(t, written), true); legacy == want {
			t.Errorf("legacy fingerprint of %s = %s: numbers as written should hash differently", written, legacy)
		}
	}
	if got, want := fingerprint(appendCanonicalJSON, json.Number("1.0"), true), fingerprint(appendCanonicalJSON, json.Number("1"), true); got != want {
		t.Errorf("fingerprint(1.0) = %s, want fingerprint(1) = %s", got, want)
	}
}

// TestLegacyRestoreBaseStillApplies: a restore annotation written by an
// older build, whose base hashes numbers as written, still applies to the
// section it was made for; a base that matches neither fingerprint is
// stale.
func TestLegacyRestoreBaseStillApplies(t *testing.T) {
	const in = `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},
		"spec":{"resourceClassName":"gpu.example.com","allocationMode":"WaitForFirstConsumer"},
		"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","structuredData":{
			"nodeName":"n1","results":[{"namedResources":{"name":"g0"}}],"vendorClaimParameters":{"memoryGiB":16.0}}}],"shareable":false}}}`
	obj := decodeForTest(t, in)
	converted, err := Convert(api.DeepCopyJSON(obj), api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	// The status as mapped back from v1alpha3, which the base identifies.
	plain := api.DeepCopyJSON(converted)
	delete(asMap(plain["metadata"]), "annotations")
	mappedBack, err := Convert(plain, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	canonical := sectionFingerprint("status", mappedBack["status"], true)
	legacy := legacySectionFingerprint("status", mappedBack["status"], true)
	if canonical == legacy {
		t.Fatalf("the test needs a status with non-canonical numbers: %s", mustCanonical(mappedBack["status"]))
	}

	withBase := func(base string) map[string]interface{} {
		c := api.DeepCopyJSON(converted)
		ann := asMap(asMap(c["metadata"])["annotations"])
		r := popRestore(c, api.V1alpha2)
		if r == nil || r.Status == nil || r.Status.Base != canonical {
			t.Fatalf("restore annotation %v: want a status patch with base %s", ann, canonical)
		}
		r.Status.Base = base
		if err := pushRestore(c, api.V1alpha2, r); err != nil {
			t.Fatal(err)
		}
		return c
	}
	back, err := Convert(withBase(legacy), api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(obj, back, cmp.Comparer(func(a, b json.Number) bool { return a == b })); diff != "" {
		t.Errorf("legacy base: not restored (-want +got):\n%s", diff)
	}

	stale, err := Convert(withBase("0123456789abcdef"), api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	if shareable := asMap(asMap(stale["status"])["allocation"])["shareable"]; shareable != true {
		t.Errorf("stale base: shareable = %v, want the mapped true (patch dropped)", shareable)
	}
}

// TestLegacyFingerprintIsTheOlderBuildsEncoding: the legacy fingerprint of
// a section is the one older builds stored: of its JSON with numbers as
// written and <, > and & not escaped, without reservedFor and
// deallocationRequested for a status.
func TestLegacyFingerprintIsTheOlderBuildsEncoding(t *testing.T) {
	olderBuild := func(v interface{}) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		return hex.EncodeToString(sum[:8])
	}
	const common = `"reservedFor":[{"name":"p"}],"deallocationRequested":true`
	const section = `{"driverName":"a<b>&c","allocation":{"shareable":false,"x":16.0,"y":"<&>"}`
	for _, name := range []string{"spec", "status"} {
		v := decodeForTest(t, section+`}`)
		if name == "status" {
			v = decodeForTest(t, section+`,`+common+`}`)
		}
		if got, want := legacySectionFingerprint(name, v, true), olderBuild(decodeForTest(t, section+`}`)); got != want {
			t.Errorf("legacy fingerprint of the %s = %s, want %s", name, got, want)
		}
	}
}

// TestLegacyFingerprint: the fingerprint of older builds is "" for an
// absent section, the same as fingerprint's where every number is
// canonical (strings without HTML escaping in both), and hashes other
// numbers as written, so that a spec base an older build stored for them
// still matches.
func TestLegacyFingerprint(t *testing.T) {
	canonical := decodeForTest(t, `{"devices":{"requests":[{"name":"r","count":2,"x":"<&>"}]}}`)
	written := decodeForTest(t, `{"devices":{"requests":[{"name":"r","count":2.0,"x":"<&>"}]}}`)
	if got := fingerprint(api.AppendJSON, nil, false); got != "" {
		t.Errorf("legacy fingerprint of an absent section = %q, want \"\"", got)
	}
	if got, want := fingerprint(api.AppendJSON, canonical, true), fingerprint(appendCanonicalJSON, canonical, true); got != want {
		t.Errorf("legacy fingerprint of canonical numbers = %q, want fingerprint's %q", got, want)
	}
	legacy := fingerprint(api.AppendJSON, written, true)
	if legacy == fingerprint(appendCanonicalJSON, written, true) || legacy == fingerprint(api.AppendJSON, canonical, true) {
		t.Errorf("legacy fingerprint of 2.0 = %q: want it to differ from fingerprint's and from that of 2", legacy)
	}
	if !matchesBase("spec", written, true, legacy) {
		t.Errorf("a spec does not match the base an older build computed for it")
	}
	if matchesBase("spec", written, true, "") {
		t.Errorf("a spec matches the base of an absent section")
	}
}

// TestCanonicalNumber: a number not in canonical form is rewritten and
// reported changed; a canonical or invalid one is left as it is.
func TestCanonicalNumber(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		changed  bool
	}{
		{"1", "1", false},
		{"1.0", "1", true},
		{"1e2", "100", true},
		{"-0", "0", true},
		{"0.5", "0.5", false},
		{"x", "x", false},
	} {
		got, changed := canonicalNumber(json.Number(tc.in))
		if string(got) != tc.want || changed != tc.changed {
			t.Errorf("canonicalNumber(%s) = %s, %v; want %s, %v", tc.in, got, changed, tc.want, tc.changed)
		}
	}
}

// TestFingerprintOfAbsentSection: an absent section has the fingerprint "",
// unlike a null one; restore annotations store it as the base of a section
// the object did not have.
func TestFingerprintOfAbsentSection(t *testing.T) {
	if got := fingerprint(appendCanonicalJSON, nil, false); got != "" {
		t.Errorf("fingerprint of an absent section = %q, want \"\"", got)
	}
	if got := fingerprint(appendCanonicalJSON, nil, true); got == "" {
		t.Errorf("fingerprint of a null section = \"\", want a digest")
	}
}
