package config

import (
	"crypto/sha256"
	"path"
	"strings"
	"sync"
	"text/template"

	"github.com/slipway-dev/slipway/internal/escaping"
)

// funcs is the template func map: quote for HCL strings, toJSON for YAML/JSON values, sh for
// shell words, and the escapers slipway appends by context (internal/escaping).
var funcs = escaping.Funcs

// quote returns v as a double-quoted HCL string literal (escaping.Quote).
func quote(v any) string { return escaping.Quote(v) }

// toJSON encodes v as compact JSON, valid YAML too (escaping.ToJSON).
func toJSON(v any) (string, error) { return escaping.ToJSON(v) }

// hookValues says where a hook script gets a tenant's values instead of its text.
const hookValues = "a hook script runs on the worker, so no tenant value is written into it: " +
	"read the parameter from the environment (SLIPWAY_PARAM_<NAME>, the name in upper case) or from the JSON document on stdin"

// shellValues says where any other shell script gets a tenant's values instead of its text.
const shellValues = "a shell script is code, so no tenant value is written into it: " +
	"pass it in the environment (terraform's local-exec environment = { NAME = {{ .Params.name }} })"

// fileContext is the output language of a stack file, from where it renders to: terraform's
// HCL, shell, YAML/JSON (and jsonnet); any other kind takes no tenant values, as slipway
// cannot escape for it.
func fileContext(file string) (escaping.Grammar, escaping.Options) {
	target := strings.TrimSuffix(file, TemplateSuffix)
	tenant := []string{"Params", "Outputs"}
	if strings.HasPrefix(target, HooksDir+"/") {
		return escaping.Shell{}, escaping.Options{Tenant: tenant, NoTenant: hookValues}
	}
	o := escaping.Options{Tenant: tenant}
	switch path.Ext(target) {
	case ".tf", ".tfvars", ".hcl":
		return escaping.HCL{}, o
	case ".sh", ".bash":
		o.NoTenant = shellValues
		return escaping.Shell{}, o
	case ".yaml", ".yml":
		return escaping.YAML{}, o
	case ".json":
		if strings.HasSuffix(target, ".tf.json") {
			// Terraform's JSON syntax: the escaping cannot tell a module's source or a command from data.
			o.NoTenant = "a .tf.json file is terraform code in JSON, where slipway cannot tell a command or a module's source from data, so no tenant value is written into it: write the value in a .tf file"
		}
		return escaping.YAML{JSON: true}, o
	case ".jsonnet", ".libsonnet":
		return escaping.YAML{Jsonnet: true}, o
	}
	o.NoTenant = "slipway escapes values only in .tf, .tfvars, .hcl, .sh, .yaml, .yml, .json and .jsonnet files, and this is a " +
		strings.TrimPrefix(path.Ext(target)+" file", " ")
	return escaping.Text{}, o
}

// newTemplate parses a stack file's template and escapes each of its values for where it
// is written; a value that may not be written there is refused with its line.
// A parsed template is kept by its name and text: every step of every instance on a stack loads
// and renders the same few files, and a parsed template may be executed concurrently.
func newTemplate(name string, text []byte) (*template.Template, error) {
	key := sha256.Sum256([]byte(name + "\x00" + string(text)))
	parsed.Lock()
	t, ok := parsed.m[key]
	parsed.Unlock()
	if ok {
		return t, nil
	}
	t, err := parseTemplate(name, text)
	if err != nil {
		return nil, err
	}
	parsed.Lock()
	if len(parsed.m) >= maxParsed {
		parsed.m = map[[32]byte]*template.Template{}
	}
	parsed.m[key] = t
	parsed.Unlock()
	return t, nil
}

// parsed are the templates newTemplate parsed and escaped, by sha256 of name and text; it starts
// over when full (a stack has a few templates).
var parsed = struct {
	sync.Mutex
	m map[[32]byte]*template.Template
}{m: map[[32]byte]*template.Template{}}

const maxParsed = 1024

func parseTemplate(name string, text []byte) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Parse(string(text))
	if err != nil {
		return nil, err
	}
	g, o := fileContext(name)
	if err := escaping.Apply(t, g, o); err != nil {
		return nil, err
	}
	return t, nil
}
