package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/test/exportgen"
)

// splitJSONDecoder is splitJSON as it was before it cut the values out of
// data: a json.Decoder reading each into a json.RawMessage (a copy, after
// the decoder's buffer of it). The reference FuzzSplitJSON compares with.
func splitJSONDecoder(data []byte) (chunks []chunk, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	line, counted := 1, 0
	for {
		var raw json.RawMessage
		before := dec.InputOffset()
		if err := dec.Decode(&raw); err == io.EOF {
			return chunks, int(before), true
		} else if err != nil {
			return chunks, int(before), false
		}
		offset := int(before) + len(data[before:]) - len(bytes.TrimLeft(data[before:], " \t\r\n"))
		line += countLines(data[counted:offset])
		counted = offset
		chunks = append(chunks, chunk{index: len(chunks) + 1, line: line, data: raw, json: true})
	}
}

// splitDecoder is split as it was, with splitJSONDecoder.
func splitDecoder(data []byte) []chunk {
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		chunks, end, ok := splitJSONDecoder(data)
		if ok {
			return chunks
		}
		if len(chunks) == 1 {
			rest := end + len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r"))
			if rest < len(data) && data[rest] == '\n' {
				rest++
			}
			return append(chunks, splitYAML(data[rest:], countLines(data[:rest]), len(chunks))...)
		}
	}
	return splitYAML(data, 0, 0)
}

// chunkOptions compare chunks by their text and their error's text.
var chunkOptions = cmp.Options{
	cmp.AllowUnexported(chunk{}),
	cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) }),
	cmp.Transformer("text", func(b []byte) string { return string(b) }),
}

// checkSplitJSON checks that splitJSON cuts data as splitJSONDecoder does
// (the same chunks, end and verdict), and split as splitDecoder, for data
// as given and as ParseEach gives it to split (after toUTF8).
func checkSplitJSON(t *testing.T, data []byte) {
	t.Helper()
	inputs := [][]byte{data}
	if u, err := toUTF8(data); err == nil && !bytes.Equal(u, data) {
		inputs = append(inputs, u)
	}
	for _, data := range inputs {
		chunks, end, ok := splitJSON(data)
		wantChunks, wantEnd, wantOK := splitJSONDecoder(data)
		if end != wantEnd || ok != wantOK {
			t.Fatalf("splitJSON: end %d, ok %t; the decoder: end %d, ok %t", end, ok, wantEnd, wantOK)
		}
		if diff := cmp.Diff(wantChunks, chunks, chunkOptions); diff != "" {
			t.Fatalf("splitJSON's chunks (+) are not the decoder's (-):\n%s", diff)
		}
		if diff := cmp.Diff(splitDecoder(data), split(data), chunkOptions); diff != "" {
			t.Fatalf("split's chunks (+) are not those with the decoder (-):\n%s", diff)
		}
	}
}

