//go:build corpus

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
	"github.com/claimbridge/claimbridge/test/migratetest"
	"github.com/claimbridge/claimbridge/test/testcorpus"
)

// The tests of this file read the real-world corpus: manifests that DRA
// drivers, Kubernetes and its documentation published for every release
// from 1.26 (v1alpha1) to v1, kept outside this repository, from the
// directory named by CLAIMBRIDGE_CORPUS:
//
//	CLAIMBRIDGE_CORPUS=../shared/corpus/realworld go test -tags corpus ./cli/ -run Corpus
//
// They fail when it is not set. The corpus holds what was published, as
// published: objects no release accepts, templates that are not YAML, a
// 1.32 v1alpha3 body. So they check only what must hold for any input.

// corpusRun is run that turns a panic of the command into a test error
// (exit -1), so that one file that crashes a command does not hide the
// others.
func corpusRun(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil {
				code = -1
				t.Errorf("claimbridge %s: panic: %v\n%s", strings.Join(args, " "), r, debug.Stack())
			}
		}()
		code = Main(args, bytes.NewReader(stdin), &out, &errOut)
	}()
	return code, out.String(), errOut.String()
}

// namesObject reports whether a line of text names one of the objects of
// docs as the commands do: its position and "<Kind> <namespace>/<name>".
func namesObject(text string, docs []manifest.Document) bool {
	for _, line := range strings.Split(text, "\n") {
		for _, d := range docs {
			if strings.Contains(line, d.Position()+": ") && strings.Contains(line, api.Describe(d.Object)) {
				return true
			}
		}
	}
	return false
}

// emptyNamespace is an object named with an empty namespace, "Kind /name"
// (the corpus's file names are absolute: "Error: /…" is not one).
var emptyNamespace = regexp.MustCompile(`\b[A-Z][A-Za-z]* /\S`)

// errorLines are the "Error: " lines of a command's standard error.
func errorLines(stderr string) string {
	var lines []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "Error: ") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// TestCorpusManifests runs validate, convert --to and migrate --to every
