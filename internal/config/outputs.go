package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Outputs is a stack's outputs: what slipway does with its terraform outputs beyond status.
type Outputs struct {
	// Secret are the outputs whose values go into the instance's Secret on the cluster (next to
	// the bootstrapped secrets), read on the worker that deploys the app: never into history,
	// status, git or logs. Name them when they are sensitive.
	Secret []string
}

// outputNameRE is a terraform output name that is also a Secret's data key.
var outputNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,62}$`)

// parseOutputs reads schema.outputs: {secret: [name, ...]}.
func parseOutputs(n *yaml.Node, field string, fe *yamlfields.Errors) Outputs {
	var o Outputs
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with the key secret, got %s (line %d)", nodeKind(n), n.Line)
		return o
	}
	for _, kv := range pairs(n, field+".", fe) {
		f := field + "." + kv.Key
		switch kv.Key {
		case "secret":
			o.Secret = parseSecretOutputs(kv.Value, f, fe)
		default:
			fe.Add(f, "unknown field (line %d); allowed: secret", kv.Line)
		}
	}
	return o
}

func parseSecretOutputs(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of terraform output names, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var names []string
	for i, item := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		name, ok := yamlfields.String(yamlfields.Deref(item))
		switch {
		case !ok || !outputNameRE.MatchString(name):
			fe.Add(f, "must be a terraform output name matching %s (line %d)", outputNameRE, item.Line)
		case slices.Contains(names, name):
			fe.Add(f, "output %q is listed twice (line %d)", name, item.Line)
		default:
			names = append(names, name)
		}
	}
	return names
}

// checkOutputs refuses a secret output named like a bootstrapped secret: both are keys of one Secret.
func checkOutputs(s *Schema, fe *yamlfields.Errors) {
	for i, name := range s.Outputs.Secret {
		if slices.Contains(s.Secrets, name) {
			fe.Add(fmt.Sprintf("schema.outputs.secret[%d]", i), "%q is also in schema.secrets: both would be the same key of the instance's Secret", name)
		}
	}
}

// OutputsFile records, in a rendered instance directory whose manifests use .Outputs, the
// terraform outputs they were rendered with (sensitive ones as names only): the next render of
// the instance starts from them, so git holds both the manifests and what made them.
const OutputsFile = "outputs.json"

// SensitiveOutput stands in for a sensitive output's value (terraform.SensitiveOutput): templates never see one.
const SensitiveOutput = "[sensitive]"

var (
	// outputRefRE finds .Outputs.name in a template's text.
	outputRefRE = regexp.MustCompile(`\.Outputs\.([A-Za-z_][A-Za-z0-9_]*)`)
	// outputBlockRE finds the root module's output blocks in the stack's terraform files.
	outputBlockRE = regexp.MustCompile(`(?m)^[ \t]*output[ \t]+"([^"]+)"`)
)

// UsesOutputs reports whether any of the stack's manifest templates refers to .Outputs: only
// then is the instance rendered again after its apply.
func UsesOutputs(stack *Stack) bool {
	return len(OutputManifests(stack)) > 0
}

// OutputManifests are the rendered paths of the manifest templates that refer to .Outputs.
func OutputManifests(stack *Stack) []string {
	var out []string
	for _, p := range sortedKeys(stack.Files) {
		target := strings.TrimSuffix(p, TemplateSuffix)
		if target != p && strings.HasPrefix(target, ManifestsDir+"/") && bytes.Contains(stack.Files[p], []byte(".Outputs")) {
			out = append(out, target)
		}
	}
	return out
}

// declaredOutputs are the output names the stack's terraform files declare.
func declaredOutputs(stack *Stack) []string {
	var out []string
	for _, p := range sortedKeys(stack.Files) {
		if !strings.HasPrefix(p, TerraformDir+"/") {
			continue
		}
		for _, m := range outputBlockRE.FindAllSubmatch(stack.Files[p], -1) {
			if n := string(m[1]); !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// templateOutputs is what .Outputs holds: each declared output, "" until an apply gave it a
// value, then its value; sensitive outputs are left out, so a template naming one is refused.
func templateOutputs(stack *Stack, outputs map[string]string) map[string]string {
	m := map[string]string{}
	for _, n := range declaredOutputs(stack) {
		m[n] = ""
	}
	for n, v := range outputs {
		m[n] = v
	}
	for n, v := range outputs {
		if v == SensitiveOutput {
			delete(m, n)
		}
	}
	return m
}

// outputsFile is OutputsFile's content: the outputs as one JSON object, keys sorted.
func outputsFile(outputs map[string]string) []byte {
	if outputs == nil {
		outputs = map[string]string{}
	}
	data, _ := json.MarshalIndent(outputs, "", "  ") // a map of strings always encodes
	return append(data, '\n')
}

// ParseOutputsFile reads OutputsFile; errors name the file.
func ParseOutputsFile(data []byte) (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &ValidationError{Errors: []FieldError{{Field: OutputsFile, Message: "must be a JSON object of strings: " + err.Error()}}}
	}
	return m, nil
}

// checkOutputRefs refuses .Outputs outside manifests/ and a .Outputs.name that names no output
// templates may see; given are the outputs rendered with, to tell a sensitive one apart.
func checkOutputRefs(file string, text []byte, data, given map[string]string, fe *yamlfields.Errors) bool {
	refs := outputRefRE.FindAllSubmatch(text, -1)
	if len(refs) == 0 && !bytes.Contains(text, []byte(".Outputs")) {
		return true
	}
	if data == nil {
		fe.Add(file, ".Outputs is only for templates under %s/: terraform outputs are known only after the apply these files drive", ManifestsDir)
		return false
	}
	ok := true
	for _, m := range refs {
		n := string(m[1])
		if _, found := data[n]; found {
			continue
		}
		ok = false
		if given[n] == SensitiveOutput {
			fe.Add(file, ".Outputs.%s is a sensitive output: templates never see one; send it to the instance's Secret with schema.outputs.secret and refer to it by secretKeyRef", n)
		} else {
			fe.Add(file, ".Outputs.%s: the stack's terraform declares no output %q", n, n)
		}
	}
	return ok
}

// checkStackOutputs refuses, when the stack is loaded (so before anything changes), .Outputs
// outside manifests/, a .Outputs.name and a schema.outputs.secret name the stack's terraform
// does not declare.
func checkStackOutputs(st *Stack, fe *yamlfields.Errors) {
	declared := map[string]string{}
	for _, n := range declaredOutputs(st) {
		declared[n] = ""
	}
	for _, p := range sortedKeys(st.Files) {
		if !strings.HasSuffix(p, TemplateSuffix) {
			continue
		}
		data := declared
		if !strings.HasPrefix(p, ManifestsDir+"/") {
			data = nil
		}
		checkOutputRefs(p, st.Files[p], data, nil, fe)
	}
	if st.Schema == nil {
		return
	}
	for i, name := range st.Schema.Outputs.Secret {
		if _, ok := declared[name]; !ok {
			fe.Add(fmt.Sprintf("schema.outputs.secret[%d]", i), "the stack's terraform declares no output %q", name)
		}
	}
}
