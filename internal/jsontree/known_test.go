package jsontree

import "testing"

// TestKnownTable checks that every known key and value is found as itself,
// that strings close to them are not, and that no lookup of a known string
// probes more than a few slots.
func TestKnownTable(t *testing.T) {
	all := append(append([]string{}, knownKeys...), knownValues...)
	for _, s := range all {
		e := lookupKnown([]byte(s))
		if e == nil || e.s != s || e.value != s {
			t.Fatalf("lookupKnown(%q) = %+v", s, e)
		}
		probes := 1
		for i := knownHash([]byte(s)); knownTable[i].s != s; i = (i + 1) & (1<<knownBits - 1) {
			probes++
		}
		if probes > 4 {
			t.Errorf("lookupKnown(%q) probes %d slots", s, probes)
		}
	}
	for _, s := range []string{"Kind", "resourceHandlez", "resourceHandle ", "spe", "x", "pods2", "\x00"} {
		if e := lookupKnown([]byte(s)); e != nil {
			t.Errorf("lookupKnown(%q) = %q, want nil", s, e.s)
		}
	}
}
