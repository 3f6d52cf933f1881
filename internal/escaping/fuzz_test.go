package escaping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"text/template"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// hostileSeeds try to leave their place in every context: quotes, command substitution,
// backticks, line breaks, HCL interpolation and directives, URL delimiters, dot segments, NUL.
var hostileSeeds = []string{
	"plain", "", `"`, `'`, "`id`", "$(id -un)", "${a}", "%{ if true }x%{ endif }", "$${a}", "a\nb", "a\r\nb",
	"\n}\nresource \"x\" \"y\" {", "EOT", " EOT ", "x:y@127.0.0.1:9/admin/flush?", "?a=1&b=2#frag", "#", "..", ".", "../..",
	"a\x00b", "\\", `\"`, "'\\''", "a: b", "- x", "{a: 1}", "[1, 2]", "&anchor", "*alias", "!!binary x", "# comment",
	"\u2028\u2029\u0085\ufeff", "\xff\xfe", "ü☃😀", "*/", "/*", "//", "%2F", "100%", "a b\tc",
}

// render parses tmpl, escapes it with g and executes it with v as .V.
func render(t *testing.T, g Grammar, tmpl string, v string) (string, error) {
	t.Helper()
	tp, err := template.New("f").Option("missingkey=error").Funcs(Funcs).Parse(tmpl)
	if err != nil {
		t.Fatalf("parse %q: %v", tmpl, err)
	}
	if err := Apply(tp, g, Options{}); err != nil {
		t.Fatalf("escape %q: %v", tmpl, err)
	}
	var b bytes.Buffer
	err = tp.Execute(&b, map[string]any{"V": v})
	return b.String(), err
}

// hclShape is the file's token kinds but its literal text, which values only ever add to.
func hclShape(t *testing.T, src string) string {
	t.Helper()
	toks, diags := hclsyntax.LexConfig([]byte(src), "f.tf", hcl.InitialPos)
	if diags.HasErrors() {
		return "lex error: " + diags.Error()
	}
	var kinds []string
	for _, tok := range toks {
		if tok.Type == hclsyntax.TokenQuotedLit || tok.Type == hclsyntax.TokenStringLit {
			continue
		}
		kinds = append(kinds, tok.Type.String())
	}
	return strings.Join(kinds, " ")
}

var hclTemplates = []string{
	"a = {{ .V }}\nb = 1\n",
	"a = {{ quote .V }}\n",
	"a = \"x-{{ .V }}-y\"\nb = 1\n",
	"a = \"${ {{ .V }} }\"\n",
	"a = <<EOT\nline {{ .V }}\n{{ .V }}\nEOT\nb = 1\n",
	"# {{ .V }}\nb = 1\n",
	"// {{ .V }}\nb = 1\n",
	"a = { k = {{ .V }}, l = [\"{{ .V }}\"] }\n",
}

func FuzzHCL(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, tmpl := range hclTemplates {
			want, err := render(t, HCL{}, tmpl, "plain")
			if err != nil {
				t.Fatal(err)
			}
			got, err := render(t, HCL{}, tmpl, v)
			if err != nil {
				continue // refused, as a heredoc refuses a line break: nothing is written
			}
			if a, b := hclShape(t, want), hclShape(t, got); a != b {
				t.Fatalf("%q in %q changed the HCL tokens:\n%s\n%s\n%s", v, tmpl, a, b, got)
			}
		}
		// The value reads back as itself.
		if utf8.ValidString(v) && isASCII(v) {
			got, err := render(t, HCL{}, "{{ .V }}", v)
			if err != nil {
				t.Fatal(err)
			}
			expr, diags := hclsyntax.ParseExpression([]byte(got), "f.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatalf("%q: %s", got, diags.Error())
			}
			val, diags := expr.Value(nil)
			if diags.HasErrors() || val.AsString() != v {
				t.Fatalf("%q read back as %#v (%s)", v, val, diags.Error())
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// shellShape is the script's syntax tree as node types, but the inert text (literals and
// single-quoted strings) a value is written as: the same words, commands and substitutions.
func shellShape(src string) string {
	f, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return "parse error: " + err.Error()
	}
	var kinds []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			return true
		}
		switch n.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
			return true
		}
		kinds = append(kinds, reflect.TypeOf(n).Elem().Name())
		return true
	})
	return strings.Join(kinds, " ")
}

var shellTemplates = []string{
	"echo {{ .V }} end\n",
	"echo {{ sh .V }}\n",
	"echo --name={{ .V }}x\n",
	"echo \"a {{ .V }} b\" end\n",
	"echo 'a {{ .V }} b' end\n",
	"echo \"$(echo \"{{ .V }}\")\" end\n",
	"# {{ .V }}\necho end\n",
}

func FuzzShell(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			return // the parser refuses invalid UTF-8 that a shell reads as bytes
		}
		for _, tmpl := range shellTemplates {
			want, err := render(t, Shell{}, tmpl, "plain")
			if err != nil {
				t.Fatal(err)
			}
			got, err := render(t, Shell{}, tmpl, v)
			if err != nil {
				continue // refused (a NUL byte; a line break in a comment)
			}
			if a, b := shellShape(want), shellShape(got); a != b {
				t.Fatalf("%q in %q changed the shell words:\n%s\n%s\n%s", v, tmpl, a, b, got)
			}
		}
	})
}

