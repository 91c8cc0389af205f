package conversion

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimbridge/claimbridge/api"
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
func (o operation) MarshalJSON() ([]byte, error) { return encodeJSON(o.wire()) }

// operationJSON is the encoding of an operation (wire): Value is nil for a
// remove without a value, and omitted; else it points to the value, null
// included.
type operationJSON struct {
	Op    string       `json:"op"`
	Path  string       `json:"path"`
	Value *interface{} `json:"value,omitempty"`
}

// wire is what o encodes as. Its Value points into o.
func (o *operation) wire() operationJSON {
	w := operationJSON{Op: o.Op, Path: o.Path}
	if o.Value != nil || o.Op != "remove" {
		w.Value = &o.Value
	}
	return w
}

func (r *restore) empty() bool { return r.Spec == nil && r.Status == nil }

func (r *restore) section(name string) **sectionPatch {
	if name == "spec" {
		return &r.Spec
	}
	return &r.Status
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
	r := parseRestore(raw)
	if r == nil {
		r = &restore{}
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
	return r
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

// appendJSON appends to buf what encodeJSON(r) writes (field order,
// omitempty, operations as their MarshalJSON writes them). It encodes wire
// structs, so encoding/json calls no MarshalJSON and its errors read as its
// own (json: unsupported value: NaN), not wrapped as a MarshalJSON error.
func (r *restore) appendJSON(buf []byte) ([]byte, error) {
	type restoreJSON struct {
		Spec    *sectionJSON `json:"spec,omitempty"`
		Status  *sectionJSON `json:"status,omitempty"`
		Created string       `json:"created,omitempty"`
	}
	return appendJSON(buf, restoreJSON{r.Spec.wire(), r.Status.wire(), r.Created})
}

// sectionJSON is the encoding of a sectionPatch (wire).
type sectionJSON struct {
	Base  string          `json:"base"`
	Patch []operationJSON `json:"patch"`
}

// wire is what sp encodes as; nil for nil.
func (sp *sectionPatch) wire() *sectionJSON {
	if sp == nil {
		return nil
	}
	w := &sectionJSON{Base: sp.Base}
	if sp.Patch != nil {
		w.Patch = make([]operationJSON, len(sp.Patch))
		for i := range sp.Patch {
			w.Patch[i] = sp.Patch[i].wire()
		}
	}
	return w
}

// decodeRestore decodes obj's restore annotation of version without
// removing it; nil when there is none or it does not decode.
func decodeRestore(obj map[string]interface{}, version string) *restore {
	ann := asMap(asMap(obj["metadata"])["annotations"])
	raw, ok := ann[RestoreAnnotation(version)]
	if !ok {
		return nil
	}
	return parseRestore(raw)
}

// parseRestore decodes the value of a restore annotation; nil when it does
// not decode.
func parseRestore(raw interface{}) *restore {
	var r restore
	s, _ := raw.(string)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil
	}
	return &r
}
