package conversion

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// AnnotationPrefix starts the key of every annotation claimbridge writes.
const AnnotationPrefix = api.AnnotationPrefix

// RestoreAnnotation returns the key of the annotation that carries what
// version cannot hold while the object is shown in another version:
// claimbridge.dev/restore-<version>.
func RestoreAnnotation(version string) string { return api.RestoreAnnotation(version) }

// TotalAnnotationSizeLimitB is the apiserver's limit on the total size of an
// object's annotations (keys and values), as in apimachinery's ObjectMeta
// validation.
const TotalAnnotationSizeLimitB = 256 * 1024

// restore is the content of a restore annotation: for each section of the
// object ("spec", "status"), the patch that turns the section as it is mapped
// back from the other version into the section as it was.
type restore struct {
	Spec   *sectionPatch `json:"spec,omitempty"`
	Status *sectionPatch `json:"status,omitempty"`
	// Created records which metadata containers the annotation itself
	// created, so that they are removed with it: "metadata" or "annotations".
	Created string `json:"created,omitempty"`
}

// sectionPatch is a JSON-Patch-like list of operations on one section. Base
// is the fingerprint of the section it applies to: when the object was
// changed in the other version since, the section no longer matches Base and
// the stale patch is dropped rather than applied to different content.
type sectionPatch struct {
	Base  string      `json:"base"`
	Patch []operation `json:"patch"`
}

// operation is one RFC 6902 operation; only "add", "replace" and "remove" are
// used. Path is an RFC 6901 JSON pointer from the object root.
type operation struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

// MarshalJSON writes o as RFC 6902 has it: an add or replace carries
// "value", null included; a remove has none. (Annotations written before
// left out a null value; reading takes a missing value as null.)
func (o operation) MarshalJSON() ([]byte, error) {
	return o.appendJSON(nil)
}