// yamlShape is the document's node tree: kinds, styles of keys, mapping keys; scalar values out.
func yamlShape(src string) string {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		return "parse error: " + err.Error()
	}
	var b strings.Builder
	var walk func(n *yaml.Node, key bool)
	walk = func(n *yaml.Node, key bool) {
		fmt.Fprintf(&b, "(%d", n.Kind)
		if key {
			b.WriteString(" " + n.Value)
		}
		for i, c := range n.Content {
			walk(c, n.Kind == yaml.MappingNode && i%2 == 0)
		}
		b.WriteString(")")
	}
	walk(&n, false)
	return b.String()
}

var yamlTemplates = []struct {
	tmpl string
	want func(v string) any // what key k reads back as, nil when the place changes it
}{
	{"k: {{ .V }}\nz: 1\n", func(v string) any { return v }},
	{"k: {{ toJSON .V }}\nz: 1\n", func(v string) any { return v }},
	{"k: \"a{{ .V }}b\"\nz: 1\n", func(v string) any { return "a" + v + "b" }},
	{"k: 'a{{ .V }}b'\nz: 1\n", nil},
	{"# {{ .V }}\nk: 1\nz: 1\n", nil},
	{"{k: {{ .V }}, z: 1}\n", func(v string) any { return v }},
	{"k: [{{ .V }}, 1]\nz: 1\n", nil},
	{"k:\n  - {{ .V }}\nz: 1\n", nil},
	{"k: image:{{ .V }}\nz: 1\n", nil},
	{"k: |\n  line {{ .V }}\n  {{ .V }} end\nz: 1\n", func(v string) any { return "line " + v + "\n" + v + " end\n" }},
	{"k: >-\n  {{ toJSON .V }}\nz: 1\n", nil},
	{"a:\n  k: |\n    {{ .V }}\n  z: 1\n", nil},
	{"k: |\n  {{ .V }}\n  more\nz: 1\n", nil},
	{`{"k": {{ .V }}, "z": 1}`, func(v string) any { return v }},
	{`{"k": "a{{ .V }}b", "z": 1}`, func(v string) any { return "a" + v + "b" }},
}

func FuzzYAMLAndJSON(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, tt := range yamlTemplates {
			g := YAML{JSON: strings.HasPrefix(tt.tmpl, "{\"")}
			want, err := render(t, g, tt.tmpl, "plain")
			if err != nil {
				t.Fatal(err)
			}
			got, err := render(t, g, tt.tmpl, v)
			if err != nil {
				continue // refused (a character an unquoted scalar or single quotes cannot hold)
			}
			if a, b := yamlShape(want), yamlShape(got); a != b {
				t.Fatalf("%q in %q changed the YAML structure:\n%s\n%s\n%s", v, tt.tmpl, a, b, got)
			}
			if tt.want == nil || !utf8.ValidString(v) || strings.ContainsRune(v, 0x85) {
				continue
			}
			var m map[string]any
			if err := yaml.Unmarshal([]byte(got), &m); err != nil {
				t.Fatal(err)
			}
			if m["k"] != tt.want(v) || m["z"] != 1 {
				t.Fatalf("%q in %q read back as %#v", v, tt.tmpl, m)
			}
			if strings.HasPrefix(tt.tmpl, "{\"") {
				var j map[string]any
				if err := json.Unmarshal([]byte(got), &j); err != nil || j["k"] != tt.want(v) {
					t.Fatalf("%q in %q is not the same JSON: %s %v", v, tt.tmpl, got, err)
				}
			}
		}
	})
}

func FuzzURL(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	const tmpl = "https://hooks.example.com/a/{{ .V }}/b?q={{ .V }}&r=1#{{ .V }}"
	f.Fuzz(func(t *testing.T, v string) {
		tp, err := template.New("url").Option("missingkey=error").Funcs(URLFuncs).Parse(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if err := Apply(tp, URL{}, Options{}); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := tp.Execute(&b, map[string]any{"V": v}); err != nil {
			if v == "." || v == ".." {
				return // a dot segment is refused
			}
			t.Fatal(err)
		}
		u, err := url.Parse(b.String())
		if err != nil {
			t.Fatalf("%q: %v", b.String(), err)
		}
		if u.Scheme != "https" || u.Host != "hooks.example.com" || u.User != nil {
			t.Fatalf("%q moved the URL to %s://%s (user %v)", v, u.Scheme, u.Host, u.User)
		}
		segs := strings.Split(u.EscapedPath(), "/")
		if len(segs) != 4 || segs[1] != "a" || segs[3] != "b" {
			t.Fatalf("%q changed the path: %q", v, u.EscapedPath())
		}
		if seg, err := url.PathUnescape(segs[2]); err != nil || seg != v {
			t.Fatalf("%q: path segment %q reads back as %q", v, segs[2], seg)
		}
		q := u.Query()
		if len(q) != 2 || q.Get("q") != v || q.Get("r") != "1" || u.Fragment != v {
			t.Fatalf("%q changed the query or fragment: %v #%q", v, q, u.Fragment)
		}
	})
}
