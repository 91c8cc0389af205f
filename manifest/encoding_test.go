package manifest

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// utf16Bytes encodes s as UTF-16 with a byte order mark, as Windows
// PowerShell 5 writes `kubectl get -o yaml > file`.
func utf16Bytes(s string, bigEndian bool) []byte {
	units := append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...)
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// TestParseByteOrderMarks: input with a byte order mark is read as kubectl
// reads it (UTF-8 with the mark dropped, UTF-16 decoded), so a JSON stream
// stays JSON and no document is lost.
func TestParseByteOrderMarks(t *testing.T) {
	const stream = "apiVersion: v1\nkind: A\nmetadata: {name: \"caf\u00e9 \U0001F600\"}\n---\napiVersion: v1\nkind: B\n"
	type pos struct {
		Kind string
		Line int
	}
	for name, tc := range map[string]struct {
		data []byte
		want []pos
		n    interface{} // the A object's "n", when set
	}{
		"utf-8 bom, yaml":  {data: []byte("\xef\xbb\xbf" + stream), want: []pos{{"A", 1}, {"B", 5}}},
		"utf-8 bom, json":  {data: []byte("\xef\xbb\xbf" + `{"apiVersion":"v1","kind":"A","n":1e400}`), want: []pos{{"A", 1}}, n: json.Number("1e400")},
		"utf-16le, yaml":   {data: utf16Bytes(stream, false), want: []pos{{"A", 1}, {"B", 5}}},
		"utf-16be, yaml":   {data: utf16Bytes(stream, true), want: []pos{{"A", 1}, {"B", 5}}},
		"utf-16le, crlf":   {data: utf16Bytes(strings.ReplaceAll(stream, "\n", "\r\n"), false), want: []pos{{"A", 1}, {"B", 5}}},
		"utf-16le, json":   {data: utf16Bytes(`{"apiVersion":"v1","kind":"A","n":1e400}`+"\n"+`{"apiVersion":"v1","kind":"B"}`, false), want: []pos{{"A", 1}, {"B", 2}}, n: json.Number("1e400")},
		"no bom, for once": {data: []byte(stream), want: []pos{{"A", 1}, {"B", 5}}},
	} {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse("f", tc.data)
			if err != nil {
				t.Fatal(err)
			}
			var got []pos
			for _, d := range docs {
				got = append(got, pos{d.Object["kind"].(string), d.Line})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("documents (-want +got):\n%s", diff)
			}
			if tc.n != nil {
				if diff := cmp.Diff(tc.n, docs[0].Object["n"]); diff != "" {
					t.Errorf("n (-want +got):\n%s", diff)
				}
			} else if name := docs[0].Object["metadata"].(map[string]interface{})["name"]; name != "caf\u00e9 \U0001F600" {
				t.Errorf("name = %q", name)
			}
		})
	}
}

func TestParseBadUTF16(t *testing.T) {
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"odd length":     {data: append(utf16Bytes("apiVersion: v1\nkind: A\n", false), 'x'), want: "odd number of bytes"},
		"lone surrogate": {data: append(utf16Bytes("apiVersion: v1\nkind: A\n", false), 0x00, 0xD8, 'a', 0), want: "line 3: unpaired UTF-16 surrogate"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("f", tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestParseNotUTF8: bytes that are not UTF-8 (a Latin-1 file) are refused,
// in JSON as in YAML, naming the line; encoding/json would turn them into
// U+FFFD without a word.
func TestParseNotUTF8(t *testing.T) {
	for name, data := range map[string]string{
		"json":        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\n\"data\":{\"x\":\"caf\xe9\"}}\n",
		"json stream": "{\"apiVersion\":\"v1\",\"kind\":\"A\"}\n{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"x\":\"caf\xe9\"}}\n",
		"yaml":        "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: caf\xe9\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("f", []byte(data))
			want := "f: line 2: not UTF-8 text: byte 0xe9"
			if name == "yaml" {
				want = "f: line 4: not UTF-8 text: byte 0xe9"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want one containing %q", err, want)
			}
		})
	}
}
