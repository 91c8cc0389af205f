package conversion

import (
	"fmt"

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
func (o operation) MarshalJSON() ([]byte, error) { return o.appendJSON(nil) }

// appendJSON appends o's encoding, {"op":…,"path":…,"value":…}, to buf.
func (o *operation) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"op":`...)
	buf, err := api.AppendJSON(buf, o.Op)
	if err == nil {
		buf = append(buf, `,"path":`...)
		buf, err = api.AppendJSON(buf, o.Path)
	}
	if err == nil && (o.Value != nil || o.Op != "remove") {
		buf = append(buf, `,"value":`...)
		buf, err = api.AppendJSON(buf, o.Value)
	}
	if err != nil {
		return nil, err
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

// popRestore removes and decodes obj's restore annotation of version. One
// that does not decode is removed and ignored.
func popRestore(obj map[string]interface{}, version string) *restore {
	meta, ann := api.Metadata(obj), api.Annotations(obj)
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
		case "metadata", "metadata=null":
			delete(meta, "annotations")
			if len(meta) == 0 && r.Created == "metadata" {
				delete(obj, "metadata")
			} else if len(meta) == 0 {
				obj["metadata"] = nil
			}
		}
	}
	return r
}

// pushRestore stores r as the restore annotation of version on obj.
func pushRestore(obj map[string]interface{}, version string, r *restore) error {
	// metadata, then its annotations, each created when absent or null;
	// r.Created names the outermost container created.
	ann := obj
	for _, level := range [...]struct{ key, path string }{{"metadata", "metadata"}, {"annotations", "metadata.annotations"}} {
		raw, present := ann[level.key]
		m, ok := raw.(map[string]interface{})
		switch {
		case present && raw != nil && !ok:
			return fmt.Errorf("%s is not an object, so annotation %s cannot be added", level.path, api.RestoreAnnotation(version))
		case !ok:
			m = map[string]interface{}{}
			ann[level.key] = m
			if level.key == "metadata" || r.Created == "" {
				r.Created = level.key
				if present {
					r.Created += "=null"
				}
			}
		}
		ann = m
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

// appendJSON appends r's encoding to buf: {"spec":…,"status":…,"created":…},
// each key only when set, and each section {"base":…,"patch":[…]}. Stored
// annotations hold these bytes: their order never changes.
func (r *restore) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, '{')
	var err error
	for _, s := range [...]struct {
		key string
		sp  *sectionPatch
	}{{`"spec":`, r.Spec}, {`"status":`, r.Status}} {
		if s.sp == nil {
			continue
		}
		if buf[len(buf)-1] != '{' {
			buf = append(buf, ',')
		}
		buf = append(buf, s.key+`{"base":`...)
		if buf, err = api.AppendJSON(buf, s.sp.Base); err != nil {
			return nil, err
		}
		buf = append(buf, `,"patch":`...)
		if buf, err = appendOperations(buf, s.sp.Patch); err != nil {
			return nil, err
		}
		buf = append(buf, '}')
	}
	if r.Created != "" {
		if buf[len(buf)-1] != '{' {
			buf = append(buf, ',')
		}
		buf = append(buf, `"created":`...)
		if buf, err = api.AppendJSON(buf, r.Created); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// appendOperations appends ops as a JSON array, null for nil.
func appendOperations(buf []byte, ops []operation) ([]byte, error) {
	if ops == nil {
		return append(buf, "null"...), nil
	}
	buf = append(buf, '[')
	for i := range ops {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = ops[i].appendJSON(buf); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// decodeRestore decodes obj's restore annotation of version; nil when
// there is none or it does not decode.
func decodeRestore(obj map[string]interface{}, version string) *restore {
	raw, _ := api.RestoreData(obj, version) // absent: nil, which does not decode
	return parseRestore(raw)
}

// parseRestore decodes a restore annotation's value; nil when it does not
// decode.
func parseRestore(raw interface{}) *restore {
	var r restore
	s, _ := raw.(string)
	if err := api.DecodeJSON([]byte(s), &r); err != nil {
		return nil
	}
	return &r
}
