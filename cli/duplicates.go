package cli

import (
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/report"
)

// namedObject is what warnDuplicates needs of an object written: kept for
// each as it is written, instead of the object.
type namedObject struct {
	key      objectKey
	doc      manifest.Document // without its Object
	describe string            // api.Describe
}

type objectKey struct{ group, kind, namespace, name string }

// nameOf is the namedObject of obj, written for doc; ok is false for an
// object without a name (generateName), which is never a duplicate.
func nameOf(obj map[string]interface{}, doc manifest.Document) (n namedObject, ok bool) {
	_, group, _, kind, _ := api.TypeOf(obj)
	namespace, name, _ := api.Meta(obj)
	if name == "" {
		return namedObject{}, false
	}
	doc.Object = nil
	return namedObject{objectKey{group, kind, namespace, name}, doc, api.Describe(obj)}, true
}

// warnDuplicates warns about each object that has the group, kind, namespace
// and name of an earlier one: kubectl create refuses the second as
// AlreadyExists (and apply makes one of the two), typically after two
// exports of the same cluster were given, or a claim in two versions.
func warnDuplicates(r *report.Report, objects []namedObject) {
	first := make(map[objectKey]string, len(objects))
	for _, obj := range objects {
		if at, seen := first[obj.key]; seen {
			kind, ref, _ := strings.Cut(obj.describe, " ")
			r.Say(obj.doc, report.Finding{Severity: report.Warning, Kind: kind, Object: ref,
				Message: "the same object (group, kind, namespace and name) as " + at + ": kubectl create refuses the second; keep one"})
			continue
		}
		first[obj.key] = obj.doc.Position()
	}
}
