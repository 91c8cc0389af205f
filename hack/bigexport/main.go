// Command bigexport writes a large Kubernetes 1.30 cluster export (package
// test/exportgen) for measuring the CLI at scale (docs/performance.md,
// "The command line at scale"):
//
//	go run ./hack/bigexport -n 16000 -o yaml > /tmp/export.yaml
//	go run ./hack/bigexport -n 64000 -files 8 -dir /tmp/export   # 8 Lists, for -f DIR
//
// YAML is written as kubectl -o yaml writes it (sigs.k8s.io/yaml), JSON as
// kubectl -o json (four-space indentation).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/test/exportgen"
)

func main() {
	n := flag.Int("n", 1000, "about this many items")
	format := flag.String("o", "yaml", "yaml or json")
	files := flag.Int("files", 1, "split the items into this many kind: List files (needs -dir)")
	dir := flag.String("dir", "", "write export-NNN.<format> files into this directory instead of standard output")
	flag.Parse()
	if err := run(*n, *format, *files, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "bigexport:", err)
		os.Exit(1)
	}
}

func run(n int, format string, files int, dir string) error {
	if format != "yaml" && format != "json" {
		return fmt.Errorf("-o %q: yaml or json", format)
	}
	if files > 1 && dir == "" {
		return fmt.Errorf("-files %d needs -dir", files)
	}
	list := exportgen.Export(exportgen.Options{Items: n})
	items := list["items"].([]interface{})
	if dir == "" {
		data, err := encode(list, format)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(data)
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files = max(files, 1)
	for f := 0; f < files; f++ {
		part := map[string]interface{}{
			"apiVersion": "v1", "kind": "List", "metadata": list["metadata"],
			"items": items[f*len(items)/files : (f+1)*len(items)/files],
		}
		data, err := encode(part, format)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("export-%03d.%s", f, format)), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "%d items in %d files\n", len(items), files)
	return nil
}

func encode(v interface{}, format string) ([]byte, error) {
	if format == "yaml" {
		return yaml.Marshal(v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}
