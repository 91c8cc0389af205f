package support

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/claimbridge/claimbridge/api"
)

// The modules of a driver whose release is a Kubernetes minor's.
const (
	LibraryModule  = "k8s.io/dynamic-resource-allocation"
	ClientGoModule = "k8s.io/client-go"
	APIModule      = "k8s.io/api"
)

// A Binary is a program a driver's repository builds: a main package with
// every package of its module it imports, directly or not, as the default
// build for linux/amd64 selects their files. A module without a main
// package is one Binary of all its packages.
type Binary struct {
	// Path is its directory, relative to the repository: "cmd/plugin".
	Path string
	// Name is the name go build gives it: "plugin"; "" for the packages
	// of a module without a main package.
	Name string
	// Library is the line of LibraryModule it is built with (34 for
	// v0.34.2) when it imports the library; 0 when it does not.
	Library int
	// Calls are its typed calls of resource.k8s.io.
	Calls []Call
}

// A Call is a typed client, informer or lister call of a driver:
// x.ResourceV1beta1().ResourceClaims(ns), f.Resource().V1().ResourceSlices().
type Call struct {
	Version, Kind string
	Position      string // file:line, relative to the repository
	Expr          string // "ResourceV1beta1().ResourceClaims"
	// Logged is the function whose work fails with the call, when the
	// call's error is only logged there: the driver runs without it.
	Logged string
	// Flag is the command-line flag, off by default, that turns the call
	// on: "health-monitoring". The driver runs without it.
	Flag string
}

// A goModule is a go.mod of the repository: its directory, path and the
// Kubernetes lines it requires, by module (after replace directives).
type goModule struct {
	dir, path string
	minors    map[string]int
}

// A goPackage is one directory's Go files of the default build.
type goPackage struct {
	name    string
	imports []string
	calls   []found
	flags   map[string]string    // the flags off by default, by the variable they set
	gates   map[token.Pos]string // the variable of the if an identifier is in, by position
	refs    map[string][]string  // the gate of each place a name is read, by name
}

// ReadBinaries reads the Go modules of the repository in dir (its go.mod
// and each nested one) and returns the binaries they build, with notes on
// what could not be read. Tests, vendor/, testdata/ and hidden
// directories are skipped.
func ReadBinaries(dir string) (bins []Binary, notes []string, err error) {
	mods, pkgs := map[string]*goModule{}, map[string]*goPackage{}
	fset := token.NewFileSet()
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "amd64", true
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel, name := filepath.ToSlash(rel), d.Name()
		switch {
		case d.IsDir() && p != dir && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")):
			return filepath.SkipDir
		case name == "go.mod" && !d.IsDir():
			m, more, err := readGoMod(p, path.Dir(rel))
			mods[m.dir], notes = m, append(notes, more...)
			if err != nil && m.dir != "." { // a nested module: the others are judged
				m.minors, notes = nil, append(notes, fmt.Sprintf("%v (its packages are not judged)", err))
				return nil
			}
			return err
		case d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go"):
			return nil
		}
		if ok, err := ctx.MatchFile(filepath.Dir(p), name); err != nil || !ok {
			return nil
		}
		file, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			notes = append(notes, parseError(dir, err))
		}
		if file == nil || file.Name == nil {
			return nil
		}
		pkg := pkgs[path.Dir(rel)]
		if pkg == nil {
			pkg = &goPackage{name: file.Name.Name, flags: map[string]string{}, gates: map[token.Pos]string{}, refs: map[string][]string{}}
			pkgs[path.Dir(rel)] = pkg
		}
		pkg.read(fset, rel, file)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, m := range slices.SortedFunc(maps.Values(mods), func(a, b *goModule) int { return strings.Compare(a.dir, b.dir) }) {
		bins = append(bins, m.binaries(mods, pkgs)...)
	}
	return bins, notes, nil
}

