package conversion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// applySection applies the patch of section name to root, as the step
// from → to mapped it, if the section still has the patch's fingerprint.
// Operations whose parent is gone, or outside the section, are skipped.
//
// A patch from an older build that did not write the step's defaults has
// the fingerprint of the section without them. It is applied to that
// section, and the defaults are added back: that build's CRD did not
// default them, and the target's consumers need them. older reports this
// case.
//
// dropped says why a patch was not applied: dropMalformed or dropStale.
func (r *restore) applySection(name string, root map[string]interface{}, kind, from, to string) (older bool, dropped string) {
	sp := *r.section(name)
	if sp == nil {
		return false, ""
	}
	if !wellFormed(name, sp.Patch) || !patchFits(sp.Patch, objectShape(to, kind)) {
		return false, dropMalformed // not written by diff
	}
	cur, ok := root[name]
	if !matchesBase(name, cur, ok, sp.Base) {
		without, changed := withoutStepDefaults(name, cur, kind, from, to)
		switch {
		case changed && matchesBase(name, without, ok, sp.Base):
			root[name], older = without, true
		case from == api.V1beta1 && to == api.V1alpha3:
			// A 1.32+ apiserver may have added defaults when storing it.
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

// reportDropped reports a section patch of version's restore annotation
// that was not applied, naming the fields it would have restored. Stale
// status data is not reported: the status changes legitimately in every
// version. Stale spec data means the object was rewritten, since a spec is
// immutable.
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
	(&lossReport{losses: losses}).lose(fmt.Sprintf("metadata.annotations[%s].%s", api.RestoreAnnotation(version), name),
		"its %s data %s and is not applied: what only %s held there is not restored: %s", name, why, version, what)
}

// wellFormed reports whether every operation of a section patch is one diff
// writes: add, replace or remove on a JSON pointer, writing only an object
// or null to the section itself. Any other patch is not applied at all.
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

// patchFits reports whether every value a patch writes has the JSON type
// its field has in shape s. diff writes only such values, so a patch that
// does not fit is forged and not applied: conversion never writes a
// malformed object.
func patchFits(patch []operation, s *shape) bool {
	return !slices.ContainsFunc(patch, func(op operation) bool { return op.Op != "remove" && !fits(op.Value, shapeAt(s, op.Path)) })
}

// shapeAt is the shape of the field at a JSON pointer below s; anyJSON
// where s does not say.
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

// ownsPath reports whether a patch of section name may write path. diff
// writes only inside the section, so an operation elsewhere is forged; a
// spec patch could otherwise write an unvalidated status.
func ownsPath(name, path string) bool {
	root := "/" + name
	return path == root || strings.HasPrefix(path, root+"/")
}

// matchesBase reports whether a section has the fingerprint base, as this
// build or an older one computed it.
func matchesBase(name string, v interface{}, ok bool, base string) bool {
	return sectionFingerprint(name, v, ok) == base || legacySectionFingerprint(name, v, ok) == base
}

// sectionFingerprint identifies the content a section patch applies to: the
// fingerprint of its CanonicalJSON, whose canonical numbers keep it stable
// when the apiserver rewrites number text. A status is hashed without
// statusCommonKeys, so that reserving a claim through another version does
// not make its restore data stale.
func sectionFingerprint(name string, v interface{}, ok bool) string {
	return fingerprint(appendCanonicalJSON, statusWithoutCommon(name, v), ok)
}

// legacySectionFingerprint is sectionFingerprint as older builds computed
// it, with numbers hashed as written: their stored annotations carry it.
func legacySectionFingerprint(name string, v interface{}, ok bool) string {
	return fingerprint(api.AppendJSON, statusWithoutCommon(name, v), ok)
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
			p[last] = api.DeepCopyJSONValue(op.Value)
		}
	case []interface{}:
		// diff replaces arrays of another length whole.
		if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(p) && op.Op != "remove" {
			p[i] = api.DeepCopyJSONValue(op.Value)
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
