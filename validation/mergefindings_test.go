package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestMergeSeenThrough(t *testing.T) {
	ann := field.NewPath("metadata", "annotations")
	spec := field.NewPath("spec")
	for name, tc := range map[string]struct{ in, want field.ErrorList }{
		"one-view": {
			field.ErrorList{field.Forbidden(ann, "changes status as seen through v1alpha1: x")},
			field.ErrorList{field.Forbidden(ann, "changes status as seen through v1alpha1: x")},
		},
		"two-views-one-finding-in-the-first-place": {
			field.ErrorList{field.Required(spec, "r"), field.Forbidden(ann, "changes status as seen through v1alpha1: x"),
				field.Invalid(spec, 1, "other"), field.Forbidden(ann, "changes status as seen through v1alpha2: x")},
			field.ErrorList{field.Required(spec, "r"), field.Forbidden(ann, "changes status as seen through v1alpha1 and v1alpha2: x"),
				field.Invalid(spec, 1, "other")},
		},
		"three-views": {
			field.ErrorList{field.Invalid(ann, "o", "immutable as seen through v1alpha1"), field.Invalid(ann, "o", "immutable as seen through v1alpha2"),
				field.Invalid(ann, "o", "immutable as seen through v1alpha3")},
			field.ErrorList{field.Invalid(ann, "o", "immutable as seen through v1alpha1, v1alpha2 and v1alpha3")},
		},
		"a-single-view-beside-a-merged-one": {
			field.ErrorList{field.Forbidden(ann, "x as seen through v1alpha1"), field.Invalid(spec, "o", "y as seen through v1alpha1"),
				field.Forbidden(ann, "x as seen through v1alpha2")},
			field.ErrorList{field.Forbidden(ann, "x as seen through v1alpha1 and v1alpha2"), field.Invalid(spec, "o", "y as seen through v1alpha1")},
		},
		"other-type-or-field-or-words-kept-apart": {
			field.ErrorList{field.Forbidden(ann, "a as seen through v1alpha1"), field.Invalid(ann, "o", "a as seen through v1alpha2"),
				field.Forbidden(spec, "a as seen through v1alpha2"), field.Forbidden(ann, "b as seen through v1alpha2")},
			field.ErrorList{field.Forbidden(ann, "a as seen through v1alpha1"), field.Invalid(ann, "o", "a as seen through v1alpha2"),
				field.Forbidden(spec, "a as seen through v1alpha2"), field.Forbidden(ann, "b as seen through v1alpha2")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, mergeAcrossVersions(tc.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
