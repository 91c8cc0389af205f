package support

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
)

// ReadManifests reads a driver's install manifests: files, directories
// (with recursive, their subdirectories too), and kustomizations, which
// are built as kustomize build builds them.
func ReadManifests(paths []string, recursive bool) ([]manifest.Document, error) {
	var docs []manifest.Document
	add := func(d manifest.Document) error { docs = append(docs, d); return nil }
	for _, p := range paths {
		if !kustomization(p) {
			if err := manifest.EachIn([]string{p}, recursive, nil, add); err != nil {
				return nil, err
			}
			continue
		}
		k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
		res, err := k.Run(filesys.MakeFsOnDisk(), p)
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", p, err)
		}
		data, err := res.AsYaml()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", p, err)
		}
		if err := manifest.ParseEach(filepath.Join(p, "kustomization.yaml"), data, add); err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// kustomization reports whether dir is a directory kustomize builds.
func kustomization(dir string) bool {
	return slices.ContainsFunc(konfig.RecognizedKustomizationFileNames(), func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	})
}

// Select picks the binaries of bins that are judged: those named (their
// paths), else those the containers of the install documents run (by
// command, arguments or image name), else all. It says which when it
// picked some of several. A call's Flag the containers name is on.
func Select(bins []Binary, named []string, install []manifest.Document) (judged []Binary, note string, err error) {
	paths := func(bs []Binary) string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Path)
		}
		return strings.Join(out, ", ")
	}
	how := "named by --binary"
	for _, name := range named {
		i := slices.IndexFunc(bins, func(b Binary) bool { return b.Path == path.Clean(filepath.ToSlash(name)) })
		if i < 0 {
			return nil, "", fmt.Errorf("--binary %s: not a binary of the driver (its binaries: %s)", name, paths(bins))
		}
		judged = append(judged, bins[i])
	}
	words := containerWords(install)
	if len(named) == 0 {
		how = "run by the install's containers"
		judged = slices.DeleteFunc(slices.Clone(bins), func(b Binary) bool { return b.Name == "" || !slices.Contains(words, b.Name) })
	}
	if len(judged) == 0 {
		judged = slices.Clone(bins)
	}
	for i, b := range judged {
		judged[i].Calls = slices.Clone(b.Calls)
		for j, c := range b.Calls {
			for _, w := range words {
				if name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "="); name == c.Flag {
					judged[i].Calls[j].Flag = ""
				}
			}
		}
	}
	if len(bins) > 1 {
		note = fmt.Sprintf("judged the binaries %s (%s)", paths(judged), how)
		if len(judged) == len(bins) {
			note = fmt.Sprintf("judged every binary: %s (--binary narrows them)", paths(judged))
		}
	}
	return judged, note, nil
}

// containerWords are the names in the containers of docs' Pod templates:
// the base names of each command and argument word, and each image's name.
func containerWords(docs []manifest.Document) []string {
	var words []string
	var walk func(v interface{})
	walk = func(v interface{}) {
		switch v := v.(type) {
		case []interface{}:
			for _, x := range v {
				walk(x)
			}
		case map[string]interface{}:
			for key, x := range v {
				if list, ok := x.([]interface{}); ok && (key == "containers" || key == "initContainers") {
					for _, c := range list {
						words = append(words, containerNames(c)...)
					}
				}
				walk(x)
			}
		}
	}
	for _, d := range docs {
		if _, group, _, _, _ := api.TypeOf(d.Object); group != api.UpstreamGroup {
			walk(d.Object)
		}
	}
	return words
}

// containerNames are the names container c runs: "/usr/bin/plugin --v=4"
// gives "plugin" and "--v=4"; image "registry.k8s.io/x/driver:v1", "driver".
func containerNames(c interface{}) []string {
	m, _ := c.(map[string]interface{})
	var out []string
	for _, key := range []string{"command", "args"} {
		list, _ := m[key].([]interface{})
		for _, x := range list {
			s, _ := x.(string)
			for _, w := range strings.Fields(s) {
				out = append(out, path.Base(w))
			}
		}
	}
	if image, ok := m["image"].(string); ok {
		image, _, _ = strings.Cut(image, "@")
		name := path.Base(image)
		name, _, _ = strings.Cut(name, ":")
		out = append(out, name)
	}
	return out
}
