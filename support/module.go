package support

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/claimbridge/claimbridge/api"
)

// The modules of a driver whose release is a Kubernetes minor's.
const (
	LibraryModule   = "k8s.io/dynamic-resource-allocation"
	ClientGoModule  = "k8s.io/client-go"
	APIModule       = "k8s.io/api"
	resourcePackage = "k8s.io/api/resource/"
)

// A Module is what a driver's Go module tells of the releases it runs on:
// the minors of the Kubernetes modules it requires, and its own typed calls
// of resource.k8s.io.
type Module struct {
	// Minors are the minors of LibraryModule, ClientGoModule and APIModule
	// it builds with (after replace directives), by module; a module it
	// does not require is absent.
	Minors map[string]int
	// Calls are its typed calls of resource.k8s.io, in file order.
	Calls []Call
	// Imports are the k8s.io/api/resource versions it imports, each with
	// its first position.
	Imports map[string]string
	// Notes say what could not be read: a file that does not parse, a
	// module replaced by a directory.
	Notes []string
}

// A Call is a typed client, informer or lister call of a driver:
// x.ResourceV1beta1().ResourceClaims(ns), f.Resource().V1().ResourceSlices().
type Call struct {
	Version, Kind string
	Position      string // file:line, relative to the module
	Expr          string // "ResourceV1beta1().ResourceClaims"
}

// ReadModule reads the module in dir: its go.mod and its Go files but
// tests, vendor/, testdata/ and hidden directories.
func ReadModule(dir string) (*Module, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return nil, err
	}
	m := &Module{Minors: map[string]int{}, Imports: map[string]string{}}
	for _, r := range f.Require {
		m.setMinor(r.Mod.Path, r.Mod.Version)
	}
	for _, r := range f.Replace {
		if _, required := m.Minors[r.Old.Path]; !required {
			continue
		}
		if r.New.Version == "" {
			m.Notes = append(m.Notes, fmt.Sprintf("go.mod replaces %s by the directory %s: its release is taken from the requirement", r.Old.Path, r.New.Path))
			continue
		}
		m.setMinor(r.Old.Path, r.New.Version)
	}
	return m, m.scan(dir)
}

// setMinor records the minor of module path at version: v0.34.2 and the
// pseudo-version v0.35.0-20250101000000-abcdef012345 are 34 and 35.
func (m *Module) setMinor(path, version string) {
	if path != LibraryModule && path != ClientGoModule && path != APIModule {
		return
	}
	if minor, err := strconv.Atoi(strings.TrimPrefix(semver.MajorMinor(version), "v0.")); err == nil {
		m.Minors[path] = minor
	}
}

// scan reads the Go files under dir.
func (m *Module) scan(dir string) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		switch {
		case d.IsDir() && path != dir && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go"):
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			m.Notes = append(m.Notes, parseError(dir, err))
		}
		rel, _ := filepath.Rel(dir, path)
		m.read(fset, filepath.ToSlash(rel), file)
		return nil
	})
}

// parseError is err of a file that does not parse, at its first position
// relative to dir.
func parseError(dir string, err error) string {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		rel, _ := filepath.Rel(dir, list[0].Pos.Filename)
		return fmt.Sprintf("%s:%d: does not parse: %s (its other calls are read)", filepath.ToSlash(rel), list[0].Pos.Line, list[0].Msg)
	}
	return err.Error()
}

// versionName is a typed client's version method: V1beta1, ResourceV1beta1.
var versionName = regexp.MustCompile(`^(Resource)?(V1((alpha|beta)\d+)?)$`)

// read records the imports and typed calls of file, at path.
func (m *Module) read(fset *token.FileSet, path string, file *ast.File) {
	at := func(p token.Pos) string { return fmt.Sprintf("%s:%d", path, fset.Position(p).Line) }
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if version, ok := strings.CutPrefix(p, resourcePackage); ok && !strings.Contains(version, "/") {
			if _, seen := m.Imports[version]; !seen {
				m.Imports[version] = at(imp.Pos())
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		kind := api.KindOfResource(strings.ToLower(sel.Sel.Name))
		inner, ok := sel.X.(*ast.CallExpr)
		if kind == "" || !ok {
			return true
		}
		if version, method := typedVersion(inner.Fun); version != "" {
			m.Calls = append(m.Calls, Call{Version: version, Kind: kind, Position: at(sel.Sel.Pos()), Expr: method + "()." + sel.Sel.Name})
		}
		return true
	})
}

// typedVersion is the resource.k8s.io version fun selects, and how: a
// clientset's ResourceV1beta1, or an informer factory's Resource().V1beta1;
// "" for another function.
func typedVersion(fun ast.Expr) (version, method string) {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	match := versionName.FindStringSubmatch(sel.Sel.Name)
	if match == nil {
		return "", ""
	}
	version = strings.ToLower(match[2])
	if match[1] != "" {
		return version, sel.Sel.Name
	}
	if call, ok := sel.X.(*ast.CallExpr); ok {
		if group, ok := call.Fun.(*ast.SelectorExpr); ok && group.Sel.Name == "Resource" {
			return version, "Resource()." + sel.Sel.Name
		}
	}
	return "", ""
}

// Library is the minor of LibraryModule the module builds with; 0 when it
// does not require it.
func (m *Module) Library() int { return m.Minors[LibraryModule] }

// ReadDir reads the module of a driver's directory dir: nil with only a
// chart, and a note when dir has no go.mod.
func ReadDir(dir, chart string) (*Module, string, error) {
	if dir == "" && chart != "" {
		return nil, "", nil
	}
	dir = cmp.Or(dir, ".")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("%s: not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); errors.Is(err, os.ErrNotExist) {
		if chart == "" {
			return nil, "", fmt.Errorf("%s has no go.mod and no --chart is given: nothing to judge", dir)
		}
		return nil, dir + " has no go.mod: only the chart is judged", nil
	}
	m, err := ReadModule(dir)
	return m, "", err
}

// Declaring is the file that declares the driver's releases, where SARIF
// puts what is said of them: the chart's Chart.yaml (or its package), else
// the module's go.mod.
func Declaring(dir, chart string) string {
	switch fi, err := os.Stat(chart); {
	case chart == "":
		return filepath.Join(cmp.Or(dir, "."), "go.mod")
	case err == nil && fi.IsDir():
		return filepath.Join(chart, "Chart.yaml")
	}
	return chart
}
