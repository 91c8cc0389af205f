// Command oracle answers what Kubernetes 1.38's own apiserver code says about
// a create or update of any resource.k8s.io object, from the sources of its
// pre-release (see hack/oracle-assets.sh and docs/validation.md): the object
// is decoded, converted and defaulted into the internal type through the
// release's scheme, prepared by the registry strategy and validated as
// kube-apiserver's generic registry does (rest.ValidateCreate and
// rest.ValidateUpdate: the strategy's rules, then the declarative ones of
// the version the object was sent in).
//
// Its input and output are the other oracles' (hack/oracle/k8s-1.31/oracle.go):
// a JSON array of scenarios on stdin, a JSON array of answers on stdout,
// each error with the line kube-apiserver prints for it. It runs with
// 1.38's default feature gates, or those of --feature-gates=A=true,… No
// namespace is labeled for admin access.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/resource"
	_ "k8s.io/kubernetes/pkg/apis/resource/install" // registers the resource group in legacyscheme
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
)

// release is what --version prints: the pre-release the sources are of.
const release = "1.38"

type scenario struct {
	Name   string          `json:"name"`
	Op     string          `json:"op"`
	Object json.RawMessage `json:"object"`
	Old    json.RawMessage `json:"old,omitempty"`
}

// fieldError is a field.Error, with what kube-apiserver prints of it
// (Message).
type fieldError struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Detail  string `json:"detail"`
	Message string `json:"message"`
}

type answer struct {
	Name   string       `json:"name"`
	Errors []fieldError `json:"errors"`
	Error  string       `json:"error,omitempty"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(release)
		return
	}
	if len(os.Args) > 1 {
		gates, ok := strings.CutPrefix(os.Args[1], "--feature-gates=")
		if err := utilfeature.DefaultMutableFeatureGate.Set(gates); !ok || err != nil {
			fmt.Fprintln(os.Stderr, "oracle: usage: oracle [--version | --feature-gates=A=true,…]:", err)
			os.Exit(2)
		}
	}
	var scenarios []scenario
	data, err := io.ReadAll(os.Stdin)
	if err == nil {
		err = json.Unmarshal(data, &scenarios)
	}
	if err != nil {
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
	obj, gv, err := decode(s.Object)
	if err != nil {
		a.Error = "object: " + err.Error()
		return a
	}
	ns := obj.(metav1.Object).GetNamespace()
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	info := &genericapirequest.RequestInfo{IsResourceRequest: true, APIGroup: gv.Group, APIVersion: gv.Version}
	if s.Op == "status" {
		info.Subresource = "status"
	}
	ctx = genericapirequest.WithRequestInfo(ctx, info)
	st, err := strategy(obj, s.Op == "status")
	if err != nil {
		a.Error = err.Error()
		return a
	}
	var errs field.ErrorList
	switch s.Op {
	case "create":
		st.PrepareForCreate(ctx, obj)
		errs = rest.ValidateCreate(ctx, obj, st)
	case "update", "status":
		old, _, err := decode(s.Old)
		if err != nil {
			a.Error = "old: " + err.Error()
			return a
		}
		st.PrepareForUpdate(ctx, obj, old)
		errs = rest.ValidateUpdate(ctx, obj, old, st)
	default:
		a.Error = fmt.Sprintf("unknown op %q", s.Op)
		return a
	}
	for _, e := range errs {
		a.Errors = append(a.Errors, fieldError{Type: string(e.Type), Field: e.Field, Detail: e.Detail, Message: e.Error()})
	}
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
		s := resourceclaim.NewStrategy(namespaces{}, nil)
		if status {
			return resourceclaim.NewStatusStrategy(s), nil
		}
		return s, nil
	case *resource.ResourceClaimTemplate:
		if !status {
			return resourceclaimtemplate.NewStrategy(namespaces{}), nil
		}
	case *resource.DeviceClass:
		if !status {
			return deviceclass.Strategy, nil
		}
	case *resource.ResourceSlice:
		if !status {
			return resourceslice.Strategy, nil
		}
	case *resource.DeviceTaintRule:
		if status {
			return devicetaintrule.StatusStrategy, nil
		}
		return devicetaintrule.Strategy, nil
	}
	return nil, fmt.Errorf("no strategy for %T (status=%v)", obj, status)
}

// namespaces answers the admin-access check: every namespace exists,
// unlabeled.
type namespaces struct{ typedcorev1.NamespaceInterface }

func (namespaces) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	if name == "" {
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
}

// decode reads a versioned object into the internal type with the
// release's conversion and defaulting (the apiserver's decoding path) and
// returns the version it was sent in.
func decode(raw json.RawMessage) (runtime.Object, schema.GroupVersion, error) {
	if len(raw) == 0 {
		return nil, schema.GroupVersion{}, fmt.Errorf("missing")
	}
	var tree map[string]interface{}
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, schema.GroupVersion{}, err
	}
	if av, ok := tree["apiVersion"].(string); ok {
		tree["apiVersion"] = strings.Replace(av, "resource.claimbridge.dev/", "resource.k8s.io/", 1)
	}
	data, err := json.Marshal(tree)
	if err != nil {
		return nil, schema.GroupVersion{}, err
	}
	obj, gvk, err := legacyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, schema.GroupVersion{}, err
	}
	return obj, gvk.GroupVersion(), nil
}
