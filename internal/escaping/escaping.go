// Package escaping writes template values so that they cannot change the structure of the
// file around them. Each output context has its own escaper (HCL, shell, YAML/JSON, URL), and
// Apply picks it from where an action sits, as html/template does for HTML: it follows the
// template's literal text through strings, heredocs and comments, and appends the escaper of
// that context to every action that writes a value. A file kind may also refuse the tenant's
// values outright (a hook script), and a URL refuses any value before its path.
package escaping

import (
	"fmt"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// State is where a grammar's scanner stands in the output; equal states are the same context.
type State struct {
	Mode  uint8
	Stack string // nesting, innermost last (HCL interpolations and braces)
	Delim string // a heredoc's closing word; a URL's literal prefix so far
	Attr  string // HCL: the attribute whose value this is
	Head  string // HCL: the line's first word, which names the block a { on it opens
}

// Grammar is an output language: how literal text moves the context, and which escaper
// writes a value in each context.
type Grammar interface {
	Name() string
	Start() State
	// Scan follows literal text from s.
	Scan(s State, text string) State
	// Escaper names the function that writes a value at s, or explains why none may be written.
	Escaper(s State) (string, error)
	// Accepts says whether a stack's explicit escaper (quote, toJSON, sh) fits at s.
	Accepts(s State, fn string) bool
}

// Options say which values are the tenant's and where they may not go.
type Options struct {
	// Tenant lists the data fields that hold tenant values (Params; Parameters, Outputs).
	Tenant []string
	// NoTenant, when set, refuses any use of a tenant field, giving this as the reason.
	NoTenant string
}

// Error is an action the context refuses; Line is its line in the template.
type Error struct {
	Template string
	Line     int
	Message  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// Apply checks every template t defines against g and appends its context's escaper to each
// action that writes a value. t must have been parsed with Funcs (or URLFuncs).
func Apply(t *template.Template, g Grammar, o Options) error {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		w := &walker{g: g, o: o, tree: tt.Tree, extra: template.FuncMap{}}
		w.walk([]State{g.Start()}, tt.Root)
		if w.err != nil {
			return w.err
		}
		if len(w.extra) > 0 {
			t.Funcs(w.extra)
		}
	}
	return nil
}

// tenantGuard is a grammar that refuses tenant values in some contexts (a command a shell runs).
type tenantGuard interface{ NoTenant(State) string }

// funcMaker is a grammar whose escapers depend on the file (a heredoc's closing word).
type funcMaker interface{ Func(name string) any }

type walker struct {
	g     Grammar
	o     Options
	tree  *parse.Tree
	err   error
	extra template.FuncMap
}

func (w *walker) fail(n parse.Node, format string, args ...any) {
	if w.err != nil {
		return
	}
	loc, _ := w.tree.ErrorContext(n)
	line := 0
	// loc is name:line:col; the name may hold colons, so read from the right.
	if parts := strings.Split(loc, ":"); len(parts) >= 3 {
		fmt.Sscan(parts[len(parts)-2], &line)
	}
	w.err = &Error{Template: w.tree.ParseName, Line: line, Message: fmt.Sprintf(format, args...)}
}

// maxStates bounds the contexts one action may be reached in.
const maxStates = 16

// walk follows n from every context in ss (the paths through ifs and ranges that reach it)
// and returns the contexts it may end in. An action must get one escaper on every path.
func (w *walker) walk(ss []State, n parse.Node) []State {
	if w.err != nil || n == nil {
		return ss
	}
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return ss
		}
		for _, c := range n.Nodes {
			ss = w.walk(ss, c)
		}
		return ss
	case *parse.TextNode:
		out := make([]State, 0, len(ss))
		for _, s := range ss {
			out = union(out, w.g.Scan(s, string(n.Text)))
		}
		return out
	case *parse.ActionNode:
		w.tenantUse(n.Pipe, w.noTenant(ss))
		if len(n.Pipe.Decl) == 0 {
			w.escape(ss, n)
		}
		return ss
	case *parse.IfNode:
		return w.branch(ss, &n.BranchNode, false)
	case *parse.WithNode:
		return w.branch(ss, &n.BranchNode, false)
	case *parse.RangeNode:
		return w.branch(ss, &n.BranchNode, true)
	case *parse.TemplateNode:
		w.tenantUse(n.Pipe, w.o.NoTenant)
		for _, s := range ss {
			if s != w.g.Start() {
				w.fail(n, "{{template %q}} is called inside a %s; call it where the file starts its own context", n.Name, w.describe(s))
			}
		}
		return ss
	}
	return ss // comments, break, continue
}

