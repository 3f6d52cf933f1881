package config

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// InstanceFile is the instance's config inside its directory in the GitOps repository.
const InstanceFile = "instance.yaml"

// Instance is an instance file: the stack and its parameters. Tenant and name are not in
// the file; they come from the Ref.
type Instance struct {
	Stack      string         `yaml:"stack" json:"stack"`
	Parameters map[string]any `yaml:"parameters" json:"parameters"`
}

// ParseInstance parses an instance file strictly: unknown or repeated keys are errors.
// Parameter values are kept as YAML gives them; Validate checks them against the stack.
// Errors are *ValidationError.
func ParseInstance(data []byte) (*Instance, error) {
	var fe yamlfields.Errors
	inst := &Instance{Parameters: map[string]any{}}
	root, err := yamlfields.ParseDoc(data)
	switch {
	case err != nil:
		fe.Add("yaml", "%v", err)
		return nil, validationError(fe)
	case root == nil:
		fe.Add("stack", "is required (the instance file is empty)")
		return nil, validationError(fe)
	case root.Kind != yaml.MappingNode:
		fe.Add("yaml", "the instance file must be a mapping with keys stack, parameters; got %s (line %d)", nodeKind(root), root.Line)
		return nil, validationError(fe)
	}
	hasStack := false
	for _, kv := range pairs(root, "", &fe) {
		switch kv.Key {
		case "stack":
			hasStack = true
			inst.Stack = parseStackName(kv.Value, &fe)
		case "parameters":
			parseParamValues(kv.Value, inst.Parameters, &fe)
		default:
			fe.Add(kv.Key, "unknown field (line %d); allowed: stack, parameters", kv.Line)
		}
	}
	if !hasStack {
		fe.Add("stack", "is required")
	}
	if err := validationError(fe); err != nil {
		return nil, err
	}
	return inst, nil
}

func parseStackName(n *yaml.Node, fe *yamlfields.Errors) string {
	s, ok := yamlfields.String(n)
	switch {
	case !ok:
		fe.Add("stack", "must be a string, got %s (line %d)", nodeKind(n), n.Line)
	case s == "":
		fe.Add("stack", "is required (line %d)", n.Line)
	case !isLabel(s):
		// The name becomes a path (stacks/<name>), so it must be a plain label.
		fe.Add("stack", "%q %s (line %d)", s, labelRule, n.Line)
	}
	return s
}

func parseParamValues(n *yaml.Node, into map[string]any, fe *yamlfields.Errors) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		fe.Add("parameters", "must be a mapping of name: value, got %s (line %d)", nodeKind(n), n.Line)
		return
	}
	for _, kv := range pairs(n, "parameters.", fe) {
		v, err := nodeValue(kv.Value)
		if err != nil {
			fe.Add("parameters."+kv.Key, "%v (line %d)", err, kv.Line)
			continue
		}
		into[kv.Key] = v
	}
}

// Canonical encodes the instance deterministically: stack first, then parameters sorted by
// name, two-space indent. Equal instances give equal bytes.
func (i *Instance) Canonical() []byte {
	params := &yaml.Node{Kind: yaml.MappingNode}
	if len(i.Parameters) == 0 {
		params.Style = yaml.FlowStyle
	}
	for _, name := range sortedKeys(i.Parameters) {
		params.Content = append(params.Content, scalar(name), valueNode(i.Parameters[name]))
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		scalar("stack"), scalar(i.Stack),
		scalar("parameters"), params,
	}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		// Unreachable for nodes built from strings; keep the bytes deterministic anyway.
		return []byte(fmt.Sprintf("# canonical encoding failed: %v\n", err))
	}
	_ = enc.Close()
	return buf.Bytes()
}

func scalar(s string) *yaml.Node {
	n := &yaml.Node{}
	_ = n.Encode(s) // encoding a string cannot fail; Encode picks quoting for "yes", "1", ...
	return n
}

// valueNode encodes a parameter value; values YAML cannot encode fall back to their text.
func valueNode(v any) *yaml.Node {
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return scalar(fmt.Sprint(v))
	}
	return n
}
