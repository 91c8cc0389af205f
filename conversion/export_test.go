package conversion

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// InvertibleCounts counts, per direction ("from-to") and section, how often
// CheckInvertibleSteps found the predicate true.
type InvertibleCounts map[string]int

// CheckInvertibleSteps converts obj (a claim or template of version from) to
// version to one
// step at a time. Before each step it evaluates exactInverse for every
// section, then runs the step with and without skipping. It returns an error
// if a section the predicate calls invertible gets a restore patch on the
// full path, or if the two paths differ in the object or the losses. The
// result is the converted object.
func CheckInvertibleSteps(obj map[string]interface{}, from, to string, counts InvertibleCounts) (map[string]interface{}, error) {
	kind := asString(obj["kind"])
	if kind != api.KindClaim && kind != api.KindTemplate {
		return nil, fmt.Errorf("kind %q is not %s or %s", kind, api.KindClaim, api.KindTemplate)
	}
	for i, j := api.VersionIndex(from), api.VersionIndex(to); i != j; {
		next := i + 1
		if j < i {
			next = i - 1
		}
		sf, st := api.ConversionVersions[i], api.ConversionVersions[next]
		probe := api.DeepCopyJSON(obj)
		restoreTo := popRestore(probe, st)
		var exact []string
		for _, name := range sections(kind) {
			if exactInverse(probe, kind, name, sf, st, restoreTo) {
				exact = append(exact, name)
				counts[sf+"-"+st+"/"+name]++
			}
		}
		full, skipped := api.DeepCopyJSON(obj), api.DeepCopyJSON(obj)
		var lossesFull, lossesSkipped []loss
		errFull := stepWith(full, kind, sf, st, &lossesFull, false)
		errSkipped := stepWith(skipped, kind, sf, st, &lossesSkipped, true)
		if (errFull == nil) != (errSkipped == nil) {
			return nil, fmt.Errorf("%s→%s: full path error %v, skipping path error %v", sf, st, errFull, errSkipped)
		}
		if errFull != nil {
			return nil, errFull
		}
		if len(exact) > 0 {
			var r restore
			raw, ok := asMap(asMap(full["metadata"])["annotations"])[api.RestoreAnnotation(sf)]
			before, hadBefore := asMap(asMap(obj["metadata"])["annotations"])[api.RestoreAnnotation(sf)]
			if ok && !(hadBefore && before == raw) { // the step wrote it
				dec := json.NewDecoder(strings.NewReader(asString(raw)))
				dec.UseNumber()
				if err := dec.Decode(&r); err != nil {
					return nil, fmt.Errorf("%s→%s: restore annotation: %w", sf, st, err)
				}
			}
			for _, name := range exact {
				if sp := *r.section(name); sp != nil {
					return nil, fmt.Errorf("%s→%s: %s called invertible, but the full path records %s: %+v\ninput %s",
						sf, st, name, api.RestoreAnnotation(sf), *sp, mustCanonical(obj))
				}
			}
		}
		if !api.EqualJSON(full, skipped) {
			return nil, fmt.Errorf("%s→%s: the skipping path gives a different object:\nfull    %s\nskipped %s", sf, st, mustCanonical(full), mustCanonical(skipped))
		}
		if !reflect.DeepEqual(lossesFull, lossesSkipped) {
			return nil, fmt.Errorf("%s→%s: losses differ: full %v, skipped %v", sf, st, lossesFull, lossesSkipped)
		}
		obj = full
		i = next
	}
	return obj, nil
}

func mustCanonical(v interface{}) string {
	data, err := encodeJSON(v)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// InvertibleDirections lists "from-to/section" for every predicate of
// invertibles.
func InvertibleDirections() []string {
	var out []string
	for d := range invertibles {
		out = append(out, d[0]+"-"+d[1]+"/spec", d[0]+"-"+d[1]+"/status")
	}
	return out
}

// DeepCopyForTest is api.DeepCopyJSON, for tests that check an input is left alone.
func DeepCopyForTest(obj map[string]interface{}) map[string]interface{} { return api.DeepCopyJSON(obj) }

// WithoutStepDefaults returns obj (a claim or template of version) with its
// spec as withoutDefaults gives it; obj is not modified.
func WithoutStepDefaults(obj map[string]interface{}, version string) map[string]interface{} {
	out := maps.Clone(obj)
	if spec, ok := obj["spec"]; ok {
		out["spec"], _ = withoutDefaults("spec", spec, asString(obj["kind"]), version)
	}
	return out
}

// stepWith is doStep with the restore annotation kept; skipInvertible false
// takes the full path for every section (the tests compare both).
func stepWith(obj map[string]interface{}, kind, from, to string, losses *[]loss, skipInvertible bool) error {
	return doStep(obj, kind, from, to, losses, stepOptions{skipInvertible: skipInvertible, keepRestore: true})
}

// encodeJSON is api.AppendJSON of v alone.
func encodeJSON(v interface{}) ([]byte, error) { return api.AppendJSON(nil, v) }