// branch walks both arms of if/with/range. A range's body may run again from where it ended,
// so it is walked until the contexts it starts from stop growing.
func (w *walker) branch(ss []State, b *parse.BranchNode, loop bool) []State {
	w.tenantUse(b.Pipe, w.o.NoTenant)
	out := w.walk(ss, b.List)
	for loop && w.err == nil {
		from := union(ss, out...)
		if len(from) == len(ss) {
			break
		}
		ss = from
		out = w.walk(ss, b.List)
	}
	if loop {
		out = union(out, ss...)
	}
	if b.ElseList != nil {
		out = union(out, w.walk(ss, b.ElseList)...)
	} else {
		out = union(out, ss...)
	}
	if len(out) > maxStates {
		w.fail(b, "this {{%s}} leaves the output in too many %s contexts", branchName(b), w.g.Name())
	}
	return out
}

func union(ss []State, more ...State) []State {
	out := append([]State(nil), ss...)
	for _, m := range more {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func (w *walker) describe(s State) string {
	if d, ok := w.g.(interface{ Describe(State) string }); ok {
		return d.Describe(s)
	}
	return fmt.Sprint(s)
}

// escape makes the action write its value with the escaper of its context, which must be
// one on every path that reaches it.
func (w *walker) escape(ss []State, n *parse.ActionNode) {
	cmds := n.Pipe.Cmds
	if len(cmds) > 0 {
		if id, ok := cmds[len(cmds)-1].Args[0].(*parse.IdentifierNode); ok && escaperNames[id.Ident] {
			for _, s := range ss {
				if w.g.Accepts(s, id.Ident) {
					continue
				}
				if !strings.HasPrefix(id.Ident, "_slipway") {
					w.fail(n, "%s does not escape for a %s; %s", id.Ident, w.describe(s), w.hint(s))
				} else {
					w.fail(n, "this value is written in a %s on one path through the template and elsewhere on another", w.describe(s))
				}
				return
			}
			return
		}
	}
	name := ""
	for i, s := range ss {
		got, err := w.g.Escaper(s)
		if err != nil {
			w.fail(n, "%v", err)
			return
		}
		if i > 0 && got != name {
			w.fail(n, "this value is written in a %s on one path through the template and in a %s on another", w.describe(ss[0]), w.describe(s))
			return
		}
		name = got
	}
	if name == "" {
		return
	}
	if _, ok := Funcs[name]; !ok {
		if fm, ok := w.g.(funcMaker); ok {
			w.extra[name] = fm.Func(name)
		}
	}
	id := parse.NewIdentifier(name).SetTree(w.tree).SetPos(n.Pos)
	n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{id}})
}

func (w *walker) hint(s State) string {
	if name, err := w.g.Escaper(s); err == nil && !strings.HasPrefix(name, "_slipway") {
		return "use " + name + " or nothing: slipway escapes the value for where it is written"
	}
	return "write the value without a function: slipway escapes it for where it is written"
}

// noTenant is why a tenant value may not be written in any of the contexts ss, "" if it may.
func (w *walker) noTenant(ss []State) string {
	if w.o.NoTenant != "" {
		return w.o.NoTenant
	}
	if g, ok := w.g.(tenantGuard); ok {
		for _, s := range ss {
			if why := g.NoTenant(s); why != "" {
				return why
			}
		}
	}
	return ""
}

// tenantUse refuses a tenant field (or the whole data, which holds them) where why says.
func (w *walker) tenantUse(p *parse.PipeNode, why string) {
	if why == "" || p == nil || w.err != nil {
		return
	}
	var visit func(parse.Node)
	visit = func(n parse.Node) {
		if w.err != nil || n == nil {
			return
		}
		switch n := n.(type) {
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				visit(c)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				visit(a)
			}
		case *parse.FieldNode:
			w.field(n, n.Ident, why)
		case *parse.ChainNode:
			visit(n.Node)
		case *parse.VariableNode:
			if len(n.Ident) == 1 && n.Ident[0] == "$" {
				w.fail(n, "$ passes all of the template's data, which holds tenant values: %s", why)
			} else if len(n.Ident) > 1 && n.Ident[0] == "$" {
				w.field(n, n.Ident[1:], why)
			}
		case *parse.DotNode:
			w.fail(n, ". passes all of the template's data, which holds tenant values: %s", why)
		}
	}
	visit(p)
}

func (w *walker) field(n parse.Node, ident []string, why string) {
	for _, t := range w.o.Tenant {
		if len(ident) > 0 && ident[0] == t {
			w.fail(n, ".%s is a tenant value: %s", strings.Join(ident, "."), why)
			return
		}
	}
}

func branchName(b *parse.BranchNode) string {
	switch b.Type() {
	case parse.NodeRange:
		return "range"
	case parse.NodeWith:
		return "with"
	}
	return "if"
}

// Text is a file kind slipway has no escaper for: values are written as they are, so a file of
// this kind may take only values whose characters are safe anywhere (names), never a tenant's.
type Text struct{}

func (Text) Name() string                  { return "text" }
func (Text) Start() State                  { return State{} }
func (Text) Scan(s State, _ string) State  { return s }
func (Text) Escaper(State) (string, error) { return "", nil }
func (Text) Accepts(State, string) bool    { return true }
