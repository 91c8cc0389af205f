package common

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidateNodeSelector(t *testing.T) { // rules 16 and 44
	p := field.NewPath("sel", "nodeSelectorTerms").Index(0)
	expr := func(j int) *field.Path { return p.Child("matchExpressions").Index(j) }
	flds := func(j int) *field.Path { return p.Child("matchFields").Index(j) }
	selector := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: "a", Operator: v1.NodeSelectorOpIn, Values: []string{"x"}},
			{Key: "a", Operator: v1.NodeSelectorOpNotIn},
			{Key: "a", Operator: v1.NodeSelectorOpExists, Values: []string{"x"}},
			{Key: "a", Operator: v1.NodeSelectorOpGt, Values: []string{"1", "2"}},
			{Key: "a", Operator: "Bad"},
			{Key: "bad key!", Operator: v1.NodeSelectorOpDoesNotExist},
			{Key: "a", Operator: v1.NodeSelectorOpLt, Values: []string{"1"}}, // valid: Lt and Gt take exactly one value
		},
		MatchFields: []v1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-1"}},
			{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"a", "b"}},
			{Key: "metadata.name", Operator: v1.NodeSelectorOpExists},
			{Key: "spec.x", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}},
			{Key: "metadata.name", Operator: v1.NodeSelectorOpNotIn, Values: []string{"Bad_Node"}},
		},
	}}}
	want := field.ErrorList{
		field.Required(expr(1).Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"),
		field.Forbidden(expr(2).Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
		field.Required(expr(3).Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"),
		field.Invalid(expr(4).Child("operator"), v1.NodeSelectorOperator("Bad"), "not a valid selector operator"),
		field.Invalid(expr(5).Child("key"), "bad key!", "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
		field.Required(flds(1).Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
		field.Invalid(flds(2).Child("operator"), v1.NodeSelectorOperator("Exists"), "not a valid selector operator"),
		field.Invalid(flds(3).Child("key"), "spec.x", "not a valid field selector key"),
		field.Invalid(flds(4).Child("values").Index(0), "Bad_Node", "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
	}
	if diff := cmp.Diff(want, ValidateNodeSelector(selector, field.NewPath("sel"))); diff != "" {
		t.Errorf("unexpected errors (-want +got):\n%s", diff)
	}
	empty := field.ErrorList{field.Required(field.NewPath("sel", "nodeSelectorTerms"), "must have at least one node selector term")}
	if diff := cmp.Diff(empty, ValidateNodeSelector(&v1.NodeSelector{}, field.NewPath("sel"))); diff != "" {
		t.Errorf("empty selector (-want +got):\n%s", diff)
	}
}

func TestErrorText(t *testing.T) {
	// The printed form kubectl shows, as in 1.26–1.31.
	for _, tc := range []struct {
		err  *field.Error
		want string
	}{
		{TooLongMaxLength(field.NewPath("status", "reservedFor"), 33, 32), "status.reservedFor: Too long: may not be longer than 32"},
		{TooLongBytes(field.NewPath("spec", "controller"), "x", 63), "spec.controller: Too long: must have at most 63 bytes"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
