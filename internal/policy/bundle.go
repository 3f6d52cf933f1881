package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/windows"
)

// dataFiles are the names a bundle's data files may have, as in OPA bundles: one at the root
// is data itself, one in a/b/ is data.a.b.
var dataFiles = []string{"data.json", "data.yaml", "data.yml"}

// bundle is a policy directory read and compiled.
type bundle struct {
	root     string // shown in messages: the directory, or "default"
	files    []file // sorted by path
	hash     string
	modules  map[string]*ast.Module // by display name, tests included (as parsed)
	data     map[string]any
	groups   []string    // data.slipway.groups: the groups (or "prefix*" patterns) a policy may name
	windows  windows.Set // data.slipway.windows: the platform's change windows
	compiler *ast.Compiler
}

type file struct {
	path string // slash-separated, relative to the bundle's root
	src  []byte
}

func (b *bundle) name(rel string) string { return path.Join(b.root, rel) }

// readBundle reads the .rego and data files under fsys (dot directories, such as .git, are
// skipped), hashes them, parses the Rego and merges the data.
func readBundle(fsys fs.FS, root string) (*bundle, error) {
	b := &bundle{root: root, modules: map[string]*ast.Module{}, data: map[string]any{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".rego") && !slices.Contains(dataFiles, d.Name()) {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		b.files = append(b.files, file{path: p, src: src})
		return nil
	})
	if err != nil {
		return nil, &LoadError{Problems: []string{fmt.Sprintf("%s: %v", root, err)}}
	}
	sort.Slice(b.files, func(i, j int) bool { return b.files[i].path < b.files[j].path })
	b.hash = hashFiles(b.files)

	var problems []string
	rego := 0
	for _, f := range b.files {
		name := b.name(f.path)
		if !strings.HasSuffix(f.path, ".rego") {
			if err := b.addData(f); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			}
			continue
		}
		rego++
		m, err := ast.ParseModuleWithOpts(name, string(f.src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			problems = append(problems, astProblems(err)...)
			continue
		}
		if !isTest(f.path) && !underSlipway(m.Package.Path) {
			problems = append(problems, fmt.Sprintf("%s:%d: package %s: a policy's package is slipway or slipway.*",
				name, m.Package.Location.Row, strings.TrimPrefix(m.Package.Path.String(), "data.")))
			continue
		}
		b.modules[name] = m
	}
	if rego == 0 {
		problems = append(problems, root+": no .rego files")
	}
	if len(problems) > 0 {
		return nil, &LoadError{Problems: problems}
	}
	groups, err := declaredGroups(b.data)
	if err != nil {
		return nil, &LoadError{Problems: []string{root + ": " + err.Error()}}
	}
	b.groups = groups
	sl, _ := b.data["slipway"].(map[string]any)
	if b.windows, err = windows.Parse(sl["windows"]); err != nil {
		return nil, &LoadError{Problems: []string{root + ": " + err.Error()}}
	}
	return b, nil
}

// hashFiles is the sha256 of each file's path and content in path order, NUL-separated so no
// two bundles share a stream.
func hashFiles(files []file) string {
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.path))
		h.Write([]byte{0})
		h.Write(f.src)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func isTest(p string) bool { return strings.HasSuffix(p, "_test.rego") }

func underSlipway(pkg ast.Ref) bool {
	return len(pkg) >= 2 && pkg[1].Value.Compare(ast.String("slipway")) == 0
}

// astProblems turns OPA's errors into "file:line: code: message", one per error.
func astProblems(err error) []string {
	var errs ast.Errors
	switch e := err.(type) {
	case ast.Errors:
		errs = e
	case *ast.Error:
		errs = ast.Errors{e}
	default:
		return []string{err.Error()}
	}
	errs.Sort()
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		if e.Location == nil {
			out = append(out, fmt.Sprintf("%s: %s", e.Code, e.Message))
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d: %s: %s", e.Location.File, e.Location.Row, e.Code, e.Message))
	}
	return out
}

