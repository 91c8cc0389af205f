package conversion

import (
	"fmt"
	"strconv"
	"strings"
)

// applySection applies the patch for section name to root (a kind object
// holding the section as the step from → to mapped it) if the section still
// has the fingerprint the patch was made for. Operations whose parent no
// longer exists are skipped, and so are those outside what the section's
// fingerprint covers (ownsPath).
//
// A patch made by a build that did not yet write the defaults a step adds
// for its target's consumers (see withoutStepDefaults) has the fingerprint of
// the section without them; it is applied to that section, and the defaults
// are then added where the result lacks them: such a build's CRD did not
// default what it stored, so their absence was never the writer's choice,
// and the target release's consumers need them (a 1.26–1.30 scheduler fails
// a claim without an allocation mode). older reports that case: the object
// being converted is then such a build's output.
//
// dropped says why a patch there was is not applied: dropMalformed or
// dropStale ("" when it applied or there was none).
func (r *restore) applySection(name string, root map[string]interface{}, kind, from, to string) (older bool, dropped string) {
	sp := *r.section(name)
	if sp == nil {
		return false, ""
	}
	if !wellFormed(name, sp.Patch) || !patchFits(sp.Patch, objectShape(to, kind)) {
		return false, dropMalformed // not written by diff: shown as mapped, as an undecodable annotation is
	}
	cur, ok := root[name]
	if !matchesBase(name, cur, ok, sp.Base) {
		without, changed := withoutStepDefaults(name, cur, kind, from, to)
		switch {
		case changed && matchesBase(name, without, ok, sp.Base):
			root[name], older = without, true
		case from == V1beta1 && to == V1alpha3:
			// The GA object may have been stored by a 1.32+ apiserver,
			// which writes defaults the converted object lacked.
			without, found := withoutGAStoredDefaults(name, cur, kind, func(s interface{}) bool { return matchesBase(name, s, ok, sp.Base) })
			if !found {
				return false, dropStale
			}
			root[name] = without
		default:
			return false, dropStale
		}
	}
	for _, op := range sp.Patch {
		if ownsPath(name, op.Path) {
			applyOperation(root, op)
		}
	}
	if older {
		root[name] = withUpstreamDefaults(name, root[name], kind, to)
	}
	return older, ""
}

// Why applySection did not apply a section patch.
const (
	dropMalformed = "is not as conversion writes it"
	dropStale     = "was made for another %s than the object has (changed through another version since, or written back by an apiserver that adds defaults and leaves out empty fields, as one of a later release does with a GA version)"
)

// reportDropped reports, as a loss at the annotation, the section patch of
// the restore annotation of version that was not applied (why: dropped),
// naming the fields it would have restored. Not reported: a patch that
// restores no field (only the absence of some), and stale status data: the
// status changes in every version (a 1.31 scheduler's new allocation
// leaves the restore data of the one it replaced behind), so such data
// describes a status the object no longer has. A spec is immutable, so
// stale spec data means the object was rewritten (by an apiserver of a
// later release, or by hand), and malformed data that it was edited.
func (r *restore) reportDropped(name, version, why string, losses *[]loss) {
	if why == dropStale && name == "status" {
		return
	}
	fields := []string{}
	for _, op := range (*r.section(name)).Patch {
		if ownsPath(name, op.Path) && op.Op != "remove" {
			fields = append(fields, fieldPath(op.Path))
		}
	}
	if len(fields) == 0 {
		return
	}
	what := strings.Join(fields, ", ")
	if why == dropStale {
		why = fmt.Sprintf(why, name)
	}
	(&lossReport{losses: losses}).lose(fmt.Sprintf("metadata.annotations[%s].%s", RestoreAnnotation(version), name),
		"its %s data %s and is not applied: what only %s held there is not restored: %s", name, why, version, what)
}