// version on every manifest of the corpus (as files, as a user does):
//
//   - every command ends with a documented exit code (0, 1, 2), never a panic;
//   - a file that cannot be read as a manifest is refused as such (exit 2)
//     by every command, saying so on standard error;
//   - an invalid exit (1) names the object: validate's findings on standard
//     output (where validate reports them; its standard error has only
//     warnings and notes), each "<position>: <Kind> <namespace>/<name>: …";
//     convert's and migrate's "Error: " line on standard error;
//   - convert, when it converts (exit 0), writes one object for each, in
//     place: claims and templates converted back give the original exactly,
//     workloads are the original with their resourceClaims in the target's
//     shape (as migrate gives them), and every other object is unchanged;
//   - what migrate writes on exit 0 is a manifest, and no message names an
//     object without a namespace as "Kind /name".
func TestCorpusManifests(t *testing.T) {
	files := testcorpus.Files(t)
	exits := map[string]map[int]int{} // command -> exit code -> files
	count := func(cmd string, code int) {
		if exits[cmd] == nil {
			exits[cmd] = map[int]int{}
		}
		exits[cmd][code]++
	}
	for _, file := range files {
		t.Run(testcorpus.Name(file), func(t *testing.T) {
			orig, readErr := manifest.ReadAll([]string{file}, nil)
			check := func(cmd string, code int, stdout, stderr string) bool {
				t.Helper()
				count(cmd, code)
				switch code {
				case -1:
					return false // a panic, reported
				case ExitOK, ExitInvalid, ExitBadInput:
				default:
					t.Errorf("%s: exit %d, not a documented exit code\nstderr: %s", cmd, code, stderr)
					return false
				}
				if readErr != nil && code != ExitBadInput {
					t.Errorf("%s: exit %d for a file that is no manifest (%v)\nstderr: %s", cmd, code, readErr, stderr)
				}
				if code == ExitBadInput && stderr == "" {
					t.Errorf("%s: exit %d with nothing on standard error", cmd, code)
				}
				if code == ExitInvalid {
					if strings.HasPrefix(cmd, "validate") {
						if stdout == "" {
							t.Errorf("%s: exit %d with no finding on standard output\nstderr: %s", cmd, code, stderr)
						}
						for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
							// A finding's further lines (a CEL error's
							// " | …") are indented.
							if !strings.HasPrefix(line, " ") && !namesObject(line, orig) {
								t.Errorf("%s: exit %d: a finding that names no object of the file: %q", cmd, code, line)
							}
						}
					} else if !namesObject(errorLines(stderr), orig) {
						t.Errorf("%s: exit %d, but no Error line of standard error names an object of the file:\n%s", cmd, code, stderr)
					}
				}
				if !strings.HasPrefix(cmd, "validate") && emptyNamespace.MatchString(stderr) {
					t.Errorf("%s names an object with an empty namespace:\n%s", cmd, stderr)
				}
				return code == ExitOK
			}

			code, stdout, stderr := corpusRun(t, nil, "validate", "-f", file)
			check("validate", code, stdout, stderr)
			for _, to := range api.ConversionVersions {
				cmd := "convert --to " + to
				code, stdout, stderr := corpusRun(t, nil, "convert", "--to", to, "-f", file, "-q")
				// Exit 1 with output: written, with what the target rejects.
				if check(cmd, code, stdout, stderr) || code == ExitInvalid && stdout != "" {
					checkConverted(t, orig, to, stdout)
				}
				cmd = "migrate --to " + to
				code, stdout, stderr = corpusRun(t, nil, "migrate", "--to", to, "-f", file)
				if check(cmd, code, stdout, stderr) && stdout != "" {
					if _, err := manifest.Parse("migrated", []byte(stdout)); err != nil {
						t.Errorf("%s: exit 0 but its output is not a manifest: %v\n%s", cmd, err, stdout)
					}
				}
			}
		})
	}
	var summary strings.Builder
	for _, cmd := range []string{"validate", "convert --to v1", "migrate --to v1alpha1", "migrate --to v1"} {
		fmt.Fprintf(&summary, "\n  %-22s exit 0: %3d, 1: %3d, 2: %3d", cmd, exits[cmd][0], exits[cmd][1], exits[cmd][2])
	}
	t.Logf("%d corpus manifests:%s", len(files), summary.String())
}

// TestCorpusCommands checks of every manifest of the corpus, given on
// standard input, what FuzzCommands checks of its seeds (checkCommands).
func TestCorpusCommands(t *testing.T) {
	for _, file := range testcorpus.Files(t) {
		t.Run(testcorpus.Name(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("panic: %v\n%s", r, debug.Stack())
				}
			}()
			checkCommands(t, data)
		})
	}
}