// jsonSplitEdgeCases are streams at the edges of splitJSON: seeds of
// FuzzSplitJSON and cases of TestSplitJSONAsDecoder.
var jsonSplitEdgeCases = []struct{ name, data string }{
	{"empty", ``},
	{"spaces", " \t\r\n"},
	{"an object", `{"apiVersion":"v1","kind":"A"}`},
	{"an array", `[{"apiVersion":"v1","kind":"A"}]`},
	{"a stream of values", "{\"a\":1}\n\n{\"b\":\n2}\r\n[3] {}\t[]\n"},
	{"values without spaces", `{"a":1}{"b":2}[]{}`},
	{"scalars after a value", `{}"s" true false null 0 -1.5e+3 1E-7 -0 0.0e0 1e400 123456789012345678901234567890`},
	{"scalars run together", `[]1"a"truefalsenull01-2 1.5.3 1e5e 0e1.5`},
	{"a value then YAML", "{\"apiVersion\":\"v1\",\"kind\":\"A\"}\napiVersion: v1\nkind: B\n---\napiVersion: v1\nkind: C\n"},
	{"a value then blanks and YAML", "{\"a\":1} \t \r\nb: 2\n"},
	{"a value then a carriage return", "{\"a\":1}\r\rb: 2\n"},
	{"a value then garbage", `{"a":1} x`},
	{"two values then garbage", `{"a":1} {"b":2} x`},
	{"a value then a close", `{"a":1}}`},
	{"a value then a comma", `{"a":1},{"b":2}`},
	{"truncated object", `{"apiVersion":"v1","kind":"A","x":[1,2`},
	{"truncated string", `{"apiVersion":"v1","kind":"A","x":"abc`},
	{"truncated after a value", "{}\n{\"a\""},
	{"mismatched brackets", `{"a":[1}]`},
	{"brackets in strings", `{"a":"}]","b":["[{\"",""]}`},
	{"escapes", `["a\"b","a\\","\u00e9\ud83d\ude00","\/\b\f\n\r\t"]`},
	{"bad escapes", `["\q"]`},
	{"bad unicode escape", `["\u12"]`},
	{"an escaped quote at the end", `["\"]`},
	{"a control byte in a string", "[\"a\x01b\"]"},
	{"not UTF-8 in a string", "[\"\xff\xfe\"]"},
	{"not UTF-8 outside", "[1,\xff]"},
	{"a NUL", "{}\x00{}"},
	{"form feed and vertical tab", "{}\f{}\v"},
	{"a missing colon", `{"a" 1}`},
	{"a trailing comma", `{"a":1,}`},
	{"numbers cut short", `[-] [1.] [1e] [1e+] [.5] [01]`},
	{"top-level numbers cut short", `{} 1.`},
	{"top-level minus", `{} -`},
	{"top-level exponent", `{} 1e`},
	{"literals cut short", `{} tru`},
	{"literals misspelt", `{} trux`},
	{"null at the end", `{} nul`},
	{"false", `{} fals`},
	{"huge numbers", `{"n":123456789012345678901234567890123456789,"m":-1.5e-99999,"o":1E+99999}`},
	{"nesting at the limit", strings.Repeat("[", 10000) + strings.Repeat("]", 10000)},
	// encoding/json's limit of 10,000 levels applies below the two levels
	// splitJSON reads token by token: to a List's items.
	{"nesting beyond the limit", strings.Repeat("[", 10003) + strings.Repeat("]", 10003)},
	{"nesting beyond the limit in a second value", "{}\n" + strings.Repeat(`{"a":`, 10003) + "1" + strings.Repeat("}", 10003)},
	{"nesting beyond the limit, unclosed", strings.Repeat("[", 20000)},
	{"a BOM", "\xef\xbb\xbf{\"a\":1}\n{\"b\":2}"},
	{"UTF-16", string(utf16LE("{\"apiVersion\":\"v1\",\"kind\":\"A\",\"é\":\"ü\"}\n{\"b\":2}"))},
	{"spaces before", "\n\n  \t{\"a\":1}"},
	{"YAML", "a: 1\n---\nb: 2\n"},
	{"YAML flow", "{a: 1}\n"},
	{"a JSON value on a --- line", "{}\n--- {}\n"},
}

// TestSplitJSONAsDecoder: the edge cases cut as the decoder cut them.
func TestSplitJSONAsDecoder(t *testing.T) {
	for _, c := range jsonSplitEdgeCases {
		t.Run(c.name, func(t *testing.T) {
			checkSplitJSON(t, []byte(c.data))
		})
	}
}

// FuzzSplitJSON: whatever the input, splitJSON and split cut it as the
// decoder did.
func FuzzSplitJSON(f *testing.F) {
	for _, c := range jsonSplitEdgeCases {
		f.Add([]byte(c.data))
	}
	for _, c := range jsonListEdgeCases {
		f.Add([]byte(c.data))
	}
	addJSONExports(f)
	export, err := json.MarshalIndent(exportgen.Export(exportgen.Options{Items: 2}), "", "    ")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(export, '\n'))
	f.Add(export[:len(export)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplitJSON(t, data)
	})
}

// TestSplitJSONCutsPiecesOfTheSource: each value's chunk is a piece of the
// stream, not a copy, and cutting a large value allocates about its size,
// an item of a List at a time, each garbage at once: decoding the whole
// value, the decoder held it in its buffer (grown by doubling) and then
// copied it, so that validate of a 41 MB export held three times the file.
func TestSplitJSONCutsPiecesOfTheSource(t *testing.T) {
	export, err := json.MarshalIndent(exportgen.Export(exportgen.Options{Items: 400}), "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	data := append(append(export, "\n  "...), export...)
	second := len(export) + 3

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	chunks, end, ok := splitJSON(data)
	runtime.ReadMemStats(&after)

	if !ok || end != len(data) || len(chunks) != 2 {
		t.Fatalf("%d chunks, end %d, ok %t; want 2, %d, true", len(chunks), end, ok, len(data))
	}
	for i, want := range [][2]int{{0, len(export)}, {second, len(data)}} {
		c := chunks[i]
		if len(c.data) != want[1]-want[0] || &c.data[0] != &data[want[0]] || cap(c.data) != len(c.data) {
			t.Errorf("chunk %d: %d bytes (capacity %d), a copy or another piece; want data[%d:%d:%d]", i+1, len(c.data), cap(c.data), want[0], want[1], want[1])
		}
	}
	// The copies of the items, the decoder's buffer of one and its tokens,
	// whatever the other goroutines of the test allocate meanwhile.
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(data))*3/2 {
		t.Errorf("cutting %d bytes allocated %d bytes, want at most %d", len(data), allocated, len(data)*3/2)
	}
}
