package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/test/exportgen"
)

// writeExport writes a 1.30 cluster export of about n items
// (test/exportgen) as kubectl -o yaml prints it, and returns its path and
// size.
func writeExport(tb testing.TB, n int) (string, int) {
	tb.Helper()
	data, err := yaml.Marshal(exportgen.Export(exportgen.Options{Items: n}))
	if err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(tb.TempDir(), "export.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return file, len(data)
}

// TestGeneratedExportIsUsable: the export BenchmarkLargeExport measures is
// one every command takes whole (nothing refused; convert exits 1 for the
// 1.30 classes a later target rejects, written all the same), and migrate
// leaves out what it should (the claims generated for pods, the pods a
// ReplicaSet created, the 1.30 parameter kinds), so that the benchmark
// measures the work of a real migration.
func TestGeneratedExportIsUsable(t *testing.T) {
	file, _ := writeExport(t, 300)
	for _, args := range append(benchmarkCommands(), []string{"convert", "--to", "v1alpha1"}, []string{"convert", "--to", "v1beta1"}) {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if args[0] == "migrate" {
				args = append(args, "--verbose") // each object left out, by name
			}
			code, stdout, stderr := run(t, "", append(args, "-f", file)...)
			if code != ExitOK && !(args[0] == "convert" && code == ExitInvalid && stdout != "") {
				t.Fatalf("exit %d: %.2000s", code, stderr)
			}
			if args[0] == "migrate" {
				for _, want := range []string{"left out: generated for Pod", "left out: created by ReplicaSet", "ResourceClaimParameters team-0/claim-0-params: left out"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("stderr lacks %q", want)
					}
				}
				if objs := readObjects(t, stdout); len(objs) < 100 {
					t.Errorf("%d objects migrated", len(objs))
				}
			}
		})
	}
}

func benchmarkCommands() [][]string {
	return [][]string{
		{"migrate", "--to", "v1alpha3"},
		{"migrate", "--to", "v1"},
		{"convert", "--to", "v1alpha3"},
		{"convert", "--to", "v1"},
		{"validate"},
	}
}

// BenchmarkLargeExport runs the commands on a 1.30 cluster export of about
// 4,000 items (test/exportgen: claims with their parameters, pods,
// claims generated for pods, templates, Deployments, classes) as kubectl -o
// yaml prints it, one kind: List of 9 MB (docs/performance.md, "The command
// line at scale"). BENCH_EXPORT_ITEMS sets another size.
func BenchmarkLargeExport(b *testing.B) {
	n := 4000
	if s := os.Getenv("BENCH_EXPORT_ITEMS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	file, size := writeExport(b, n)
	for _, args := range benchmarkCommands() {
		name := args[0] // validate, migrate-v1alpha3, convert-v1
		if len(args) > 2 {
			name += "-" + args[2]
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				var out, errOut bytes.Buffer
				if code := Main(append(args, "-f", file), nil, &out, &errOut); code != ExitOK {
					b.Fatalf("exit %d: %.2000s", code, errOut.String())
				}
			}
		})
	}
}
