package cli

import (
	"fmt"
	"io"

	"github.com/claimbridge/claimbridge/api"
)

// warnDuplicates warns about each object that has the group, kind, namespace
// and name of an earlier one: kubectl create refuses the second as
// AlreadyExists (and apply makes one of the two), typically after two
// exports of the same cluster were given, or a claim in two versions.
// Objects without a name (generateName) are never duplicates.
func warnDuplicates(w io.Writer, objects []map[string]interface{}, positions []string) {
	type key struct{ group, kind, namespace, name string }
	first := make(map[key]string, len(objects))
	for i, obj := range objects {
		_, group, _, kind, _ := api.TypeOf(obj)
		meta, _ := obj["metadata"].(map[string]interface{})
		name, _ := meta["name"].(string)
		if name == "" {
			continue
		}
		namespace, _ := meta["namespace"].(string)
		k := key{group, kind, namespace, name}
		if at, seen := first[k]; seen {
			fmt.Fprintf(w, "Warning: %s: %s: the same object (group, kind, namespace and name) as %s: kubectl create refuses the second; keep one\n",
				positions[i], api.Describe(obj), at)
			continue
		}
		first[k] = positions[i]
	}
}