// readGoMod reads the go.mod at file, of the module in directory dir.
func readGoMod(file, dir string) (*goModule, []string, error) {
	m := &goModule{dir: dir, minors: map[string]int{}}
	data, err := os.ReadFile(file)
	if err != nil {
		return m, nil, err
	}
	f, err := modfile.Parse(path.Join(dir, "go.mod"), data, nil)
	if err != nil {
		return m, nil, err
	}
	if f.Module != nil {
		m.path = f.Module.Mod.Path
	}
	versions := map[string]string{}
	for _, r := range f.Require {
		versions[r.Mod.Path] = r.Mod.Version
	}
	var notes []string
	at := path.Join(dir, "go.mod")
	for _, r := range f.Replace {
		if _, required := versions[r.Old.Path]; !required || !slices.Contains([]string{LibraryModule, ClientGoModule, APIModule}, r.Old.Path) {
			continue
		}
		if r.New.Version == "" {
			notes = append(notes, fmt.Sprintf("%s replaces %s by the directory %s: its release is taken from the requirement", at, r.Old.Path, r.New.Path))
			continue
		}
		versions[r.Old.Path] = r.New.Version
	}
	for _, mod := range []string{LibraryModule, ClientGoModule, APIModule} {
		v, ok := versions[mod]
		if !ok {
			continue
		}
		if m.minors[mod] = lineOf(v); m.minors[mod] == 0 {
			notes = append(notes, fmt.Sprintf("%s builds with %s %s, of no Kubernetes line", at, mod, v))
		}
	}
	return m, notes, nil
}

// lineOpened are the days the Kubernetes lines opened: the times of
// k8s.io/api v0.N.0-alpha.0 on the module proxy.
var lineOpened = []string{30: "20231122", 31: "20240327", 32: "20240731", 33: "20241127", 34: "20250409", 35: "20250806", 36: "20251203", 37: "20260409", 38: "20260806"}

// lineOf is the Kubernetes line of a version of a k8s.io module: 34 for
// v0.34.2 and for v0.35.0-20250101000000-abcdef012345's base; for a
// pseudo-version of no release (v0.0.0-20250312…, a commit of the
// Kubernetes tree or a fork), the line open on its commit's day; 0 when
// none.
func lineOf(version string) int {
	if minor, err := strconv.Atoi(strings.TrimPrefix(semver.MajorMinor(version), "v0.")); err == nil && minor > 0 {
		return minor
	}
	t, err := module.PseudoVersionTime(version)
	if err != nil {
		return 0
	}
	day := t.UTC().Format("20060102")
	for minor := len(lineOpened) - 1; minor > 0 && lineOpened[minor] != ""; minor-- {
		if day >= lineOpened[minor] {
			return minor
		}
	}
	return 0
}

