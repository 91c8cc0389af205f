// Package image checks the container image definition as far as possible
// without a container engine: the binary builds with CGO_ENABLED=0 into a
// statically linked executable (no ELF interpreter, no shared libraries), as
// the Dockerfile builds it for its distroless base, and the Dockerfile's
// final stage is that base, runs as non-root and has the binary as
// entrypoint.
package image

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStaticBuild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("the image is linux; this test reads ELF and runs on linux only, not %s", runtime.GOOS)
	}
	out := filepath.Join(t.TempDir(), "claimbridge")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/claimbridge")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("binary has a %v program header: not static", p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) != 0 {
		t.Errorf("binary imports libraries %v (%v), want none", libs, err)
	}
	// It runs without anything from the build environment.
	run := exec.Command(out, "serve", "--help")
	run.Env = []string{}
	if b, err := run.CombinedOutput(); err != nil || !strings.Contains(string(b), "--cert-mode") {
		t.Errorf("claimbridge serve --help: %v\n%s", err, b)
	}
}

// TestDockerfile checks the final stage's instructions.
func TestDockerfile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages [][]string
	var build []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], line)
		}
		if strings.Contains(line, "go build") || strings.Contains(line, "CGO_ENABLED") {
			build = append(build, line)
		}
	}
	if len(stages) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a runtime stage", len(stages))
	}
	want := []string{
		"FROM gcr.io/distroless/static-debian12:nonroot",
		"COPY --from=build /out/claimbridge /claimbridge",
		"USER 65532:65532",
		`ENTRYPOINT ["/claimbridge"]`,
	}
	if diff := cmp.Diff(want, stages[len(stages)-1]); diff != "" {
		t.Errorf("final stage (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.Join(build, " "), "CGO_ENABLED=0") {
		t.Errorf("the build stage does not build with CGO_ENABLED=0: %q", build)
	}
}