// addData merges a data file into data at its directory's path.
func (b *bundle) addData(f file) error {
	var v any
	if strings.HasSuffix(f.path, ".json") {
		dec := json.NewDecoder(bytes.NewReader(f.src))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return err
		}
	} else {
		var y any
		if err := yaml.Unmarshal(f.src, &y); err != nil {
			return err
		}
		// Through JSON, so YAML's types become the ones the store takes.
		raw, err := json.Marshal(y)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return err
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a data file holds an object")
	}
	at, name := b.data, "data"
	if dir := path.Dir(f.path); dir != "." {
		name += "." + strings.ReplaceAll(dir, "/", ".")
		for _, seg := range strings.Split(dir, "/") {
			next, ok := at[seg].(map[string]any)
			if !ok {
				if _, taken := at[seg]; taken {
					return fmt.Errorf("data.%s is already a value, not an object", strings.ReplaceAll(dir, "/", "."))
				}
				next = map[string]any{}
				at[seg] = next
			}
			at = next
		}
	}
	return merge(at, obj, name)
}

// merge adds src's keys to dst; two files giving one key a value is refused.
func merge(dst, src map[string]any, at string) error {
	for k, v := range src {
		cur, ok := dst[k]
		if !ok {
			dst[k] = v
			continue
		}
		cm, ok1 := cur.(map[string]any)
		vm, ok2 := v.(map[string]any)
		if !ok1 || !ok2 {
			return fmt.Errorf("%s.%s is set by two data files", at, k)
		}
		if err := merge(cm, vm, at+"."+k); err != nil {
			return err
		}
	}
	return nil
}

// declaredGroups reads data.slipway.groups: a list of group names, or patterns ending in *.
func declaredGroups(data map[string]any) ([]string, error) {
	s, _ := data["slipway"].(map[string]any)
	raw, ok := s["groups"]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("data.slipway.groups: a list of group names (or patterns like tenant:*)")
	}
	var out []string
	for i, g := range list {
		name, ok := g.(string)
		if !ok || strings.TrimSpace(name) == "" || strings.Contains(strings.TrimSuffix(name, "*"), "*") {
			return nil, fmt.Errorf("data.slipway.groups[%d]: %v is not a group name or a pattern ending in *", i, g)
		}
		out = append(out, name)
	}
	return out, nil
}

// declared reports whether g may be named: a "user:NAME" person, or a declared group (a
// pattern "tenant:*" declares every non-empty name after its prefix).
func (b *bundle) declared(g string) bool {
	if name, ok := strings.CutPrefix(g, "user:"); ok {
		return name != ""
	}
	for _, d := range b.groups {
		if prefix, ok := strings.CutSuffix(d, "*"); ok {
			if strings.HasPrefix(g, prefix) && len(g) > len(prefix) {
				return true
			}
		} else if d == g {
			return true
		}
	}
	return false
}

// compile compiles the policies without their tests, so no test (in whatever package) changes
// a decision; Test compiles them all.
func (b *bundle) compile() error {
	named := b.namedGroups()
	policies := map[string]*ast.Module{}
	for name, m := range b.modules {
		if !isTest(name) {
			policies[name] = m
		}
	}
	c := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1).WithEnablePrintStatements(false).
		WithUnsafeBuiltins(unsafeBuiltins)
	if c.Compile(policies); c.Failed() {
		return &LoadError{Problems: astProblems(c.Errors)}
	}
	b.compiler = c
	var problems []string
	for _, n := range named {
		if !b.declared(n.group) {
			problems = append(problems, fmt.Sprintf("%s: group %q is not declared in data.slipway.groups (%s)",
				n.at, n.group, strings.Join(b.groups, ", ")))
		}
	}
	if len(problems) > 0 {
		return &LoadError{Problems: problems}
	}
	return nil
}

