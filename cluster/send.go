package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/api"
)

// FieldManager is the server-side apply field manager of Apply.
const FieldManager = "claimbridge"

// Create creates each object with strict field validation (as kubectl
// create), or, in a dry run, only asks whether the cluster would: its
// admission and validation run, and nothing is written. Each answer, nil
// where the cluster accepts objs[i], goes to answer as it comes.
func (c *Cluster) Create(ctx context.Context, objs []map[string]interface{}, dryRun bool, answer func(i int, err error)) {
	opts := metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	c.inOrder(objs, answer, func(r dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		_, err := r.Create(ctx, u, opts)
		return err
	})
}

// Exists reports whether the cluster has an object of obj's kind,
// namespace and name.
func (c *Cluster) Exists(ctx context.Context, obj map[string]interface{}) (bool, error) {
	err := c.send(obj, func(r dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		_, err := r.Get(ctx, u.GetName(), metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Apply applies each object with server-side apply (field manager
// FieldManager), or only asks the cluster's answer in a dry run. Each
// answer goes to answer as it comes.
func (c *Cluster) Apply(ctx context.Context, objs []map[string]interface{}, dryRun bool, answer func(i int, err error)) {
	opts := metav1.ApplyOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	c.inOrder(objs, answer, func(r dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		_, err := r.Apply(ctx, u.GetName(), u, opts)
		return err
	})
}

// inOrder sends each object with do in the order of Rank, what others name
// first, and gives the cluster's answers to answer.
func (c *Cluster) inOrder(objs []map[string]interface{}, answer func(int, error), do func(dynamic.ResourceInterface, *unstructured.Unstructured) error) {
	order := make([]int, len(objs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(Rank(objs[a]), Rank(objs[b])) })
	for _, i := range order {
		answer(i, c.send(objs[i], do))
	}
}

// Rank orders objects as they depend on each other: namespaces, classes and
// parameters (0), then what names them, claims and templates (1), then
// everything else, workloads and Pods that name claims and templates (2).
func Rank(obj map[string]interface{}) int {
	apiVersion, group, _, kind, _ := api.TypeOf(obj)
	switch {
	case apiVersion == "v1" && kind == "Namespace",
		api.IsGroup(group) && (strings.HasSuffix(kind, "Class") || strings.HasSuffix(kind, "Parameters")):
		return 0
	case api.IsGroup(group):
		return 1
	}
	return 2
}

// send sends obj with do to the resource that serves it, in its namespace
// or else the context's, and returns the cluster's answer.
func (c *Cluster) send(obj map[string]interface{}, do func(dynamic.ResourceInterface, *unstructured.Unstructured) error) error {
	u := &unstructured.Unstructured{Object: obj}
	gvk := schema.FromAPIVersionAndKind(u.GetAPIVersion(), u.GetKind())
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return do(c.dynamic.Resource(mapping.Resource).Namespace(cmp.Or(u.GetNamespace(), c.namespace, metav1.NamespaceDefault)), u)
	}
	return do(c.dynamic.Resource(mapping.Resource), u)
}

// Findings are the lines of a rejection, "<path>: <message>" (a cause
// without a field: "<message>"), each ending with the status.
func Findings(err error) []string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return []string{err.Error()}
	}
	s := status.Status()
	answer := fmt.Sprintf(": the target cluster rejects this object (%d %s)", s.Code, s.Reason)
	var out []string
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			out = append(out, strings.TrimPrefix(c.Field+": ", ": ")+c.Message+answer) // no field: the message alone
		}
	}
	if len(out) == 0 {
		out = append(out, s.Message+answer)
	}
	return out
}
