// Command featuregates writes the feature gates that kube-apiserver accepts in
// --feature-gates, for each Kubernetes release 1.26 to 1.38, with the stage,
// default and lock each gate has in that release. Run it from the repository
// root:
//
//	GOTOOLCHAIN=go1.27.3 go run ./hack/featuregates > api/featuregates.tsv
//
// For each release it takes the newest patch that the Go module proxy serves
// (its version lists are incomplete, so it also probes above the newest one
// listed), or for a release not out yet its pre-release (prereleases), and reads upstream's sources from the module cache, fetching
// k8s.io/kubernetes@v1.N.P and its staging modules @v0.N.P with
// `go mod download`. With go/build it walks the k8s.io packages that
// k8s.io/kubernetes/cmd/kube-apiserver imports (linux/amd64, no cgo); with
// go/ast it reads their init functions that name DefaultMutableFeatureGate.
// There a call utilfeature.DefaultMutableFeatureGate.Add(m) or AddVersioned(m)
// registers the gates of its own package, and a call X.…Feature…(…) on an
// imported package X (logsapi.AddFeatureGates(…), clientfeatures.Add…) those
// of X. The gates of a package are its map literals of type
// map[Feature]FeatureSpec or map[Feature]VersionedSpecs. A versioned gate is
// in the state of its last spec with Version <= 1.N, skipping specs that need
// a --min-compatibility-version above the default 1.(N-1); a gate whose specs
// are all newer is unknown in 1.N. AllAlpha and AllBeta are not listed.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

const firstMinor, lastMinor = 26, 38

// prereleases are the releases not out yet, read from a pre-release: its
// sources need Go 1.27 (GOTOOLCHAIN=go1.27.3).
var prereleases = map[int]string{38: "0-beta.0"}

type spec struct {
	version, minCompat int    // minor of 1.x; version 0: unversioned; minCompat -1: none
	stage              string // ALPHA, BETA, GA, DEPRECATED or PREALPHA
	def, lock          bool
}

type pkg struct {
	files   []*ast.File
	imports []map[string]string // per file: name -> import path
	consts  map[string]string   // string and bool constants
}

type release struct {
	minor           int
	patch           string            // "2", or a pre-release's "0-beta.0"
	staging         map[string]bool   // staging modules of k8s.io/kubernetes
	dirs            map[string]string // module -> directory in the module cache
	modules, unread []string          // staging modules read, and those the proxy does not serve
	pkgs            map[string]*pkg   // import path -> package
}

var ctx = build.Context{GOOS: "linux", GOARCH: "amd64", Compiler: "gc", ReleaseTags: build.Default.ReleaseTags}

func main() {
	log.SetFlags(0)
	log.SetPrefix("featuregates: ")
	fmt.Print("# Feature gates that kube-apiserver accepts in --feature-gates, per release.\n",
		"# Columns: release, gate, stage (ALPHA|BETA|GA|DEPRECATED), default, lock (locked|-),\n",
		"# the gates it depends on (from 1.35: kube-apiserver refuses to enable it without them; -: none).\n",
		"# AllAlpha and AllBeta exist in every release and are not listed.\n",
		"# Regenerate with: GOTOOLCHAIN=go1.27.3 go run ./hack/featuregates > api/featuregates.tsv (1.38 is read from its beta, whose sources need Go 1.27)\n",
		"# Read from these modules of the Go module proxy (those on kube-apiserver's import graph):\n")
	var rows []string
	for minor := firstMinor; minor <= lastMinor; minor++ {
		patch, ok := prereleases[minor]
		if !ok {
			patch = strconv.Itoa(newestPatch(minor))
		}
		r := &release{minor: minor, patch: patch, dirs: map[string]string{}, pkgs: map[string]*pkg{}}
		gates, deps := r.gates()
		for name, s := range gates {
			lock := map[bool]string{true: "locked", false: "-"}[s.lock]
			dep := strings.Join(deps[name], ",")
			if dep == "" {
				dep = "-"
			}
			rows = append(rows, fmt.Sprintf("1.%d\t%s\t%s\t%t\t%s\t%s\n", minor, name, s.stage, s.def, lock, dep))
		}
		sort.Strings(r.modules)
		fmt.Printf("#   1.%d: k8s.io/kubernetes@v1.%[1]d.%s + k8s.io/{%s}@v0.%[1]d.%[2]s", minor, r.patch, strings.Join(r.modules, ","))
		if len(r.unread) > 0 {
			fmt.Printf(" (not served: %s)", strings.Join(r.unread, ","))
		}
		fmt.Println()
	}
	sort.Strings(rows) // by release (all 1.NN), then name
	fmt.Print(strings.Join(rows, ""))
}

