package config

import (
	"path"
	"strings"

	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// SchemaFile is the stack's schema, relative to its directory.
const SchemaFile = "schema.yaml"

// Stack directories that are rendered into the instance's directory.
const (
	TerraformDir = "terraform"
	ManifestsDir = "manifests"
	HooksDir     = hooks.ScriptDir // exec hooks' scripts, read from the instance's directory
)

// TemplateSuffix marks files that are rendered; the suffix is dropped from the output path.
const TemplateSuffix = ".tmpl"

// Stack is a loaded, checked stack. Files holds its terraform/ and manifests/ files, keyed
// by path relative to stacks/<name>/.
type Stack struct {
	Name   string
	Schema *Schema
	Files  map[string][]byte
}

// StackDir is the stack's directory in the GitOps repository.
func StackDir(name string) string { return "stacks/" + name }

// LoadStack checks a stack from everything under stacks/<name>/ (as a forge's ReadDir
// returns it): the schema, safe file paths, and that every template parses. No files means
// the stack does not exist (*ValidationError on "stack"); a broken stack is a *StackError.
func LoadStack(name string, files map[string][]byte) (*Stack, error) {
	var bad yamlfields.Errors
	if !names.IsLabel(name) {
		bad.Add("stack", "%q %s", name, names.LabelRule)
		return nil, validationError(bad)
	}
	if len(files) == 0 {
		bad.Add("stack", "unknown stack %q (nothing under %s/)", name, StackDir(name))
		return nil, validationError(bad)
	}
	var fe yamlfields.Errors
	st := &Stack{Name: name, Files: map[string][]byte{}}
	if data, ok := files[SchemaFile]; ok {
		st.Schema = parseSchema(data, &fe)
	} else {
		fe.Add(SchemaFile, "is missing from %s/", StackDir(name))
	}
	outputs := map[string]string{}
	for _, p := range sortedKeys(files) {
		if !rendered(p) {
			continue
		}
		if path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") {
			fe.Add(p, "is not a clean relative path")
			continue
		}
		out := strings.TrimSuffix(p, TemplateSuffix)
		if other, dup := outputs[out]; dup {
			fe.Add(p, "renders to %s, as %s does", out, other)
			continue
		}
		outputs[out] = p
		if strings.HasSuffix(p, TemplateSuffix) {
			if _, err := newTemplate(p, files[p]); err != nil {
				fe.Add(p, "%v", err)
				continue
			}
		}
		st.Files[p] = files[p]
	}
	checkHookScripts(name, st.Schema, files, &fe)
	checkStackOutputs(st, &fe)
	if err := stackError(name, fe); err != nil {
		return nil, err
	}
	return st, nil
}

// rendered says whether a stack file belongs in the instance's directory.
func rendered(p string) bool {
	return strings.HasPrefix(p, TerraformDir+"/") || strings.HasPrefix(p, ManifestsDir+"/") || strings.HasPrefix(p, HooksDir+"/")
}