// binaries are the binaries of module m: one for each main package, or
// one for all its packages when it has none.
func (m *goModule) binaries(mods map[string]*goModule, pkgs map[string]*goPackage) []Binary {
	if m.minors == nil { // its go.mod does not parse
		return nil
	}
	own := map[string]*goPackage{} // by import path
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		if owner(dir, mods) == m {
			own[path.Join(m.path, strings.TrimPrefix(strings.TrimPrefix(dir, m.dir), "/"))] = pkgs[dir]
		}
	}
	var out []Binary
	for _, ip := range slices.Sorted(maps.Keys(own)) {
		if own[ip].name == "main" {
			b := m.binary(path.Join(m.dir, strings.TrimPrefix(ip, m.path)), own, []string{ip})
			b.Name = path.Base(ip)
			if _, major, _ := module.SplitPathVersion(ip); major != "" {
				b.Name = path.Base(strings.TrimSuffix(ip, major))
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 && len(own) > 0 {
		out = append(out, m.binary(m.dir, own, slices.Sorted(maps.Keys(own))))
	}
	return out
}

// owner is the module of directory dir: the innermost that holds it.
func owner(dir string, mods map[string]*goModule) *goModule {
	for d := dir; ; d = path.Dir(d) {
		if m := mods[d]; m != nil {
			return m
		}
		if d == "." || d == "/" {
			return nil
		}
	}
}

// binary is the binary at dir of the packages of own reachable by imports
// from roots.
func (m *goModule) binary(dir string, own map[string]*goPackage, roots []string) Binary {
	b := Binary{Path: path.Clean(dir)}
	seen := map[string]bool{}
	for queue := roots; len(queue) > 0; queue = queue[1:] {
		pkg := own[queue[0]]
		if seen[queue[0]] || pkg == nil {
			continue
		}
		seen[queue[0]] = true
		for _, c := range pkg.calls { // in an if on a flag, or in a function named only in such ifs
			v, refs := pkg.gates[c.pos], pkg.refs[c.fn]
			unflagged := func(v string) bool { return pkg.flags[v] == "" }
			if unflagged(v) && len(refs) > 0 && !ast.IsExported(c.fn) && !slices.ContainsFunc(refs, unflagged) {
				v = refs[0]
			}
			c.Flag = pkg.flags[v]
			b.Calls = append(b.Calls, c.Call)
		}
		for _, imp := range pkg.imports {
			if imp == LibraryModule || strings.HasPrefix(imp, LibraryModule+"/") {
				b.Library = m.minors[LibraryModule]
			}
			queue = append(queue, imp)
		}
	}
	slices.SortStableFunc(b.Calls, func(x, y Call) int { return strings.Compare(x.Position, y.Position) })
	return b
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

// typedVersion matches how a typed client selects a resource.k8s.io
// version: a clientset's cs.ResourceV1beta1, an informer factory's
// f.Resource().V1beta1.
var typedVersion = regexp.MustCompile(`\.(Resource|Resource\(\)\.)(V1((alpha|beta)\d+)?)$`)

// read records the imports, gates and typed calls of file, at path.
func (p *goPackage) read(fset *token.FileSet, path string, file *ast.File) {
	for _, imp := range file.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		p.imports = append(p.imports, ip)
	}
	p.readGates(file)
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		for _, c := range calls(fn) {
			c.Position = fmt.Sprintf("%s:%d", path, fset.Position(c.pos).Line)
			p.calls = append(p.calls, c)
		}
	}
}

// readGates records the boolean command-line flags of file that are off
// by default, by the variable they set: BoolVar(&x, "name", false, …) and
// BoolVarP of the flag and pflag packages, urfave/cli's &cli.BoolFlag{Name:
// "name", Destination: &x} with no Value or a false one. For each name
// read, but a function's own, it records the variable of the innermost if
// whose body holds it.
func (p *goPackage) readGates(file *ast.File) {
	decls := map[*ast.Ident]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			decls[n.Name] = true
		case *ast.IfStmt:
			if v := varName(n.Cond); v != "" {
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						p.gates[id.Pos()] = v
					}
					return true
				})
			}
		case *ast.Ident:
			if !decls[n] {
				p.refs[n.Name] = append(p.refs[n.Name], p.gates[n.Pos()])
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if ok && strings.HasPrefix(sel.Sel.Name, "BoolVar") && len(n.Args) >= 4 && varName(n.Args[len(n.Args)-2]) == "false" {
				p.flags[varName(n.Args[0])], _ = strconv.Unquote(types.ExprString(n.Args[1]))
			}
		case *ast.CompositeLit:
			fields := map[string]ast.Expr{"Value": ast.NewIdent("false")}
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					fields[varName(kv.Key)] = kv.Value
				}
			}
			if varName(n.Type) == "BoolFlag" && varName(fields["Value"]) == "false" {
				p.flags[varName(fields["Destination"])], _ = strconv.Unquote(types.ExprString(fields["Name"]))
			}
		}
		return true
	})
	delete(p.flags, "") // a flag that sets no variable read here
}

// varName is the name of the variable or field e reads or points to:
// "Healthcare" for cfg.Healthcare and &cfg.Healthcare; "" for another
// expression.
func varName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return varName(e.X)
		}
	}
	return ""
}

// A found call is a Call at pos, in function fn.
type found struct {
	Call
	pos token.Pos
	fn  string
}

// calls are the typed calls in the body of fn, each Logged when its error
// is only logged there.
func calls(fn *ast.FuncDecl) []found {
	var out []found
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		kind := api.KindOfResource(strings.ToLower(sel.Sel.Name))
		inner, ok := sel.X.(*ast.CallExpr)
		if kind == "" || !ok {
			return true
		}
		if m := typedVersion.FindStringSubmatch(types.ExprString(inner.Fun)); m != nil {
			c := found{Call{Version: strings.ToLower(m[2]), Kind: kind, Expr: m[1] + m[2] + "()." + sel.Sel.Name}, sel.Sel.Pos(), fn.Name.Name}
			if onlyLogged(fn, around(fn.Body, sel.Pos()), sel.Pos()) {
				c.Logged = funcName(fn)
			}
			out = append(out, c)
		}
		return true
	})
	return out
}

