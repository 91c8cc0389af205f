package conversion

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// TotalAnnotationSizeLimitB is the apiserver's limit on the total size of an
// object's annotations.
const TotalAnnotationSizeLimitB = 256 * 1024

// restore is the content of a restore annotation: per section, the patch
// that turns the section as mapped back into the section as it was.
type restore struct {
	Spec   *sectionPatch `json:"spec,omitempty"`
	Status *sectionPatch `json:"status,omitempty"`
	// Created names the metadata container the annotation created, to be
	// removed with it.
	Created string `json:"created,omitempty"`
}

// sectionPatch is a JSON-Patch-like list of operations on one section. Base
// is the fingerprint of the section it applies to: a patch whose section
// changed since is dropped, not applied to different content.
type sectionPatch struct {
	Base  string      `json:"base"`
	Patch []operation `json:"patch"`
}

// operation is one RFC 6902 add, replace or remove. Path is a JSON pointer
// from the object root.
type operation struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

// MarshalJSON writes o as RFC 6902 has it: an add or replace has a value,
// null included; a remove has none. Older builds left out a null value, so
// decoding takes a missing value as null.
func (o operation) MarshalJSON() ([]byte, error) { return encodeJSON(o.wire()) }

// operationJSON is the encoding of an operation. Value is nil only for a
// remove.
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

// popRestore removes and decodes obj's restore annotation of version. One
// that does not decode is removed and ignored.
func popRestore(obj map[string]interface{}, version string) *restore {
	meta := asMap(obj["metadata"])
	ann := asMap(meta["annotations"])
	raw, ok := ann[api.RestoreAnnotation(version)]
	if !ok {
		return nil
	}
	delete(ann, api.RestoreAnnotation(version))
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
// of that version. Conversion never leaves one there, so it was written by
// a client. Kept, it would be applied when the object comes back to this
// version, setting a spec and status that validation never saw. Its
// "created" record is not followed.
func dropRestore(obj map[string]interface{}, version string) {
	ann, ok := asMap(obj["metadata"])["annotations"].(map[string]interface{})
	if ok {
		delete(ann, api.RestoreAnnotation(version))
	}
}

// pushRestore stores r as the restore annotation of version on obj.
func pushRestore(obj map[string]interface{}, version string, r *restore) error {
	rawMeta, present := obj["metadata"]
	meta, ok := rawMeta.(map[string]interface{})
	switch {
	case present && rawMeta != nil && !ok:
		return fmt.Errorf("metadata is not an object, so annotation %s cannot be added", api.RestoreAnnotation(version))
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
		return fmt.Errorf("metadata.annotations is not an object, so annotation %s cannot be added", api.RestoreAnnotation(version))
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
		return fmt.Errorf("encoding %s: %w", api.RestoreAnnotation(version), err)
	}
	if cap(data) <= 1<<20 { // keep no buffer a huge annotation grew
		*bp = data[:0]
	}
	ann[api.RestoreAnnotation(version)] = string(data)
	total := 0
	for k, v := range ann {
		total += len(k) + len(asString(v))
	}
	if total > TotalAnnotationSizeLimitB {
		return fmt.Errorf("annotation %s needs %d bytes, and the annotations would total %d bytes, above the limit of %d bytes",
			api.RestoreAnnotation(version), len(data), total, TotalAnnotationSizeLimitB)
	}
	return nil
}

// appendJSON appends encodeJSON(r) to buf. It encodes wire structs, so
// encoding/json's errors are not wrapped as MarshalJSON errors.
func (r *restore) appendJSON(buf []byte) ([]byte, error) {
	type restoreJSON struct {
		Spec    *sectionJSON `json:"spec,omitempty"`
		Status  *sectionJSON `json:"status,omitempty"`
		Created string       `json:"created,omitempty"`
	}
	return appendJSON(buf, restoreJSON{r.Spec.wire(), r.Status.wire(), r.Created})
}

// sectionJSON is the encoding of a sectionPatch.
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

// decodeRestore decodes obj's restore annotation of version; nil when
// there is none or it does not decode.
func decodeRestore(obj map[string]interface{}, version string) *restore {
	ann := asMap(asMap(obj["metadata"])["annotations"])
	raw, ok := ann[api.RestoreAnnotation(version)]
	if !ok {
		return nil
	}
	return parseRestore(raw)
}

// parseRestore decodes a restore annotation's value; nil when it does not
// decode.
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
