package validation

import (
	"encoding/json"
	"strings"
	"testing"
)

// nestsDeeper counts arrays and objects alike, as the conversion webhook
// counts the depth of the JSON it returns (docs/validation.md: a view
// nesting deeper than 997 levels "of arrays and objects" is refused); an
// object of scalars nests one. Restore data can nest a view through either.
func TestNestsDeeper(t *testing.T) {
	nested := func(open, close string, levels int, inner string) string {
		return strings.Repeat(open, levels) + inner + strings.Repeat(close, levels)
	}
	for _, tc := range []struct {
		name     string
		json     string
		maxDepth int
		want     bool
	}{
		{"scalar", `1`, 0, false},
		{"empty-object-at-zero", `{}`, 0, true},
		{"object-of-scalars", `{"a":1,"b":"x"}`, 1, false},
		{"object-in-object", `{"a":{}}`, 1, true},
		{"objects-at-the-limit", nested(`{"a":`, `}`, 5, `1`), 5, false},
		{"objects-beyond-the-limit", nested(`{"a":`, `}`, 6, `1`), 5, true},
		{"empty-array-at-zero", `[]`, 0, true},
		{"array-of-scalars", `[1,"x",true]`, 1, false},
		{"array-in-array", `[[]]`, 1, true},
		{"arrays-at-the-limit", nested(`[`, `]`, 5, `1`), 5, false},
		{"arrays-beyond-the-limit", nested(`[`, `]`, 6, `1`), 5, true},
		{"deep-array-after-a-shallow-one", `{"a":[1],"b":` + nested(`[`, `]`, 5, ``) + `}`, 5, true},
		{"arrays-in-objects-at-the-limit", nested(`{"a":[`, `]}`, 3, `1`), 6, false},
		{"arrays-in-objects-beyond-the-limit", nested(`{"a":[`, `]}`, 3, `{}`), 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v interface{}
			if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
				t.Fatal(err)
			}
			if got := nestsDeeper(v, tc.maxDepth); got != tc.want {
				t.Errorf("nestsDeeper(%s, %d) = %v, want %v", tc.json, tc.maxDepth, got, tc.want)
			}
		})
	}
}