func (o operation) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"op":`...)
	buf, _ = jsontree.Append(buf, o.Op, false)
	buf = append(buf, `,"path":`...)
	buf, _ = jsontree.Append(buf, o.Path, false)
	if o.Value != nil || o.Op != "remove" {
		buf = append(buf, `,"value":`...)
		var err error
		if buf, err = jsontree.Append(buf, o.Value, false); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

func (r *restore) empty() bool { return r.Spec == nil && r.Status == nil }

func (r *restore) section(name string) **sectionPatch {
	if name == "spec" {
		return &r.Spec
	}
	return &r.Status
}

// diffSection records in r what turns obj[name] as mapped back (base) into
// obj[name] as it is (target).
func (r *restore) diffSection(name string, base interface{}, baseOK bool, target interface{}, targetOK bool) {
	var ops []operation
	path := "/" + name
	switch {
	case !baseOK && !targetOK:
	case !targetOK:
		ops = append(ops, operation{Op: "remove", Path: path})
	case !baseOK:
		ops = append(ops, operation{Op: "add", Path: path, Value: target})
	default: // one pass; a section mapped back exactly gives no operations
		ops = diff(path, base, target, ops)
	}
	if len(ops) > 0 {
		*r.section(name) = &sectionPatch{Base: sectionFingerprint(name, base, baseOK), Patch: ops}
	}
}

// diff appends the operations that turn base into target. Operation values
// share target's containers: a patch is only ever encoded, never modified.
// It walks both trees once, descending into every child both have, and
// builds the paths of differing fields only (from the tokens on the way
// down). Operations come in the order of target's keys (byte-wise), then the
// removals of base's keys target lacks, in key order.
func diff(path string, base, target interface{}, ops []operation) []operation {
	d := differ{ops: ops, tokens: make([]string, 0, 16)}
	d.node(path, base, target)
	return d.ops
}

// differ is diff's walk: tokens are the keys and indices from the
// section's path (root) to the node being compared, escaped only when a
// path is built (most nodes compare equal and need none).
type differ struct {
	ops    []operation
	tokens []string
}

// path is the pointer to the node being compared, from root (the section's
// path) and the tokens.
func (d *differ) path(root string) string {
	n := len(root)
	for _, t := range d.tokens {
		n += 1 + len(t)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(root)
	for _, t := range d.tokens {
		b.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = escapePointer(t)
		}
		b.WriteString(t)
	}
	return b.String()
}

// childPath is the pointer to the node's child at token.
func (d *differ) childPath(root, token string) string {
	d.tokens = append(d.tokens, token)
	p := d.path(root)
	d.tokens = d.tokens[:len(d.tokens)-1]
	return p
}

// segment is the operations a map's child key produced, for putting them in
// key order.
type segment struct {
	key        string
	start, end int
}

// child compares the children of base and target at token.
func (d *differ) child(root, token string, base, target interface{}) {
	d.tokens = append(d.tokens, token)
	d.node(root, base, target)
	d.tokens = d.tokens[:len(d.tokens)-1]
}

func (d *differ) node(root string, base, target interface{}) {
	if sameContainer(base, target) {
		return // shared: equal
	}
	switch b := base.(type) {
	case map[string]interface{}:
		t, ok := target.(map[string]interface{})
		if !ok {
			break
		}
		var small [8]segment
		segs := small[:0]
		sorted := true
		common := 0 // keys of t that b has
		for k, tv := range t {
			start := len(d.ops)
			if bv, ok := b[k]; !ok {
				d.ops = append(d.ops, operation{Op: "add", Path: d.childPath(root, k), Value: tv})
			} else {
				common++
				d.child(root, k, bv, tv)
			}
			if len(d.ops) > start {
				if len(segs) > 0 && segs[len(segs)-1].key > k {
					sorted = false
				}
				segs = append(segs, segment{k, start, len(d.ops)})
			}
		}
		if !sorted {
			d.sortSegments(segs)
		}
		if len(b) > common { // b has keys t lacks
			for _, k := range sortedKeys(b) {
				if _, ok := t[k]; !ok {
					d.ops = append(d.ops, operation{Op: "remove", Path: d.childPath(root, k)})
				}
			}
		}
		return
	case []interface{}:
		t, ok := target.([]interface{})
		if !ok || len(t) != len(b) {
			break
		}
		for i := range t {
			d.child(root, strconv.Itoa(i), b[i], t[i])
		}
		return
	default:
		if equal(base, target) {
			return
		}
	}
	d.ops = append(d.ops, operation{Op: "replace", Path: d.path(root), Value: target})
}

// sortSegments reorders the operations of segs (contiguous, in map order)
// into key order.
func (d *differ) sortSegments(segs []segment) {
	first := segs[0].start           // segments are contiguous, in map order
	for i := 1; i < len(segs); i++ { // insertion sort: a map has few differing keys
		for j := i; j > 0 && segs[j].key < segs[j-1].key; j-- {
			segs[j], segs[j-1] = segs[j-1], segs[j]
		}
	}
	moved := make([]operation, 0, len(d.ops)-first)
	for _, s := range segs {
		moved = append(moved, d.ops[s.start:s.end]...)
	}
	copy(d.ops[first:], moved)
}

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
func (r *restore) applySection(name string, root map[string]interface{}, kind, from, to string) (older bool) {
	sp := *r.section(name)
	if sp == nil {
		return false
	}
	if !wellFormed(name, sp.Patch) {
		return false // not written by diff: shown as mapped, as an undecodable annotation is
	}
	cur, ok := root[name]
	if !matchesBase(name, cur, ok, sp.Base) {
		without, changed := withoutStepDefaults(name, cur, kind, from, to)
		if !changed || !matchesBase(name, without, ok, sp.Base) {
			return false
		}
		root[name], older = without, true
	}
	for _, op := range sp.Patch {
		if ownsPath(name, op.Path) {
			applyOperation(root, op)
		}
	}
	if older {
		root[name] = withUpstreamDefaults(name, root[name], kind, to)
	}
	return older
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
	if m, isMap := v.(map[string]interface{}); isMap && m != nil && name == "status" {
		return fingerprintOf(func(buf []byte) ([]byte, error) {
			return jsontree.AppendObjectOmittingCanonical(buf, m, statusCommonKeys)
		})
	}
	return fingerprint(v, ok)
}

// legacySectionFingerprint is sectionFingerprint as older builds computed
// it, with numbers hashed as written, so that a base they stored still
// applies to the section it was made for. It is computed only when the
// canonical fingerprint does not match.
func legacySectionFingerprint(name string, v interface{}, ok bool) string {
	if m, isMap := v.(map[string]interface{}); isMap && m != nil && name == "status" {
		return fingerprintOf(func(buf []byte) ([]byte, error) {
			return jsontree.AppendObjectOmitting(buf, m, statusCommonKeys, false)
		})
	}
	return legacyFingerprint(v, ok)
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// popRestore removes and decodes the restore annotation of version from
// obj's metadata. An annotation that cannot be decoded (edited by hand) is
// removed and ignored: the object is then shown as mapped.
func popRestore(obj map[string]interface{}, version string) *restore {
	meta := asMap(obj["metadata"])
	ann := asMap(meta["annotations"])
	raw, ok := ann[RestoreAnnotation(version)]
	if !ok {
		return nil
	}
	delete(ann, RestoreAnnotation(version))
	var r restore
	s, _ := raw.(string)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		r = restore{}
	}
	if len(ann) == 0 {
		switch r.Created {
		case "annotations":
			delete(meta, "annotations")
		case "annotations=null":
			meta["annotations"] = nil
		case "metadata":
			delete(meta, "annotations")
			if len(meta) == 0 {
				delete(obj, "metadata")
			}
		case "metadata=null":
			delete(meta, "annotations")
			if len(meta) == 0 {
				obj["metadata"] = nil
			}
		}
	}
	return &r
}

// dropRestore removes the restore annotation of version from obj, an object
// of that version about to be converted away from it. Conversion never
// leaves one there: the step into a version consumes its annotation, and the
// step out of it writes what it records, or nothing. One the object carries
// anyway was written by its client, and kept it would be applied when the
// object comes back to this version: a v1alpha2 claim created with a
// restore-v1alpha2 annotation would, read as v1alpha2 from storage, have
// whatever spec and status the annotation says, none of which validation
// saw; a restore-v1alpha3 annotation on a stored v1alpha3 claim would be
// carried through its v1alpha2 view and applied by that view's next write,
// a label change or a reservation, to the stored spec and status. The
// annotation's "created" record is the client's too and is not followed: an
// annotations map it leaves empty stays.
func dropRestore(obj map[string]interface{}, version string) {
	ann, ok := asMap(obj["metadata"])["annotations"].(map[string]interface{})
	if ok {
		delete(ann, RestoreAnnotation(version))
	}
}

// pushRestore stores r as the restore annotation of version on obj.
func pushRestore(obj map[string]interface{}, version string, r *restore) error {
	rawMeta, present := obj["metadata"]
	meta, ok := rawMeta.(map[string]interface{})
	switch {
	case present && rawMeta != nil && !ok:
		return fmt.Errorf("metadata is not an object, so annotation %s cannot be added", RestoreAnnotation(version))
	case !ok:
		meta = map[string]interface{}{}
		obj["metadata"] = meta
		r.Created = "metadata"
		if present {
			r.Created = "metadata=null"
		}
	}
	rawAnn, present := meta["annotations"]
	ann, ok := rawAnn.(map[string]interface{})
	switch {
	case present && rawAnn != nil && !ok:
		return fmt.Errorf("metadata.annotations is not an object, so annotation %s cannot be added", RestoreAnnotation(version))
	case !ok:
		ann = map[string]interface{}{}
		meta["annotations"] = ann
		if r.Created == "" {
			r.Created = "annotations"
			if present {
				r.Created = "annotations=null"
			}
		}
	}
	bp := fingerprintBuffers.Get().(*[]byte)
	defer fingerprintBuffers.Put(bp)
	data, err := r.appendJSON((*bp)[:0])
	if err != nil {
		return fmt.Errorf("encoding %s: %w", RestoreAnnotation(version), err)
	}
	if cap(data) <= 1<<20 { // keep no buffer a huge annotation grew
		*bp = data[:0]
	}
	ann[RestoreAnnotation(version)] = string(data)
	total := 0
	for k, v := range ann {
		total += len(k) + len(asString(v))
	}
	if total > TotalAnnotationSizeLimitB {
		return fmt.Errorf("annotation %s needs %d bytes, and the annotations would total %d bytes, above the limit of %d bytes",
			RestoreAnnotation(version), len(data), total, TotalAnnotationSizeLimitB)
	}
	return nil
}

// appendJSON appends r as canonicalJSON(r) encodes it (field order,
// omitempty, no HTML escaping), without reflection.
func (r *restore) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, '{')
	first := true
	field := func(name string) {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, '"')
		buf = append(buf, name...)
		buf = append(buf, '"', ':')
	}
	for _, s := range []struct {
		name string
		sp   *sectionPatch
	}{{"spec", r.Spec}, {"status", r.Status}} {
		if s.sp == nil {
			continue
		}
		field(s.name)
		var err error
		if buf, err = s.sp.appendJSON(buf); err != nil {
			return nil, err
		}
	}
	if r.Created != "" {
		field("created")
		buf, _ = jsontree.Append(buf, r.Created, false)
	}
	return append(buf, '}'), nil
}

func (sp *sectionPatch) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"base":`...)
	buf, _ = jsontree.Append(buf, sp.Base, false)
	buf = append(buf, `,"patch":`...)
	if sp.Patch == nil {
		return append(buf, "null}"...), nil
	}
	buf = append(buf, '[')
	for i, op := range sp.Patch {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = op.appendJSON(buf); err != nil {
			return nil, err
		}
	}
	return append(buf, "]}"...), nil
}

