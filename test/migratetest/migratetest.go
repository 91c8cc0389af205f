// Package migratetest runs migrate for tests: its target, and what it
// makes of one object.
package migratetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

// Target is the migration target to (a version or a release).
func Target(t testing.TB, to string) migrate.Target {
	t.Helper()
	target, err := migrate.TargetOf(to)
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// Migrated is what migrate makes of obj for to, with what it changed, or
// its refusal as an error.
func Migrated(t testing.TB, obj map[string]interface{}, to string, opts migrate.Options) (map[string]interface{}, []string, error) {
	t.Helper()
	v := migrate.Migrate(obj, Target(t, to), opts)
	var changed, errs []string
	for _, f := range v.Findings {
		if c, ok := strings.CutPrefix(f.Message, "changed "); ok && f.Severity == report.Note {
			changed = append(changed, c)
		}
		if f.Severity == report.Error {
			errs = append(errs, f.Message)
		}
	}
	if v.Outcome == report.Refused {
		return nil, changed, errors.New(strings.Join(errs, "; "))
	}
	return v.Object, changed, nil
}

// GeneratedForPod reports whether claim was generated for a pod (its
// controller is a Pod).
func GeneratedForPod(claim map[string]interface{}) bool {
	meta, _ := claim["metadata"].(map[string]interface{})
	refs, _ := meta["ownerReferences"].([]interface{})
	for _, r := range refs {
		if ref, _ := r.(map[string]interface{}); ref["kind"] == "Pod" && ref["controller"] == true {
			return true
		}
	}
	return false
}