// wellFormed reports whether every operation of a section patch is one diff
// writes: add, replace or remove, on a JSON pointer, and on the section
// itself only an object or null (the section's possible values). A patch
// with any other operation (a client's "test", "move" or "copy", a typo, a
// format this build does not know) is not applied at all, rather than in
// part or with its meaning guessed; a section that is not an object would
// make the converted object malformed.
func wellFormed(name string, patch []operation) bool {
	for _, op := range patch {
		switch {
		case op.Op != "add" && op.Op != "replace" && op.Op != "remove",
			!strings.HasPrefix(op.Path, "/"):
			return false
		case op.Path == "/"+name && op.Op != "remove":
			if _, isMap := op.Value.(map[string]interface{}); !isMap && op.Value != nil {
				return false
			}
		}
	}
	return true
}

// patchFits reports whether every value a patch writes has the JSON type of
// the field it is written to in the target version (s, the object's shape).
// diff writes only values taken from an object of that version, which had
// them; a patch that would make a field of the converted object malformed
// (a forged annotation's number where a string belongs) is not applied at
// all, so that conversion never gives an object its version's decoder
// refuses, nor one the next step cannot map.
func patchFits(patch []operation, s *shape) bool {
	for _, op := range patch {
		if op.Op == "remove" {
			continue
		}
		if !fits(op.Value, shapeAt(s, op.Path)) {
			return false
		}
	}
	return true
}

// shapeAt is the shape of the field at a JSON pointer below s: anyJSON where
// s does not say (an unknown field, a value not looked into).
func shapeAt(s *shape, pointer string) *shape {
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		switch s.typ {
		case "object":
			f, known := s.fields[unescapePointer(tok)]
			if !known {
				return anyJSON
			}
			s = f
		case "map", "array":
			s = s.elem
		default:
			return anyJSON
		}
	}
	return s
}

// ownsPath reports whether a patch of section name may write path: diff
// writes every operation of a section inside it, so one elsewhere was
// written by a client. Applied, a spec patch's operation on /status would
// write the status (the status is mapped after the spec patch is applied,
// so an added /status stays where the object has none), which no view
// check of the write that carried it could see.
func ownsPath(name, path string) bool {
	root := "/" + name
	return path == root || strings.HasPrefix(path, root+"/")
}

// matchesBase reports whether a section has the fingerprint base, as this
// build or an older one computed it.
func matchesBase(name string, v interface{}, ok bool, base string) bool {
	return sectionFingerprint(name, v, ok) == base || legacySectionFingerprint(name, v, ok) == base
}

// sectionFingerprint identifies the content a section patch applies to. For
// the status, the fields that are the same in every version (reservedFor,
// deallocationRequested) are left out: patches never touch them, and
// reserving or requesting deallocation through another version must not make
// the restore data of the allocation stale. Numbers are hashed in canonical
// form (see fingerprint).
func sectionFingerprint(name string, v interface{}, ok bool) string {
	return fingerprint(statusWithoutCommon(name, v), ok)
}

// legacySectionFingerprint is sectionFingerprint as older builds computed
// it, with numbers hashed as written, so that a base they stored still
// applies to the section it was made for. It is computed only when the
// canonical fingerprint does not match.
func legacySectionFingerprint(name string, v interface{}, ok bool) string {
	return legacyFingerprint(statusWithoutCommon(name, v), ok)
}

// statusWithoutCommon is v without statusCommonKeys when it is a status.
func statusWithoutCommon(name string, v interface{}) interface{} {
	if m, isMap := v.(map[string]interface{}); isMap && m != nil && name == "status" {
		return withoutKeys(m, statusCommonKeys...)
	}
	return v
}

func applyOperation(root map[string]interface{}, op operation) {
	tokens := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
	var parent interface{} = root
	for _, tok := range tokens[:len(tokens)-1] {
		parent = child(parent, unescapePointer(tok))
		if parent == nil {
			return
		}
	}
	last := unescapePointer(tokens[len(tokens)-1])
	switch p := parent.(type) {
	case map[string]interface{}:
		if p == nil {
			return // a typed nil map: no parent to write into
		}
		if op.Op == "remove" {
			delete(p, last)
		} else {
			p[last] = deepCopy(op.Value)
		}
	case []interface{}:
		// Array elements are only ever replaced in place (diff replaces
		// arrays of different lengths whole).
		if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(p) && op.Op != "remove" {
			p[i] = deepCopy(op.Value)
		}
	}
}

func child(v interface{}, tok string) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		return v[tok]
	case []interface{}:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
			return v[i]
		}
	}
	return nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