// RestoreStatusPaths returns the paths of the status operations in obj's
// restore annotation of version, read as a conversion to version reads them
// (an annotation that does not decode holds nothing), whether or not their
// fingerprint still matches. Validation uses it to tell whether a
// conversion can change what a status check reads (see
// validation/unchanged.go).
func RestoreStatusPaths(obj map[string]interface{}, version string) []string {
	r := decodeRestore(obj, version)
	if r == nil || r.Status == nil {
		return nil
	}
	paths := make([]string, len(r.Status.Patch))
	for i, op := range r.Status.Patch {
		paths[i] = op.Path
	}
	return paths
}

// RestoredSpecFields returns the spec fields that obj's restore annotation
// of version holds: what a conversion back to version adds or replaces,
// because the object's current version cannot hold it. They are field paths
// of version (spec.devices.requests[0].count, spec.spec.parametersRef), in
// the annotation's order. Removals are left out (they restore the absence
// of a field, no content), and so is an annotation that does not decode.
// migrate reports these fields as lost when it drops the annotation.
func RestoredSpecFields(obj map[string]interface{}, version string) []string {
	r := decodeRestore(obj, version)
	if r == nil || r.Spec == nil {
		return nil
	}
	var fields []string
	for _, op := range r.Spec.Patch {
		if op.Op == "remove" {
			continue
		}
		fields = append(fields, fieldPath(op.Path))
	}
	return fields
}

// decodeRestore decodes obj's restore annotation of version without
// removing it; nil when there is none or it does not decode.
func decodeRestore(obj map[string]interface{}, version string) *restore {
	ann := asMap(asMap(obj["metadata"])["annotations"])
	raw, ok := ann[RestoreAnnotation(version)]
	if !ok {
		return nil
	}
	var r restore
	s, _ := raw.(string)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil
	}
	return &r
}

// fieldPath writes a JSON pointer as a field path: /spec/devices/requests/0
// is spec.devices.requests[0]; a key that is not an identifier is written
// as [key], as field.Path.Key does.
func fieldPath(pointer string) string {
	var b strings.Builder
	for i, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = unescapePointer(tok)
		switch {
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		case isIdentifier(tok):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		default:
			b.WriteString("[" + tok + "]")
		}
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.Atoi(s)
	return err == nil && s[0] != '-' && s[0] != '+'
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
