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

// Answer is the cluster's answer to one object.
type Answer struct {
	// Err is nil when the cluster accepted the object.
	Err error
	// Warnings are the warnings of the answer (a deprecated version, an
	// admission webhook's).
	Warnings []string
}

// Verify asks the cluster to create each object in a server-side dry run,
// with strict field validation (as kubectl create): its admission and
// validation run, and nothing is written. The answers are in the order of
// objs.
func (c *Cluster) Verify(ctx context.Context, objs []map[string]interface{}) []Answer {
	answers := make([]Answer, len(objs))
	for i, obj := range objs {
		answers[i] = c.send(obj, func(r dynamic.ResourceInterface, u *unstructured.Unstructured) error {
			_, err := r.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
			return err
		})
	}
	return answers
}

// Apply applies each object with server-side apply (field manager
// FieldManager), or only asks the cluster's answer in a dry run, in the
// order of Rank: what others name first. The answers are in the order of
// objs.
func (c *Cluster) Apply(ctx context.Context, objs []map[string]interface{}, dryRun bool) []Answer {
	opts := metav1.ApplyOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	order := make([]int, len(objs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(Rank(objs[a]), Rank(objs[b])) })
	answers := make([]Answer, len(objs))
	for _, i := range order {
		answers[i] = c.send(objs[i], func(r dynamic.ResourceInterface, u *unstructured.Unstructured) error {
			_, err := r.Apply(ctx, u.GetName(), u, opts)
			return err
		})
	}
	return answers
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
func (c *Cluster) send(obj map[string]interface{}, do func(dynamic.ResourceInterface, *unstructured.Unstructured) error) Answer {
	u := &unstructured.Unstructured{Object: obj}
	gvk := schema.FromAPIVersionAndKind(u.GetAPIVersion(), u.GetKind())
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return Answer{Err: err}
	}
	var r dynamic.ResourceInterface = c.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		r = c.dynamic.Resource(mapping.Resource).Namespace(cmp.Or(u.GetNamespace(), c.namespace, metav1.NamespaceDefault))
	}
	c.warnings.take()
	err = do(r, u)
	return Answer{Err: err, Warnings: c.warnings.take()}
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
			if c.Field == "" {
				out = append(out, c.Message+answer)
				continue
			}
			out = append(out, c.Field+": "+c.Message+answer)
		}
	}
	if len(out) == 0 {
		out = append(out, s.Message+answer)
	}
	return out
}
