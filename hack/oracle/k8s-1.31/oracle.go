// Command oracle answers, for one Kubernetes release, what that release's own
// apiserver code says about ResourceClaim and ResourceClaimTemplate writes:
// the object is decoded, converted and defaulted into the internal type
// through the release's scheme (pkg/apis/resource/install), prepared by the
// registry strategy (PrepareForCreate / PrepareForUpdate of the main or the
// status strategy) and validated by that strategy, as the apiserver does.
//
// This file is shared by every hack/oracle/k8s-1.* module (the others hold a
// symlink to hack/oracle/k8s-1.31/oracle.go); release specifics (feature gates, facts)
// live in each module's release.go.
//
// Input on stdin: a JSON array of scenarios
//
//	[{"name": "…", "op": "create"|"update"|"status", "object": {…}, "old": {…}}]
//
// Output on stdout: a JSON array of answers in the same order
//
//	[{"name": "…", "errors": [{"type": "FieldValueRequired", "field": "spec.x", "detail": "…"}],
//	  "error": "undecodable input", "facts": {"structured": "true"}}]
//
// Objects of group resource.claimbridge.dev are read as resource.k8s.io.
// "facts" are consumer-relevant properties of the prepared object computed by
// release.go (e.g. whether a 1.31 allocation is structured).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/resource"
	_ "k8s.io/kubernetes/pkg/apis/resource/install" // registers the resource group in legacyscheme
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
)

type scenario struct {
	Name   string          `json:"name"`
	Op     string          `json:"op"`
	Object json.RawMessage `json:"object"`
	Old    json.RawMessage `json:"old,omitempty"`
}

type fieldError struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

type answer struct {
	Name   string            `json:"name"`
	Errors []fieldError      `json:"errors"`
	Error  string            `json:"error,omitempty"`
	Facts  map[string]string `json:"facts,omitempty"`
}

func main() {
	if err := utilfeature.DefaultMutableFeatureGate.Set(featureGates); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: feature gates:", err)
		os.Exit(2)
	}
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(release)
		return
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle: reading stdin:", err)
		os.Exit(2)
	}
	var scenarios []scenario
	if err := json.Unmarshal(data, &scenarios); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: input is not a JSON array of scenarios:", err)
		os.Exit(2)
	}
	answers := make([]answer, 0, len(scenarios))
	for _, s := range scenarios {
		answers = append(answers, run(s))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(answers); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
}

func run(s scenario) answer {
	a := answer{Name: s.Name, Errors: []fieldError{}}
	obj, err := decode(s.Object)
	if err != nil {
		a.Error = "object: " + err.Error()
		return a
	}
	ns := ""
	if m, ok := obj.(interface{ GetNamespace() string }); ok {
		ns = m.GetNamespace()
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	var errs field.ErrorList
	switch s.Op {
	case "create":
		st, err := strategy(obj, false)
		if err != nil {
			a.Error = err.Error()
			return a
		}
		st.PrepareForCreate(ctx, obj)
		errs = st.Validate(ctx, obj)
	case "update", "status":
		old, err := decode(s.Old)
		if err != nil {
			a.Error = "old: " + err.Error()
			return a
		}
		st, err := strategy(obj, s.Op == "status")
		if err != nil {
			a.Error = err.Error()
			return a
		}
		st.PrepareForUpdate(ctx, obj, old)
		errs = st.ValidateUpdate(ctx, obj, old)
	default:
		a.Error = fmt.Sprintf("unknown op %q", s.Op)
		return a
	}
	for _, e := range errs {
		a.Errors = append(a.Errors, fieldError{Type: string(e.Type), Field: e.Field, Detail: e.Detail})
	}
	a.Facts = facts(obj)
	return a
}

// strategyFor is what the oracle needs of a registry strategy.
type strategyFor interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

func strategy(obj runtime.Object, status bool) (strategyFor, error) {
	switch obj.(type) {
	case *resource.ResourceClaim:
		if status {
			return resourceclaim.StatusStrategy, nil
		}
		return resourceclaim.Strategy, nil
	case *resource.ResourceClaimTemplate:
		if !status {
			return resourceclaimtemplate.Strategy, nil
		}
	}
	return nil, fmt.Errorf("no strategy for %T (status=%v)", obj, status)
}

// decode reads a versioned object into the internal type with the
// release's conversion and defaulting (the apiserver's decoding path).
func decode(raw json.RawMessage) (runtime.Object, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing")
	}
	var tree map[string]interface{}
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	if av, ok := tree["apiVersion"].(string); ok {
		tree["apiVersion"] = strings.Replace(av, "resource.claimbridge.dev/", "resource.k8s.io/", 1)
	}
	data, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	obj, _, err := legacyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	return obj, err
}
