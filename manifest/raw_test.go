package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRaw: each YAML document of its own keeps its bytes as read (Raw),
// with the "---" line before it and the comments and empty documents
// around it, and the comment and "---" lines at its top (Head); items of a
// List and JSON keep none.
func TestRaw(t *testing.T) {
	type raw struct{ Raw, Head, Tail string }
	for _, c := range []struct {
		name, data string
		want       []raw
	}{{
		name: "comments-key-order-quoting",
		data: "# Source: chart/templates/cm.yaml\nkind: ConfigMap  # trailing\napiVersion: 'v1'\nmetadata: {name: \"a\"}\ndata:\n  z: |\n    text\n  a: 1\n",
		want: []raw{{
			Raw:  "# Source: chart/templates/cm.yaml\nkind: ConfigMap  # trailing\napiVersion: 'v1'\nmetadata: {name: \"a\"}\ndata:\n  z: |\n    text\n  a: 1\n",
			Head: "# Source: chart/templates/cm.yaml\n",
		}},
	}, {
		name: "separators-and-helm-stream",
		data: "---\n# Source: a.yaml\n\nkind: A\napiVersion: v1\n--- # next\n# Source: b.yaml\nkind: B\napiVersion: v1\n...\n---\nkind: C\napiVersion: v1\n",
		want: []raw{
			{Raw: "---\n# Source: a.yaml\n\nkind: A\napiVersion: v1\n", Head: "---\n# Source: a.yaml\n\n"},
			{Raw: "--- # next\n# Source: b.yaml\nkind: B\napiVersion: v1\n...\n", Head: "--- # next\n# Source: b.yaml\n"},
			{Raw: "---\nkind: C\napiVersion: v1\n", Head: "---\n"},
		},
	}, {
		name: "no-trailing-newline",
		data: "kind: A\napiVersion: v1\n---\n# c\nkind: B\napiVersion: v1",
		want: []raw{{Raw: "kind: A\napiVersion: v1\n"}, {Raw: "---\n# c\nkind: B\napiVersion: v1", Head: "---\n# c\n"}},
	}, {
		name: "documents-with-no-object",
		data: "# license\n---\n# c\n---\nkind: A\napiVersion: v1\n---\n\n---\n# d\nkind: B\napiVersion: v1\n---\n# end\n---\n",
		want: []raw{
			{Raw: "# license\n---\n# c\n---\nkind: A\napiVersion: v1\n", Head: "# license\n---\n# c\n---\n"},
			{Raw: "---\n\n---\n# d\nkind: B\napiVersion: v1\n---\n# end\n---\n", Head: "---\n\n---\n# d\n", Tail: "---\n# end\n---\n"},
		},
	}, {
		name: "crlf",
		data: "# c\r\nkind: A\r\napiVersion: v1\r\n---\r\nkind: B\r\napiVersion: v1\r\n",
		want: []raw{{Raw: "# c\r\nkind: A\r\napiVersion: v1\r\n", Head: "# c\r\n"}, {Raw: "---\r\nkind: B\r\napiVersion: v1\r\n", Head: "---\r\n"}},
	}, {
		name: "lone-cr",
		data: "kind: A\rapiVersion: v1\r---\rkind: B\rapiVersion: v1\r",
		want: []raw{{Raw: "kind: A\rapiVersion: v1\r"}, {Raw: "---\rkind: B\rapiVersion: v1\r"}},
	}, {
		name: "only-a-comment-head",
		data: "# only\nkind: A\napiVersion: v1",
		want: []raw{{Raw: "# only\nkind: A\napiVersion: v1", Head: "# only\n"}},
	}, {
		name: "list-items-keep-nothing",
		data: "# c\napiVersion: v1\nkind: List\nitems:\n- kind: A\n  apiVersion: v1\n",
		want: []raw{{}},
	}, {
		name: "json-keeps-nothing",
		data: `{"kind": "A", "apiVersion": "v1"}`,
		want: []raw{{}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			docs, err := Parse("f.yaml", []byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			var got []raw
			for _, d := range docs {
				got = append(got, raw{string(d.Raw()), string(d.Head()), string(d.raw[len(d.raw)-d.tail:])})
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
