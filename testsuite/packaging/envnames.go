package packaging

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// envPrefixed is a name in slipway's, Temporal's or OpenTelemetry's variable families; a trailing
// underscore makes a prefix (SLIPWAY_OUTPUT_), which names no one variable.
var envPrefixed = regexp.MustCompile(`^(SLIPWAY|TEMPORAL|OTEL)_[A-Z0-9_]*[A-Z0-9]$`)

// envName is what any variable's name looks like (XDG_STATE_HOME, PATH).
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// EnvNamesInCode are the environment variables the repository's non-test Go code reads, and the
// modules' sources it names (envconfig) read; EnvReadsInCode says where.
func EnvNamesInCode(extraDirs ...string) (map[string]bool, error) {
	reads, err := EnvReadsInCode(Root(), extraDirs...)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for n := range reads {
		names[n] = true
	}
	return names, nil
}

// EnvReadsInCode maps each environment variable the non-test Go code under root (and under
// extraDirs) reads to the files, relative to their tree, that name it. A variable is read when
//   - a string literal names one of the SLIPWAY_, TEMPORAL_ or OTEL_ families: code reads those
//     through helpers and getenv functions (envOr, os.Getenv passed in) a call site cannot show;
//   - or a getenv function (os.Getenv, os.LookupEnv, a getenv parameter) is called with a literal
//     or a named string constant, of any name (XDG_STATE_HOME, NO_COLOR), the constant resolved
//     across the tree's packages.
//
// testsuite/ and testdata/ are skipped: what the tests read is not slipway's configuration.
func EnvReadsInCode(root string, extraDirs ...string) (map[string][]string, error) {
	reads := map[string]map[string]bool{}
	for _, dir := range append([]string{root}, extraDirs...) {
		files, err := parseTree(dir)
		if err != nil {
			return nil, err
		}
		consts := stringConsts(files)
		for _, f := range files {
			for _, n := range f.envNames(consts) {
				if reads[n] == nil {
					reads[n] = map[string]bool{}
				}
				reads[n][f.rel] = true
			}
		}
	}
	out := map[string][]string{}
	for n, files := range reads {
		for f := range files {
			out[n] = append(out[n], f)
		}
		sort.Strings(out[n])
	}
	return out, nil
}

// goFile is one parsed non-test file, with the directory of each package it imports from the tree.
type goFile struct {
	rel, dir string
	ast      *ast.File
	imports  map[string]string // local name → directory, for the tree's own packages
}

func parseTree(root string) ([]*goFile, error) {
	module := modulePath(root)
	fset := token.NewFileSet()
	var files []*goFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == ".git" || n == "node_modules" || n == "testdata" || n == "testsuite") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		gf := &goFile{rel: filepath.ToSlash(rel), dir: filepath.Dir(p), ast: f, imports: map[string]string{}}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			sub, ok := strings.CutPrefix(path, module+"/")
			if module == "" || !ok {
				continue
			}
			name := filepath.Base(sub)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			gf.imports[name] = filepath.Join(root, filepath.FromSlash(sub))
		}
		files = append(files, gf)
		return nil
	})
	return files, err
}

// modulePath is the module line of root's go.mod, "" when there is none.
func modulePath(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}

// constKey names a package-level constant by its package's directory.
type constKey struct{ dir, name string }

// stringConsts are the package-level string constants of files, by directory and name: literals
// and concatenations of literals and other constants.
func stringConsts(files []*goFile) map[constKey]string {
	exprs := map[constKey]*goFile{}
	values := map[constKey]ast.Expr{}
	for _, f := range files {
		for _, decl := range f.ast.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						k := constKey{f.dir, name.Name}
						exprs[k], values[k] = f, vs.Values[i]
					}
				}
			}
		}
	}
	consts := map[constKey]string{}
	for k, e := range values {
		if v, ok := evalString(exprs[k], e, values, exprs, 0); ok {
			consts[k] = v
		}
	}
	return consts
}

// evalString is e's value when it is a string constant expression; depth bounds a cycle.
func evalString(f *goFile, e ast.Expr, values map[constKey]ast.Expr, files map[constKey]*goFile, depth int) (string, bool) {
	if depth > 10 {
		return "", false
	}
	ref := func(k constKey) (string, bool) {
		if v, ok := values[k]; ok {
			return evalString(files[k], v, values, files, depth+1)
		}
		return "", false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.ParenExpr:
		return evalString(f, e.X, values, files, depth+1)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			l, ok1 := evalString(f, e.X, values, files, depth+1)
			r, ok2 := evalString(f, e.Y, values, files, depth+1)
			return l + r, ok1 && ok2
		}
	case *ast.Ident:
		return ref(constKey{f.dir, e.Name})
	case *ast.SelectorExpr:
		if pkg, ok := e.X.(*ast.Ident); ok && f.imports[pkg.Name] != "" {
			return ref(constKey{f.imports[pkg.Name], e.Sel.Name})
		}
	}
	return "", false
}

// envNames are the variables f reads, by the two rules of EnvReadsInCode.
func (f *goFile) envNames(consts map[constKey]string) []string {
	var names []string
	ast.Inspect(f.ast, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && envPrefixed.MatchString(s) {
				names = append(names, s)
			}
		case *ast.CallExpr:
			if !readsEnv(n.Fun) || len(n.Args) != 1 {
				return true
			}
			var v string
			var ok bool
			switch a := n.Args[0].(type) {
			case *ast.BasicLit:
				v, ok = evalString(f, a, nil, nil, 0)
			case *ast.Ident:
				v, ok = consts[constKey{f.dir, a.Name}]
			case *ast.SelectorExpr:
				if pkg, isIdent := a.X.(*ast.Ident); isIdent && f.imports[pkg.Name] != "" {
					v, ok = consts[constKey{f.imports[pkg.Name], a.Sel.Name}]
				}
			}
			if ok && envName.MatchString(v) {
				names = append(names, v)
			}
		}
		return true
	})
	return names
}

// readsEnv says fun reads a variable by the name it is given: os.Getenv, os.LookupEnv, and the
// getenv and lookupEnv functions code takes so tests can pass their own (any receiver or package).
func readsEnv(fun ast.Expr) bool {
	var name string
	switch f := fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	switch name {
	case "Getenv", "LookupEnv", "getenv", "lookupEnv":
		return true
	}
	return false
}