// TestCorpusPassThroughBytes: convert --to every version, as the Helm
// post-renderer and kubectl plugin run it (the manifest on standard input),
// writes each YAML document of the corpus that it does not change — every
// object outside the DRA groups but a workload whose resourceClaims it
// rewrites — exactly as it was read, comments, key order, quoting and the
// "---" lines and comments around it included; a file none of whose
// objects it changes comes out as it went in.
func TestCorpusPassThroughBytes(t *testing.T) {
	checked, files := 0, 0
	for _, file := range testcorpus.Files(t) {
		t.Run(testcorpus.Name(file), func(t *testing.T) {
			orig, err := manifest.ReadAll([]string{file}, nil)
			if err != nil {
				return // no manifest: TestCorpusManifests checks that it is refused
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, to := range api.ConversionVersions {
				code, stdout, _ := corpusRun(t, data, "convert", "-q", "-f", "-", "--to="+to)
				if code != ExitOK {
					continue // nothing written, or what the target rejects: TestCorpusManifests checks why
				}
				if unchanged(t, orig, to) {
					files++
					if stdout != string(data) {
						t.Errorf("convert --to %s changes nothing, but does not write the file as it is:\n%s", to, cmp.Diff(string(data), stdout))
					}
				}
				out, err := manifest.Parse("converted", []byte(stdout))
				if err != nil || len(out) != len(orig) {
					t.Errorf("convert --to %s: %d objects for %d (%v)", to, len(out), len(orig), err)
					continue
				}
				for i, d := range orig {
					_, group, _, _, _ := api.TypeOf(d.Object)
					if v := migrate.Convert(d.Object, migratetest.Target(t, to)); d.Raw() == nil || api.IsGroup(group) || v.Outcome == report.Rewritten {
						continue
					}
					checked++
					if got := out[i].Raw(); !bytes.Equal(got, d.Raw()) {
						t.Errorf("convert --to %s: %s: written as\n%s\nread as\n%s", to, d.Position(), got, d.Raw())
					}
				}
			}
		})
	}
	if checked == 0 || files == 0 {
		t.Fatalf("%d documents and %d files of the corpus were passed through", checked, files)
	}
	t.Logf("%d documents passed through byte for byte; %d files written as they are", checked, files)
}

// unchanged reports whether convert --to leaves every object of docs as it is.
func unchanged(t *testing.T, docs []manifest.Document, to string) bool {
	for _, d := range docs {
		if v := migrate.Convert(d.Object, migratetest.Target(t, to)); !reflect.DeepEqual(v.Object, d.Object) {
			return false
		}
	}
	return true
}

// TestCorpusFn: claimbridge fn, given each file of the corpus as a
// ResourceList (as kustomize gives a transformer its resources), leaves
// every object it does not change as it was, comments included, and
// converts the others.
func TestCorpusFn(t *testing.T) {
	checked := 0
	for _, file := range testcorpus.Files(t) {
		t.Run(testcorpus.Name(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			items, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
			if err != nil || len(items) == 0 {
				return // no manifest kustomize reads
			}
			for _, to := range []string{"1.30", "1.31", "1.33", "1.37"} {
				config := kyaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: claimbridge\ndata:\n  to: \"" + to + "\"\n")
				var in bytes.Buffer
				if err := (kio.ByteWriter{Writer: &in, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: config}).Write(items); err != nil {
					t.Fatal(err)
				}
				code, stdout, stderr := corpusRun(t, in.Bytes(), "fn")
				if code != ExitOK {
					continue // a refusal: TestFn checks it is one
				}
				// What kustomize gives without the function: the items as
				// read from the ResourceList.
				listed, err := (&kio.ByteReader{Reader: &in, OmitReaderAnnotations: true}).Read()
				if err != nil {
					t.Fatal(err)
				}
				out, err := (&kio.ByteReader{Reader: strings.NewReader(stdout), OmitReaderAnnotations: true}).Read()
				if err != nil || len(out) != len(listed) {
					t.Fatalf("--to %s: %d objects for %d (%v)\n%s", to, len(out), len(listed), err, stderr)
				}
				for i, item := range listed {
					obj, err := item.Map()
					if err != nil {
						t.Fatal(err)
					}
					v := migrate.Convert(jsonNumbers(t, obj), migratetest.Target(t, to))
					same := reflect.DeepEqual(v.Object, jsonNumbers(t, obj))
					if want, got := item.MustString(), out[i].MustString(); same != (want == got) {
						t.Errorf("--to %s: items[%d]: changed by the conversion: %v; written as\n%s\nread as\n%s", to, i, !same, got, want)
					} else if same {
						checked++
					}
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no object of the corpus was left as it was")
	}
	t.Logf("%d objects left as they were", checked)
}

// jsonNumbers is obj as manifest reads it: numbers are json.Number.
func jsonNumbers(t *testing.T, obj map[string]interface{}) map[string]interface{} {
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out map[string]interface{}
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}