var listed = sync.OnceValue(func() []byte {
	out, err := runGo("list", "-m", "-versions", "k8s.io/kubernetes", "k8s.io/apiserver", "k8s.io/client-go")
	must(err)
	return append(out, ' ')
})

// newestPatch returns the newest patch of 1.minor that the proxy serves: the
// newest one listed, or a newer one found by probing upward until four
// patches in a row are missing (the proxy serves versions it does not list).
func newestPatch(minor int) int {
	top := 0
	for _, m := range regexp.MustCompile(fmt.Sprintf(`v[01]\.%d\.(\d+)\s`, minor)).FindAllSubmatch(listed(), -1) {
		top = max(top, atoi(string(m[1])))
	}
	serves := func(p int) bool {
		_, err := runGo("list", "-m", fmt.Sprintf("k8s.io/kubernetes@v1.%d.%d", minor, p))
		return err == nil
	}
	for p := top + 1; p <= top+4; p++ { // top grows with each hit
		if serves(p) {
			top = p
		}
	}
	for ; top >= 0 && !serves(top); top-- {
	}
	if top < 0 {
		log.Fatalf("the proxy serves no patch of 1.%d", minor)
	}
	return top
}

// gates returns the state in the release of every gate registered, and
// the gates each depends on.
func (r *release) gates() (map[string]spec, map[string][]string) {
	all, deps := map[string]spec{}, map[string][]string{}
	for _, path := range r.sources() {
		for name, d := range r.dependencies(r.load(path)) {
			deps[name] = append(deps[name], d...)
		}
		for name, specs := range r.specs(r.load(path)) {
			st, ok := r.state(specs)
			if old, dup := all[name]; ok && dup && old != st {
				log.Printf("1.%d: %s differs in %s", r.minor, name, path)
			} else if ok && !dup {
				all[name] = st
			}
		}
	}
	for name := range deps {
		slices.Sort(deps[name])
		deps[name] = slices.Compact(deps[name])
	}
	return all, deps
}

// dependencies reads the map literals of type map[Feature][]Feature of a
// package: each gate's dependencies (defaultKubernetesFeatureGateDependencies).
func (r *release) dependencies(p *pkg) map[string][]string {
	out := map[string][]string{}
	for i, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			mt, _ := lit.Type.(*ast.MapType)
			if at, _ := mtValue(mt).(*ast.ArrayType); at == nil || lastName(mt.Key) != "Feature" || lastName(at.Elt) != "Feature" {
				return true
			}
			for _, e := range lit.Elts {
				kv := e.(*ast.KeyValueExpr)
				name := r.value(p, i, kv.Key)
				out[name] = out[name][:0:0]
				for _, d := range kv.Value.(*ast.CompositeLit).Elts {
					if call, ok := d.(*ast.CallExpr); ok { // featuregate.Feature(clientfeatures.AtomicFIFO)
						d = call.Args[0]
					}
					out[name] = append(out[name], r.value(p, i, d))
				}
			}
			return false
		})
	}
	return out
}

// mtValue is the value type of a map type, or nil.
func mtValue(mt *ast.MapType) ast.Expr {
	if mt == nil {
		return nil
	}
	return mt.Value
}

