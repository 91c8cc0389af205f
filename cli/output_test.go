package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConvertYAMLOutputReadsBack: what convert and migrate print as YAML
// reads back (with kubectl's reader, sigs.k8s.io/yaml) as the objects they
// converted: strings that look like other YAML values stay strings, keys
// that YAML 1.1 reads as booleans stay keys.
func TestConvertYAMLOutputReadsBack(t *testing.T) {
	const in = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},
"data":{"s1":"0123","s2":"true","s3":"1e3","s4":"y","s5":"0x1F","s6":"0o17","s7":"2024-01-01","s8":"~",
"s9":"null","s10":"-0","s11":"","s12":"off","s13":"<<","s14":"=","s15":"--- x","s16":"...","s17":"#c",
"s18":"a\nb","s19":"a\r\nb","s20":" lead","s21":"trail ","s22":"\t","s23":"\u2028","s24":"\ufeffbom","s25":"x: y",
"y":"k1","n":"k2","on":"k3","1":"k4","true":"k5","null":"k6","~":"k7"},
"n":{"big":12345678901234567890,"min":-9223372036854775808,"f":1.5,"zero":0,"list":[1,-2,3.25]}}`
	for _, args := range [][]string{
		{"convert", "--to", "v1alpha3", "-f", "-"},
		{"migrate", "--to", "v1alpha3", "-f", "-"},
	} {
		code, out, stderr := run(t, in, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
		}
		if diff := cmp.Diff(readObjects(t, in), readObjects(t, out), numbers); diff != "" {
			t.Errorf("%s: YAML output reads back changed (-want +got):\n%s\n%s", args[0], diff, out)
		}
	}
}

// TestConvertYAMLOutputRefused: a value that YAML cannot carry is refused
// (exit 1, nothing on stdout, naming the document, object and field) instead of
// printed as something else; -o json prints it.
func TestConvertYAMLOutputRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		key, value, want string
	}{
		"number beyond float64":    {value: `1e400`, want: `<stdin>: document 1 (line 1): ConfigMap a: data.x: the number 1e400 reads back from YAML as the string "1e400"`},
		"more digits than float64": {value: `123456789012345678901234567890`, want: `<stdin>: document 1 (line 1): ConfigMap a: data.x: the number 123456789012345678901234567890 reads back from YAML as the number 1.2345678901234568e+29`},
		"too small for float64":    {value: `1e-400`, want: `<stdin>: document 1 (line 1): ConfigMap a: data.x: the number 1e-400 reads back from YAML as the number 0`},
		"next line character":      {value: `"a\u0085b"`, want: `<stdin>: document 1 (line 1): ConfigMap a: data.x: the string "a\u0085b" reads back from YAML as the string "a b"`},
		// The writer does not quote a key "<<": YAML reads it as a merge key.
		"merge key as a key":  {key: "<<", value: `{"a":"b"}`, want: `<stdin>: document 1 (line 1): ConfigMap a: data.<<: missing when YAML is read back`},
		"merge key, a string": {key: "<<", value: `"b"`, want: `<stdin>: document 1 (line 1): ConfigMap a: its YAML does not read back: yaml: map merge requires map or sequence of maps as the value`},
		// sigs.k8s.io/yaml reads the JSON it writes as YAML: a key over 1024
		// characters is too long for it.
		"key over 1024 characters": {key: strings.Repeat("k", 1025), value: `1`, want: `<stdin>: document 1 (line 1): ConfigMap a: cannot be written as YAML: yaml: `},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.key == "" {
				tc.key = "x"
			}
			in := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"` + tc.key + `":` + tc.value + `}}`
			code, out, stderr := run(t, in, "convert", "--to", "v1", "-f", "-")
			if code != ExitInvalid || out != "" || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "-o json") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, no output, an error containing %q", code, out, stderr, tc.want)
			}
			code, out, stderr = run(t, in, "convert", "--to", "v1", "-f", "-", "-o", "json")
			if code != 0 {
				t.Fatalf("-o json: exit %d, stderr %q", code, stderr)
			}
			if diff := cmp.Diff(readObjects(t, in), readObjects(t, out), numbers); diff != "" {
				t.Errorf("-o json (-want +got):\n%s", diff)
			}
		})
	}
	// 1e3 and 1.0 read back as 1000 and 1: the same numbers.
	code, _, stderr := run(t, `{"apiVersion":"v1","kind":"A","n":[1e3,1.0,-0,0.1]}`, "convert", "--to", "v1", "-f", "-")
	if code != 0 {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A failure to write the output (a full disk) is a failure, exit 1, not
// unusable input (exit 2).
func TestOutputWriteFailure(t *testing.T) {
	for _, cmd := range []string{"convert", "migrate"} {
		var errOut bytes.Buffer
		code := Main([]string{cmd, "--to", "v1alpha3", "-f", "-"}, strings.NewReader("apiVersion: v1\nkind: A\n"), failingWriter{}, &errOut)
		if code != ExitInvalid || !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 naming the error", cmd, code, errOut.String())
		}
	}
}