// around are the statements of the innermost block of body that holds pos.
func around(body *ast.BlockStmt, pos token.Pos) []ast.Stmt {
	var out []ast.Stmt
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.BlockStmt:
			out = n.List
		case *ast.CaseClause:
			out = n.Body
		case *ast.CommClause:
			out = n.Body
		}
		return true
	})
	return out
}

// onlyLogged reports whether the error of the call at pos, in a statement
// of stmts within fn, ends in a log line: the statement assigns err, an if
// checks it (its own, or the next statement) and does not stop the
// program, and fn returns no error, or that if returns no value.
func onlyLogged(fn *ast.FuncDecl, stmts []ast.Stmt, pos token.Pos) bool {
	for i, s := range stmts {
		if pos < s.Pos() || pos >= s.End() {
			continue
		}
		check, ok := s.(*ast.IfStmt)
		if ok && check.Init != nil && check.Init.Pos() <= pos && pos < check.Init.End() {
			s = check.Init
		} else if check = nil; i+1 < len(stmts) {
			check, _ = stmts[i+1].(*ast.IfStmt)
		}
		if check == nil || !assignsErr(s) || !mentionsErr(check.Cond) || stops(check.Body) {
			return false
		}
		return !returnsError(fn) || checksErr(check) && !returns(check.Body)
	}
	return false
}

// mentionsErr reports whether e reads a variable named err.
func mentionsErr(e ast.Expr) bool {
	return holds(e, func(n ast.Node) bool { id, ok := n.(*ast.Ident); return ok && id.Name == "err" })
}

// returnsError reports whether fn has a result of type error.
func returnsError(fn *ast.FuncDecl) bool {
	return fn.Type.Results != nil && slices.ContainsFunc(fn.Type.Results.List, func(f *ast.Field) bool { return varName(f.Type) == "error" })
}

// assignsErr reports whether s assigns a variable named err.
func assignsErr(s ast.Stmt) bool {
	as, ok := s.(*ast.AssignStmt)
	return ok && slices.ContainsFunc(as.Lhs, func(e ast.Expr) bool { return varName(e) == "err" })
}

// checksErr reports whether ifs's condition is err != nil.
func checksErr(ifs *ast.IfStmt) bool {
	b, ok := ifs.Cond.(*ast.BinaryExpr)
	return ok && b.Op == token.NEQ && varName(b.X) == "err" && varName(b.Y) == "nil"
}

// returns reports whether body returns a value (the error, or one made of
// it); a bare return or a continue only ends the work at hand.
func returns(body *ast.BlockStmt) bool {
	return holds(body, func(n ast.Node) bool { r, ok := n.(*ast.ReturnStmt); return ok && len(r.Results) > 0 })
}

// stops reports whether body panics, exits or logs fatally.
func stops(body *ast.BlockStmt) bool {
	return holds(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		return ok && (varName(call.Fun) == "panic" || varName(call.Fun) == "Exit" || strings.HasPrefix(varName(call.Fun), "Fatal"))
	})
}

// holds reports whether n holds a node, outside function literals, that
// match reports.
func holds(n ast.Node, match func(ast.Node) bool) bool {
	out := false
	ast.Inspect(n, func(n ast.Node) bool {
		out = out || match(n)
		_, lit := n.(*ast.FuncLit)
		return !out && !lit
	})
	return out
}

// funcName names fn: "(*Driver).publish", "main".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + types.ExprString(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

// ReadDir reads the binaries of a driver's directory dir: none with only
// a chart or manifests (install), and a note when dir has no Go module.
func ReadDir(dir string, install bool) ([]Binary, []string, error) {
	if dir == "" && install {
		return nil, nil, nil
	}
	dir = cmp.Or(dir, ".")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s: not a directory", dir)
	}
	bins, notes, err := ReadBinaries(dir)
	switch {
	case err != nil:
		return nil, nil, err
	case len(bins) > 0:
		return bins, notes, nil
	case !install:
		return nil, nil, fmt.Errorf("%s has no go.mod and no --chart or -f is given: nothing to judge", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); errors.Is(err, os.ErrNotExist) {
		return nil, append(notes, dir+" has no go.mod: only the install is judged"), nil
	}
	return nil, notes, nil
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
