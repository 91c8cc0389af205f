// Package krm is claimbridge as a KRM function (a kustomize exec
// transformer): every object of a ResourceList converted as convert
// converts it, findings as the list's results.
package krm

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

// severities are the results' severities of report's.
var severities = map[string]framework.Severity{report.Error: framework.Error, report.Warning: framework.Warning, report.Note: framework.Info}

// Convert converts each item of rl to the target its function config names
// (a ConfigMap with data.to, as convert --to takes, and data.featureGates
// and data.runtimeConfig, as its --feature-gates and --runtime-config).
// What is not changed is left as it is, comments included. It returns
// rl.Results when an item is refused.
func Convert(rl *framework.ResourceList) error {
	data := rl.FunctionConfig.GetDataMap()
	target, err := migrate.TargetOf(data["to"])
	if err != nil {
		return fmt.Errorf("the function config must be a ConfigMap with data.to, a release (%s) or a version (%s); got %q",
			api.ReleaseRange(), strings.Join(api.ConversionVersions, ", "), data["to"])
	}
	if err := target.Set(data["featureGates"], data["runtimeConfig"]); err != nil {
		return fmt.Errorf("the function config's data.featureGates or data.runtimeConfig: %w", err)
	}
	refused := false
	for i, item := range rl.Items {
		obj, err := jsonObject(item)
		if err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		meta, _ := item.GetMeta()
		ref := meta.GetIdentifier()
		v := migrate.Convert(obj, target)
		for _, f := range v.Findings {
			r := &framework.Result{Severity: severities[f.Severity], Message: f.Message, ResourceRef: &ref}
			if f.Path != "" {
				r.Field = &framework.Field{Path: f.Path}
			}
			rl.Results = append(rl.Results, r)
		}
		if v.Outcome == report.Refused {
			refused = true
			continue
		}
		if api.DeepEqualJSON(v.Object, obj) {
			continue // left as it is, comments and all
		}
		if rl.Items[i], err = yamlNode(v.Object); err != nil {
			return fmt.Errorf("items[%d]: %w", i, err)
		}
		rl.Items[i].YNode().HeadComment = item.YNode().HeadComment
	}
	if refused {
		return rl.Results
	}
	return nil
}

// jsonObject is item as manifest reads an object: numbers are json.Number.
func jsonObject(item *kyaml.RNode) (map[string]interface{}, error) {
	data, err := item.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	return obj, api.DecodeJSON(data, &obj)
}

// yamlNode is obj as convert writes it in YAML.
func yamlNode(obj map[string]interface{}) (*kyaml.RNode, error) {
	data, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return kyaml.Parse(string(data))
}
