// Package credentials is the operator's mapping of the credentials stacks name
// (schema.credentials) to sources set aside for stacks: environment variables or files, per
// stack or per tenant. A value reaches only the terraform and hooks of the stacks and tenants
// its entry names; the worker's own settings and files are never a source.
package credentials

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/stackenv"
)

// Var names the mapping file.
const Var = "SLIPWAY_CREDENTIALS_FILE"

// runMarker is the variable slipway sets on each terraform run (terraform.EnvRunMarker).
const runMarker = "TF_RUN_MARKER"

var (
	nameRE  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	envRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	labelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
)

// Source is one entry of the mapping: where a credential's value comes from, the variable
// terraform and hooks see it as, and the stacks and tenants it is for (none listed: all).
type Source struct {
	Env     string   `yaml:"env"`
	File    string   `yaml:"file"`
	As      string   `yaml:"as"`
	Stacks  []string `yaml:"stacks"`
	Tenants []string `yaml:"tenants"`
}

func (s Source) matches(tenant, stack string) bool {
	return (len(s.Stacks) == 0 || slices.Contains(s.Stacks, stack)) &&
		(len(s.Tenants) == 0 || slices.Contains(s.Tenants, tenant))
}

// Map is the parsed mapping: each credential's entries, the first that matches wins. The zero
// value maps nothing.
type Map struct {
	byName map[string][]Source
}

// Error names the mapping's bad entry and why.
type Error struct {
	File, Field, Reason string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s (%s): %s", Var, e.File, e.Reason)
	}
	return fmt.Sprintf("%s (%s): %s: %s", Var, e.File, e.Field, e.Reason)
}

