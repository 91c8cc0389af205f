package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
)

type convertOptions struct {
	to        string
	filenames []string
	output    string
}

func newConvertCommand(s streams) *cobra.Command {
	o := &convertOptions{output: "yaml"}
	cmd := &cobra.Command{
		Use:   "convert --to VERSION -f FILE|- [-f FILE ...] [-o yaml|json]",
		Short: "Convert ResourceClaim and ResourceClaimTemplate manifests between v1alpha1, v1alpha2 and v1alpha3",
		Long: `Convert reads YAML or JSON manifests (multi-document streams, kind: List,
files, directories and standard input) and converts every ResourceClaim and
ResourceClaimTemplate of group resource.claimbridge.dev or resource.k8s.io to
the requested version, keeping its group. Every other object is passed through
unchanged and in order.

What the target version cannot hold is kept in claimbridge.dev/restore-*
annotations, so that converting back gives the original exactly.

Nothing is written unless every document converts.`,
		Example: `  # Migrate a Kubernetes 1.30 claim to the 1.31 shape
  claimbridge convert --to v1alpha3 -f claim-v1alpha2.yaml

  # Convert everything in a directory and print one JSON List
  claimbridge convert --to v1alpha1 -f manifests/ -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(s)
		},
	}
	cmd.Flags().StringVar(&o.to, "to", "", "target version: "+strings.Join(conversion.Versions, ", ")+" (required)")
	cmd.Flags().StringArrayVarP(&o.filenames, "filename", "f", nil, "file, directory or - for standard input (repeatable, required)")
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: yaml or json")
	return cmd
}

func (o *convertOptions) run(s streams) error {
	if err := o.validate(); err != nil {
		return withCode(ExitBadInput, err)
	}
	docs, err := manifest.ReadAll(o.filenames, s.in)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	objects := make([]map[string]interface{}, 0, len(docs))
	for _, doc := range docs {
		out, err := convertDocument(doc, o.to, s.err)
		if err != nil {
			return withCode(ExitInvalid, err)
		}
		objects = append(objects, out)
	}
	data, err := encodeObjects(objects, o.output)
	if err != nil {
		return withCode(ExitInvalid, err)
	}
	_, err = s.out.Write(data)
	return err
}

func (o *convertOptions) validate() error {
	switch {
	case o.to == "":
		return fmt.Errorf("--to is required (one of %s)", strings.Join(conversion.Versions, ", "))
	case !isVersion(o.to):
		return fmt.Errorf("--to %q: unsupported version (supported: %s)", o.to, strings.Join(conversion.Versions, ", "))
	case len(o.filenames) == 0:
		return fmt.Errorf("at least one -f is required (a file, a directory or - for standard input)")
	case o.output != "yaml" && o.output != "json":
		return fmt.Errorf("-o %q: unsupported output format (supported: yaml, json)", o.output)
	}
	return nil
}

func isVersion(v string) bool { return slices.Contains(conversion.Versions, v) }

// convertDocument converts a claim or template, and passes anything else
// through; objects of the claim groups that cannot be converted are passed
// through with a note.
func convertDocument(doc manifest.Document, to string, notes io.Writer) (map[string]interface{}, error) {
	if _, _, _, err := conversion.Identify(doc.Object); err != nil {
		if _, group, _, _, _ := api.TypeOf(doc.Object); api.IsGroup(group) {
			fmt.Fprintf(notes, "%s: passed through unchanged: %v\n", doc.Position(), err)
		}
		return doc.Object, nil
	}
	out, err := conversion.Convert(doc.Object, to)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doc.Position(), err)
	}
	return out, nil
}

// encodeObjects renders the objects as a YAML stream, or as JSON: one object
// as it is, several as a v1 List as kubectl prints them.
func encodeObjects(objects []map[string]interface{}, format string) ([]byte, error) {
	var buf bytes.Buffer
	if format == "json" {
		var v interface{} = map[string]interface{}{
			"apiVersion": "v1", "kind": "List",
			"metadata": map[string]interface{}{"resourceVersion": ""},
			"items":    objects,
		}
		if len(objects) == 1 {
			v = objects[0]
		}
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "    ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	for i, obj := range objects {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(data)
	}
	return buf.Bytes(), nil
}