// sources returns the packages whose gates kube-apiserver registers.
func (r *release) sources() []string {
	var out []string
	seen, registered := map[string]bool{}, map[string]bool{}
	for queue := []string{"k8s.io/kubernetes/cmd/kube-apiserver"}; len(queue) > 0; queue = queue[1:] {
		path := queue[0]
		if seen[path] {
			continue
		}
		seen[path] = true
		dir, ok := r.dir(path)
		if !ok {
			continue
		}
		bp, err := ctx.ImportDir(dir, 0)
		if err != nil {
			continue // no Go files for linux/amd64
		}
		queue = append(queue, bp.Imports...)
		if !mentions(dir, bp.GoFiles, "DefaultMutableFeatureGate") {
			continue
		}
		p := r.load(path)
		for i, f := range p.files {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "init" && fn.Recv == nil {
					ast.Inspect(fn.Body, func(n ast.Node) bool {
						var sel *ast.SelectorExpr
						if call, ok := n.(*ast.CallExpr); ok {
							sel, _ = call.Fun.(*ast.SelectorExpr)
						}
						if sel == nil {
							return true
						} else if x, ok := sel.X.(*ast.Ident); ok && strings.Contains(sel.Sel.Name, "Feature") && p.imports[i][x.Name] != "" {
							registered[p.imports[i][x.Name]] = true // logsapi.AddFeatureGates(g)
						} else if lastName(sel.X) == "DefaultMutableFeatureGate" && (sel.Sel.Name == "Add" || sel.Sel.Name == "AddVersioned") {
							registered[path] = true // utilfeature.DefaultMutableFeatureGate.AddVersioned(m)
						}
						return true
					})
				}
			}
		}
	}
	for path := range registered {
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}

// state picks the spec in force in the release, as component-base does with
// the emulation version 1.N and the minimum compatibility version 1.(N-1).
func (r *release) state(specs []spec) (spec, bool) {
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].version < specs[j].version })
	for i := len(specs) - 1; i >= 0; i-- {
		if s := specs[i]; s.version <= r.minor && s.minCompat <= r.minor-1 {
			return s, s.stage != "PREALPHA"
		}
	}
	return spec{}, false
}

// specs reads the map literals of type map[Feature]FeatureSpec and
// map[Feature]VersionedSpecs of a package.
func (r *release) specs(p *pkg) map[string][]spec {
	out := map[string][]spec{}
	for i, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			mt, _ := lit.Type.(*ast.MapType)
			if mt == nil || lastName(mt.Value) != "FeatureSpec" && lastName(mt.Value) != "VersionedSpecs" {
				return true
			}
			for _, e := range lit.Elts {
				kv := e.(*ast.KeyValueExpr)
				list := []ast.Expr{kv.Value} // {Default: true, PreRelease: featuregate.Beta}
				if lastName(mt.Value) == "VersionedSpecs" {
					list = kv.Value.(*ast.CompositeLit).Elts // {{Version: version.MustParse("1.34"), …}, …}
				}
				for _, v := range list {
					fields := map[string]ast.Expr{}
					for _, e := range v.(*ast.CompositeLit).Elts {
						fields[e.(*ast.KeyValueExpr).Key.(*ast.Ident).Name] = e.(*ast.KeyValueExpr).Value
					}
					name := r.value(p, i, kv.Key)
					out[name] = append(out[name], spec{
						version: minorOf(fields["Version"], 0), minCompat: minorOf(fields["MinCompatibilityVersion"], -1),
						stage: strings.ToUpper(lastName(fields["PreRelease"])), // featuregate.Alpha, Beta, GA, Deprecated, PreAlpha
						def:   r.value(p, i, fields["Default"]) == "true", lock: r.value(p, i, fields["LockToDefault"]) == "true",
					})
				}
			}
			return false
		})
	}
	return out
}

// value resolves nil, a literal, a constant of the package or pkg.Constant.
func (r *release) value(p *pkg, file int, e ast.Expr) string {
	v, ok := "", e == nil
	switch x := e.(type) {
	case *ast.BasicLit:
		v, ok = strings.Trim(x.Value, "\"`"), true
	case *ast.Ident:
		if v, ok = p.consts[x.Name]; !ok && (x.Name == "true" || x.Name == "false") {
			v, ok = x.Name, true
		}
	case *ast.SelectorExpr:
		v, ok = r.load(p.imports[file][lastName(x.X)]).consts[x.Sel.Name]
	}
	if !ok {
		log.Fatalf("1.%d: cannot resolve %#v", r.minor, e)
	}
	return v
}

