package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
)

func newFnCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "fn",
		Short: "Run as a KRM function: convert the DRA objects of a ResourceList on standard input",
		Long: `fn is claimbridge as a KRM function (a kustomize exec transformer): it reads a
ResourceList on standard input and writes it on standard output, every
object converted as claimbridge convert --to converts it. The target comes
from the function config, a ConfigMap with data.to (a version convert's --to
takes). What is not changed is left as it is, comments included. Warnings,
notes and refusals are the ResourceList's results (severity warning, info,
error), with the object and, where known, the field; warnings and refusals
are printed on standard error too. A refusal fails the function (exit 1).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			rw := &kio.ByteReadWriter{Reader: s.in, Writer: s.out, KeepReaderAnnotations: true}
			err := framework.Execute(framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
				err := convertResourceList(rl)
				for _, r := range rl.Results {
					if r.Severity != framework.Info {
						fmt.Fprintln(s.err, r)
					}
				}
				return err
			}), rw)
			var results framework.Results
			if errors.As(err, &results) {
				return withCode(ExitInvalid, errors.New("the ResourceList was not converted"))
			}
			return withCode(ExitBadInput, err)
		},
	}
}

// convertResourceList converts each item of rl as convert does, to the
// version its function config names. It returns rl.Results when an item
// is refused.
func convertResourceList(rl *framework.ResourceList) error {
	to := rl.FunctionConfig.GetDataMap()["to"]
	if !isVersion(to) {
		return fmt.Errorf("the function config must be a ConfigMap with data.to, one of %s; got %q", strings.Join(conversion.ChainVersions, ", "), to)
	}
	failed := false
	for i, item := range rl.Items {
		obj, err := jsonObject(item)
		if err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		doc := manifest.Document{Source: "ResourceList", Index: i + 1, Item: -1, Object: obj}
		var notes bytes.Buffer
		out, ws, err := convertDocument(doc, to, &notes)
		meta, _ := item.GetMeta()
		ref := meta.GetIdentifier()
		result := func(sev framework.Severity, msg string) {
			msg = strings.TrimPrefix(strings.TrimPrefix(msg, doc.Position()+": "), api.Describe(obj)+": ")
			r := &framework.Result{Severity: sev, Message: msg, ResourceRef: &ref}
			if m := fieldMessage.FindStringSubmatch(msg); m != nil {
				r.Field, r.Message = &framework.Field{Path: m[1]}, msg[len(m[0]):]
			}
			rl.Results = append(rl.Results, r)
		}
		for _, line := range strings.Split(strings.TrimSuffix(notes.String(), "\n"), "\n") {
			if line != "" {
				result(framework.Info, line)
			}
		}
		if err != nil {
			result(framework.Error, err.Error())
			failed = true
			continue
		}
		for _, w := range ws {
			result(framework.Warning, w)
		}
		if reflect.DeepEqual(out, obj) {
			continue // left as it is, comments and all
		}
		if rl.Items[i], err = yamlNode(out); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		rl.Items[i].YNode().HeadComment = item.YNode().HeadComment
	}
	if failed {
		return rl.Results
	}
	return nil
}

// fieldMessage is a message about a field of the object: "<path>: …".
var fieldMessage = regexp.MustCompile(`^([a-z][A-Za-z0-9]*(?:\[[0-9]+\]|\.[A-Za-z0-9]+)*): `)

// jsonObject is item as manifest reads an object: numbers are json.Number.
func jsonObject(item *kyaml.RNode) (map[string]interface{}, error) {
	data, err := item.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]interface{}
	return obj, dec.Decode(&obj)
}

// yamlNode is obj as convert writes it in YAML.
func yamlNode(obj map[string]interface{}) (*kyaml.RNode, error) {
	data, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return kyaml.Parse(string(data))
}