// FromEnv reads the file $SLIPWAY_CREDENTIALS_FILE names; unset maps nothing.
func FromEnv() (Map, error) {
	path := os.Getenv(Var)
	if path == "" {
		return Map{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Map{}, &Error{File: path, Reason: err.Error()}
	}
	return Parse(path, data, os.LookupEnv, os.Environ())
}

// Parse reads the mapping in data (from the file path) and checks every source against the
// worker: lookup finds its variables and environ lists them, so that neither one of its own
// variables nor a file one of them names can be handed to a stack.
func Parse(path string, data []byte, lookup func(string) (string, bool), environ []string) (Map, error) {
	fail := func(field, format string, args ...any) (Map, error) {
		return Map{}, &Error{File: path, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fail("", "must be a mapping of credential name to source: %v", err)
	}
	m := Map{byName: map[string][]Source{}}
	own := ownPaths(environ, path)
	names := make([]string, 0, len(doc))
	for n := range doc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if !nameRE.MatchString(name) {
			return fail(name, "is not a credential name (%s)", nameRE)
		}
		node := doc[name]
		items := []*yaml.Node{&node}
		if node.Kind == yaml.SequenceNode {
			items = node.Content
		}
		for i, item := range items {
			field := name
			if node.Kind == yaml.SequenceNode {
				field = fmt.Sprintf("%s[%d]", name, i)
			}
			s, err := parseSource(item)
			if err != nil {
				return fail(field, "%v", err)
			}
			if reason := checkSource(s, lookup, own); reason != "" {
				return fail(field, "%s", reason)
			}
			if s.As == "" {
				s.As = s.Env
			}
			m.byName[name] = append(m.byName[name], s)
		}
	}
	return m, nil
}

var sourceKeys = []string{"env", "file", "as", "stacks", "tenants"}

func parseSource(n *yaml.Node) (Source, error) {
	var keys map[string]any
	if err := n.Decode(&keys); err != nil || n.Kind != yaml.MappingNode {
		return Source{}, fmt.Errorf("must be a mapping with env or file, and as, stacks, tenants (line %d)", n.Line)
	}
	for k := range keys {
		if !slices.Contains(sourceKeys, k) {
			return Source{}, fmt.Errorf("unknown field %q (line %d); allowed: %s", k, n.Line, strings.Join(sourceKeys, ", "))
		}
	}
	var s Source
	if err := n.Decode(&s); err != nil {
		return Source{}, fmt.Errorf("line %d: %v", n.Line, err)
	}
	return s, nil
}

// checkSource says what is wrong with s, or "".
func checkSource(s Source, lookup func(string) (string, bool), own []ownPath) string {
	switch {
	case (s.Env == "") == (s.File == ""):
		return "must have exactly one of env (a variable set aside for stacks) or file (a path)"
	case s.File != "" && s.As == "":
		return "as: is required with file: it names the variable that holds the path of the file's private copy"
	case s.As != "" && !envRE.MatchString(s.As):
		return fmt.Sprintf("as: %q is not an environment variable name", s.As)
	case s.As != "" && stackenv.Reserved(s.As) != "":
		return fmt.Sprintf("as: %q %s", s.As, stackenv.Reserved(s.As))
	case s.As == runMarker:
		return fmt.Sprintf("as: %q is set by slipway itself", s.As)
	}
	for _, st := range s.Stacks {
		if !labelRE.MatchString(st) {
			return fmt.Sprintf("stacks: %q is not a stack name", st)
		}
	}
	for _, t := range s.Tenants {
		if !labelRE.MatchString(t) {
			return fmt.Sprintf("tenants: %q is not a tenant name", t)
		}
	}
	if s.Env != "" {
		switch {
		case !envRE.MatchString(s.Env):
			return fmt.Sprintf("env: %q is not an environment variable name", s.Env)
		case stackenv.Reserved(s.Env) != "":
			return fmt.Sprintf("env: %q %s", s.Env, stackenv.Reserved(s.Env))
		case s.Env == runMarker:
			return fmt.Sprintf("env: %q is set by slipway itself", s.Env)
		}
		if _, ok := lookup(s.Env); !ok {
			return fmt.Sprintf("env: %q is not set in the worker's environment", s.Env)
		}
		return ""
	}
	if !filepath.IsAbs(s.File) {
		return fmt.Sprintf("file: %q must be an absolute path", s.File)
	}
	real, err := filepath.EvalSymlinks(s.File)
	if err != nil {
		return fmt.Sprintf("file: %v", err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return fmt.Sprintf("file: %q is not a regular file", s.File)
	}
	f, err := os.Open(real)
	if err != nil {
		return fmt.Sprintf("file: %v", err)
	}
	_ = f.Close()
	for _, o := range own {
		if real == o.path || strings.HasPrefix(real, o.path+string(filepath.Separator)) {
			return fmt.Sprintf("file: %q is the worker's own (%s names %s): stacks never get slipway's files", s.File, o.variable, o.path)
		}
	}
	return ""
}

// ownPath is a file or directory one of the worker's own variables names.
type ownPath struct{ path, variable string }

// ownPaths are the files and directories the worker's own variables (SLIPWAY_*, TEMPORAL_*,
// PG*) name, symlinks resolved, and the mapping file itself.
func ownPaths(environ []string, mappingFile string) []ownPath {
	var out []ownPath
	add := func(variable, p string) {
		if !filepath.IsAbs(p) {
			return
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if p = filepath.Clean(p); p != "/" {
			out = append(out, ownPath{path: p, variable: variable})
		}
	}
	add(Var, mappingFile)
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "SLIPWAY_") && !strings.HasPrefix(k, "TEMPORAL_") && !strings.HasPrefix(k, "PG") {
			continue
		}
		for p := range strings.SplitSeq(v, ",") {
			add(k, strings.TrimSpace(p))
		}
	}
	return out
}

// Mapped reports whether the operator maps name for the stack and tenant.
func (m Map) Mapped(tenant, stack, name string) bool {
	_, ok := m.source(tenant, stack, name)
	return ok
}

func (m Map) source(tenant, stack, name string) (Source, bool) {
	for _, s := range m.byName[name] {
		if s.matches(tenant, stack) {
			return s, true
		}
	}
	return Source{}, false
}

// Value is one credential as a stack's terraform or hook gets it: the variable As holds Data
// itself, or for a file source (File true) the path of a private copy of Data.
type Value struct {
	Name, As string
	Data     []byte
	File     bool
}

// UnmappedError is a credential a stack needs that no entry maps for it (any more).
type UnmappedError struct {
	Name, Tenant, Stack, Reason string
}

func (e *UnmappedError) Error() string {
	return fmt.Sprintf("credential %q of stack %s (tenant %s): %s", e.Name, e.Stack, e.Tenant, e.Reason)
}

// Resolve reads the values of names for the stack and tenant now (a rotated file or variable
// is picked up); a name no entry maps, or whose source is gone, is an *UnmappedError.
func (m Map) Resolve(tenant, stack string, names []string, lookup func(string) (string, bool)) ([]Value, error) {
	var out []Value
	for _, n := range names {
		s, ok := m.source(tenant, stack, n)
		if !ok {
			return nil, &UnmappedError{Name: n, Tenant: tenant, Stack: stack,
				Reason: "no entry of " + Var + " maps it for this stack and tenant"}
		}
		if s.Env != "" {
			v, ok := lookup(s.Env)
			if !ok {
				return nil, &UnmappedError{Name: n, Tenant: tenant, Stack: stack, Reason: "its source variable " + s.Env + " is not set"}
			}
			out = append(out, Value{Name: n, As: s.As, Data: []byte(v)})
			continue
		}
		data, err := os.ReadFile(s.File)
		if err != nil {
			return nil, &UnmappedError{Name: n, Tenant: tenant, Stack: stack, Reason: "its source file: " + err.Error()}
		}
		out = append(out, Value{Name: n, As: s.As, Data: data, File: true})
	}
	return out, nil
}

// Secrets are the values to keep out of logs and errors: each whole value and, for a file,
// each of its non-trivial lines (a JSON key file's private key line, say).
func Secrets(vals []Value) []string {
	var out []string
	for _, v := range vals {
		if s := strings.TrimSpace(string(v.Data)); len(s) >= minSecret {
			out = append(out, s)
		}
		if v.File {
			for line := range bytes.SplitSeq(v.Data, []byte("\n")) {
				if s := strings.TrimSpace(string(line)); len(s) >= minSecret {
					out = append(out, s)
				}
			}
		}
	}
	// Longest first, so a value that contains another is replaced whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return slices.Compact(out)
}

// minSecret is the shortest value redacted: shorter ones ("1", "{") would mangle every line.
const minSecret = 6

// Redact replaces each of secrets in s.
func Redact(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}