// unsafeBuiltins are refused at load: a decision reads its input and the bundle's data only,
// never the network or the worker's environment (opa.runtime holds its variables, keys included).
var unsafeBuiltins = map[string]struct{}{
	"http.send": {}, "net.lookup_ip_addr": {}, "opa.runtime": {},
}

// lint checks the bundle has its entry point.
func (b *bundle) lint() error {
	if len(b.compiler.GetRulesExact(ast.MustParseRef(Query))) == 0 {
		return &LoadError{Problems: []string{b.root + ": no rule defines " + Query}}
	}
	return nil
}

func (b *bundle) store() storage.Store {
	return inmem.NewFromObjectWithOpts(b.data, inmem.OptRoundTripOnWrite(false))
}

type namedGroup struct {
	group, at string
}

// namedGroups finds the groups the policies (not their tests) name as string literals:
//   - listed in an object's "groups" (an approval requirement: {"groups": ["platform-admins"]});
//   - beside a groups collection in one expression ("platform-admins" in input.actor.groups,
//     input.actor.groups[_] == "x", "x" in groups_of(a));
//   - in a literal list or set that a rule named *groups holds (admin_groups := {"ops"}).
//
// A group computed at run time (sprintf("tenant:%s", ...)) is not seen here: Decide checks every
// group a decision requires.
func (b *bundle) namedGroups() []namedGroup {
	var out []namedGroup
	add := func(t *ast.Term) {
		if s, ok := t.Value.(ast.String); ok {
			at := ""
			if t.Location != nil {
				at = fmt.Sprintf("%s:%d", t.Location.File, t.Location.Row)
			}
			out = append(out, namedGroup{group: string(s), at: at})
		}
	}
	addAll := func(t *ast.Term) {
		switch v := t.Value.(type) {
		case *ast.Array:
			v.Foreach(add)
		case ast.Set:
			v.Foreach(add)
		}
	}
	names := make([]string, 0, len(b.modules))
	for n := range b.modules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if isTest(n) {
			continue
		}
		m := b.modules[n]
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if obj, ok := t.Value.(ast.Object); ok {
				if v := obj.Get(ast.StringTerm("groups")); v != nil {
					addAll(v)
				}
			}
			return false
		})
		// Comparisons and membership tests with a groups collection, as expressions or nested.
		compared := func(terms []*ast.Term) {
			if len(terms) < 3 || !slices.Contains(comparisons, terms[0].String()) || !slices.ContainsFunc(terms[1:], groupsLike) {
				return
			}
			for _, t := range terms[1:] {
				add(t)
			}
		}
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			if terms, ok := e.Terms.([]*ast.Term); ok {
				compared(terms)
			}
			return false
		})
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if c, ok := t.Value.(ast.Call); ok {
				compared(c)
			}
			return false
		})
		for _, r := range m.Rules {
			if r.Head != nil && r.Head.Value != nil && strings.HasSuffix(string(r.Head.Name), "groups") && len(r.Head.Args) == 0 {
				addAll(r.Head.Value)
			}
		}
	}
	return out
}

// comparisons are the operators that test a value against a collection or another value.
var comparisons = []string{"eq", "equal", "neq", "internal.member_2"}

// groupsLike reports whether t is a groups collection: a variable, reference or call whose
// name (or a part of it) ends in "groups".
func groupsLike(t *ast.Term) bool {
	switch v := t.Value.(type) {
	case ast.Var:
		return strings.HasSuffix(string(v), "groups")
	case ast.Ref:
		for _, p := range v {
			switch s := p.Value.(type) {
			case ast.Var:
				if strings.HasSuffix(string(s), "groups") {
					return true
				}
			case ast.String:
				if strings.HasSuffix(string(s), "groups") {
					return true
				}
			}
		}
	case ast.Call:
		return len(v) > 0 && groupsLike(v[0])
	}
	return false
}