// minorOf reads version.MustParse("1.N") or version.MajorMinor(1, N).
func minorOf(e ast.Expr, none int) int {
	if call, ok := e.(*ast.CallExpr); ok {
		v := strings.Trim(call.Args[len(call.Args)-1].(*ast.BasicLit).Value, `"`)
		return atoi(v[strings.LastIndex(v, ".")+1:])
	}
	return none
}

// load parses the Go files of a package and records its constants.
func (r *release) load(path string) *pkg {
	if p, ok := r.pkgs[path]; ok {
		return p
	}
	dir, ok := r.dir(path)
	bp, err := ctx.ImportDir(dir, 0)
	if !ok || err != nil {
		log.Fatalf("1.%d: cannot read %q: %v", r.minor, path, err)
	}
	p := &pkg{consts: map[string]string{}}
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		must(err)
		imports := map[string]string{}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if imports[path[strings.LastIndex(path, "/")+1:]] = path; imp.Name != nil {
				imports[imp.Name.Name] = path
			}
		}
		p.files, p.imports = append(p.files, f), append(p.imports, imports)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					for j, v := range s.(*ast.ValueSpec).Values {
						if call, ok := v.(*ast.CallExpr); ok && len(call.Args) == 1 {
							v = call.Args[0] // featuregate.Feature("X")
						}
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING || lastName(v) == "true" || lastName(v) == "false" {
							p.consts[s.(*ast.ValueSpec).Names[j].Name] = r.value(p, 0, v)
						}
					}
				}
			}
		}
	}
	r.pkgs[path] = p
	return p
}

// dir returns the directory of a package of k8s.io/kubernetes or of one of
// its staging modules (false for others), downloading the module.
func (r *release) dir(path string) (string, bool) {
	parts := strings.SplitN(path+"/", "/", 3)
	module, version := parts[0]+"/"+parts[1], fmt.Sprintf("v0.%d.%s", r.minor, r.patch)
	if module == "k8s.io/kubernetes" {
		version = fmt.Sprintf("v1.%d.%s", r.minor, r.patch)
	} else if r.dir("k8s.io/kubernetes"); !r.staging[module] {
		return "", false
	}
	if r.dirs[module] == "" {
		var info struct{ Dir, GoMod, Error string }
		out, _ := runGo("mod", "download", "-json", module+"@"+version)
		if json.Unmarshal(out, &info) != nil || info.Dir == "" {
			if module == "k8s.io/kubernetes" {
				log.Fatal(info.Error)
			}
			log.Printf("skipping %s", info.Error)
			r.staging[module], r.unread = false, append(r.unread, parts[1])
			return "", false
		}
		r.dirs[module] = info.Dir
		if module != "k8s.io/kubernetes" {
			r.modules = append(r.modules, parts[1])
		} else { // its go.mod has: k8s.io/X => ./staging/src/k8s.io/X
			gomod, err := os.ReadFile(info.GoMod)
			must(err)
			r.staging = map[string]bool{}
			for _, m := range regexp.MustCompile(`(?m)^\s*(\S+) => \./staging/`).FindAllSubmatch(gomod, -1) {
				r.staging[string(m[1])] = true
			}
		}
	}
	return filepath.Join(r.dirs[module], strings.TrimPrefix(path, module)), true
}

func mentions(dir string, files []string, word string) bool {
	for _, name := range files {
		if src, err := os.ReadFile(filepath.Join(dir, name)); err == nil && bytes.Contains(src, []byte(word)) {
			return true
		}
	}
	return false
}

func lastName(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	} else if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// runGo runs the go command outside any module, so that it changes no go.mod.
func runGo(args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = os.TempDir(), append(os.Environ(), "GOWORK=off")
	return cmd.Output()
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	must(err)
	return n
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
