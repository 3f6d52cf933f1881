package config

import (
	"fmt"
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// ParamType is the type of a stack parameter.
type ParamType string

const (
	TypeString ParamType = "string"
	TypeInt    ParamType = "int"
	TypeBool   ParamType = "bool"
	TypeNumber ParamType = "number"
)

var paramTypes = []ParamType{TypeString, TypeInt, TypeBool, TypeNumber}

func (t ParamType) valid() bool { return slices.Contains(paramTypes, t) }

func (t ParamType) article() string {
	if t == TypeInt {
		return "an int"
	}
	return "a " + string(t)
}

var paramNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Param is one parameter of a stack. Default is normalised like a resolved value (see
// normalize) and is set exactly when Required is false, so every parameter resolves.
type Param struct {
	Name        string
	Type        ParamType
	Default     any
	Required    bool
	Initial     bool // immutable after the first deploy (EDP's "(INITIAL)")
	Enum        []string
	Description string
}

// Schema is a stack's schema.yaml.
type Schema struct {
	Description string
	Parameters  []Param
	// Secrets are generated at random on the first deploy (EDP) and handed to the
	// deployer, never to git, templates, or workflow history.
	Secrets []string
	// Approval is the stack's approval rule; an instance file may only tighten it.
	Approval approval.Rule
	// ControlPlanes are the worker pools an instance of the stack may name in controlPlane; the
	// default pool is always allowed, and with none listed it is the only one.
	ControlPlanes []string
	// Stateful are the terraform resource types or addresses whose deletion or replacement
	// needs a platform approval, whatever Approval says.
	Stateful []string
	// Hooks are the stack's lifecycle hooks (drain, post-deploy), in document order.
	Hooks []hooks.Spec
	// ArgoCD is where the stack's Applications go (argocd.go); zero keeps the defaults.
	ArgoCD ArgoCD
	// Placement puts each instance on several ArgoCD clusters (placement.go); zero keeps ArgoCD's one.
	Placement Placement
	// Timeouts are the budgets of its terraform steps; zero ones take DefaultBudget.
	Timeouts Timeouts
	// Capacity names the capacity budgets its terraform steps draw on (capacity.go).
	Capacity Capacity
	// Credentials name what its terraform and hooks need; the operator maps each to a source.
	Credentials []string
	// Engine is engine: and engineVersion:, the binary that runs the stack's terraform (engine.go).
	Engine Engine
	// Outputs is outputs:, the terraform outputs that go into the instance's Secret (outputs.go).
	Outputs Outputs
	// Dependencies are the instances an instance of the stack needs, and the outputs it takes (dependencies.go).
	Dependencies []Dependency
	// Sync is sync:, ArgoCD's automated sync and self-heal on the instance's app (sync.go); nil says nothing.
	Sync *Sync
	// Protected protects every instance of the stack from destroy and deprovision (protected.go).
	Protected bool
	// Expiry bounds and requires its instances' expires (expiry.go); nil: no maximum, archive at the end.
	Expiry *Expiry
}

// Param finds a parameter by name.
func (s *Schema) Param(name string) (Param, bool) {
	for _, p := range s.Parameters {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// ParseSchema parses and checks a schema.yaml strictly; errors are *StackError with fields
// like "schema.parameters[2].type".
func ParseSchema(data []byte) (*Schema, error) {
	var fe yamlfields.Errors
	s := parseSchema(data, &fe)
	if err := stackError("", fe); err != nil {
		return nil, err
	}
	return s, nil
}

func parseSchema(data []byte, fe *yamlfields.Errors) *Schema {
	root, err := yamlfields.ParseDoc(data)
	if err != nil {
		fe.Add("schema", "%v", err)
		return nil
	}
	s := &Schema{}
	if root == nil {
		return s
	}
	if root.Kind != yaml.MappingNode {
		fe.Add("schema", "must be a mapping with keys description, parameters, secrets, approval, controlPlanes, stateful, hooks, argocd, engine, engineVersion, timeouts, capacity, credentials, outputs, dependencies (line %d)", root.Line)
		return nil
	}
	for _, kv := range pairs(root, "schema.", fe) {
		field := "schema." + kv.Key
		switch kv.Key {
		case "description":
			s.Description = parseString(kv.Value, field, fe)
		case "parameters":
			s.Parameters = parseParams(kv.Value, fe)
		case "secrets":
			s.Secrets = parseSecrets(kv.Value, fe)
		case "hooks":
			s.Hooks = parseHooks(kv.Value, fe)
		case "approval":
			s.Approval = parseApproval(kv.Value, field, fe)
		case "controlPlanes":
			s.ControlPlanes = parseControlPlanes(kv.Value, field, fe)
		case "stateful":
			s.Stateful = parseStateful(kv.Value, field, fe)
		case "argocd":
			s.ArgoCD = parseArgoCD(kv.Value, field, fe)
		case "placement":
			s.Placement = parsePlacement(kv.Value, field, fe)
		case "engine":
			s.Engine.Name = parseEngineName(kv.Value, field, fe)
		case "engineVersion":
			s.Engine.Version = parseEngineVersion(kv.Value, field, fe)
		case "timeouts":
			s.Timeouts = parseTimeouts(kv.Value, fe)
		case "capacity":
			s.Capacity = parseCapacity(kv.Value, fe)
		case "credentials":
			s.Credentials = parseCredentials(kv.Value, fe)
		case "outputs":
			s.Outputs = parseOutputs(kv.Value, field, fe)
		case "dependencies":
			s.Dependencies = parseDependencies(kv.Value, field, fe)
		case "sync":
			s.Sync = parseSync(kv.Value, field, fe)
		case "protected":
			s.Protected = parseBool(kv.Value, field, fe)
		case "expiry":
			s.Expiry = parseExpiry(kv.Value, field, fe)
		default:
			fe.Add(field, "unknown field (line %d); allowed: description, parameters, secrets, approval, controlPlanes, stateful, hooks, argocd, placement, engine, engineVersion, timeouts, capacity, credentials, outputs, dependencies, sync, protected, expiry", kv.Line)
		}
	}
	checkOutputs(s, fe)
	checkDependencies(s, fe)
	return s
}

func parseParams(n *yaml.Node, fe *yamlfields.Errors) []Param {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		fe.Add("schema.parameters", "must be a list, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var params []Param
	firstAt := map[string]int{}
	for i, item := range n.Content {
		prefix := fmt.Sprintf("schema.parameters[%d]", i)
		p, ok := parseParam(yamlfields.Deref(item), prefix, fe)
		if !ok {
			continue
		}
		if j, dup := firstAt[p.Name]; dup {
			fe.Add(prefix+".name", "duplicate parameter %q (first at schema.parameters[%d])", p.Name, j)
			continue
		}
		firstAt[p.Name] = i
		params = append(params, p)
	}
	return params
}

// parseSecrets reads the list of secret names; names follow the parameter rule.
func parseSecrets(n *yaml.Node, fe *yamlfields.Errors) []string {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		fe.Add("schema.secrets", "must be a list of names, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for i, item := range n.Content {
		field := fmt.Sprintf("schema.secrets[%d]", i)
		name, ok := yamlfields.String(yamlfields.Deref(item))
		switch {
		case !ok || !paramNameRE.MatchString(name):
			fe.Add(field, "must be a name matching %s (line %d)", paramNameRE, item.Line)
		case seen[name]:
			fe.Add(field, "duplicate secret %q", name)
		default:
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// parseParam reads one parameter; ok is false when it has errors of its own.
func parseParam(n *yaml.Node, prefix string, fe *yamlfields.Errors) (Param, bool) {
	before := len(*fe)
	if n.Kind != yaml.MappingNode {
		fe.Add(prefix, "must be a mapping, got %s (line %d)", nodeKind(n), n.Line)
		return Param{}, false
	}
	var p Param
	var defaultNode *yaml.Node
	var hasName, hasType bool
	for _, kv := range pairs(n, prefix+".", fe) {
		field := prefix + "." + kv.Key
		switch kv.Key {
		case "name":
			hasName = true
			if name, ok := yamlfields.String(kv.Value); ok && !paramNameRE.MatchString(name) {
				fe.Add(field, "%q must match %s (a lowercase letter, then lowercase letters, digits or '_')", name, paramNameRE)
			}
			p.Name = parseString(kv.Value, field, fe)
		case "type":
			hasType = true
			if t, ok := yamlfields.String(kv.Value); ok && !ParamType(t).valid() {
				fe.Add(field, "unknown type %q; allowed: string, int, bool, number", t)
			}
			p.Type = ParamType(parseString(kv.Value, field, fe))
		case "default":
			defaultNode = kv.Value
		case "required":
			p.Required = parseBool(kv.Value, field, fe)
		case "initial":
			p.Initial = parseBool(kv.Value, field, fe)
		case "enum":
			p.Enum = parseEnum(kv.Value, field, fe)
		case "description":
			p.Description = parseString(kv.Value, field, fe)
		default:
			fe.Add(field, "unknown field (line %d); allowed: name, type, default, required, initial, enum, description", kv.Line)
		}
	}
	if !hasName {
		fe.Add(prefix+".name", "is required")
	}
	if !hasType {
		fe.Add(prefix+".type", "is required")
	}
	if p.Enum != nil && p.Type != TypeString && p.Type.valid() {
		fe.Add(prefix+".enum", "is only allowed for type string, not %s", p.Type)
	}
	switch {
	case defaultNode != nil && p.Required:
		fe.Add(prefix+".default", "must not be set on a required parameter")
	case defaultNode == nil && !p.Required:
		fe.Add(prefix+".default", "is required unless required is true (every parameter must resolve to a value)")
	case defaultNode != nil && p.Type.valid():
		p.Default = parseDefault(defaultNode, p, prefix+".default", fe)
	}
	return p, len(*fe) == before
}

func parseDefault(n *yaml.Node, p Param, field string, fe *yamlfields.Errors) any {
	raw, err := nodeValue(n)
	if err != nil {
		fe.Add(field, "%v (line %d)", err, n.Line)
		return nil
	}
	v, msg := normalize(p.Type, raw)
	if msg != "" {
		fe.Add(field, "%s (line %d)", msg, n.Line)
		return nil
	}
	if s, ok := v.(string); ok && p.Enum != nil && !slices.Contains(p.Enum, s) {
		fe.Add(field, "%q is not one of the enum values %s (line %d)", s, joinQuoted(p.Enum), n.Line)
		return nil
	}
	return v
}

func parseEnum(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of strings, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	if len(n.Content) == 0 {
		fe.Add(field, "must list at least one value (line %d)", n.Line)
		return nil
	}
	values := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = yamlfields.Deref(item)
		s, ok := yamlfields.String(item)
		if !ok {
			fe.Add(fmt.Sprintf("%s[%d]", field, i), "must be a string, got %s (line %d)", nodeKind(item), item.Line)
			continue
		}
		if slices.Contains(values, s) {
			fe.Add(fmt.Sprintf("%s[%d]", field, i), "duplicate value %q", s)
			continue
		}
		values = append(values, s)
	}
	return values
}

func parseString(n *yaml.Node, field string, fe *yamlfields.Errors) string {
	s, ok := yamlfields.String(n)
	if !ok {
		fe.Add(field, "must be a string, got %s (line %d)", nodeKind(n), n.Line)
	}
	return s
}

func parseBool(n *yaml.Node, field string, fe *yamlfields.Errors) bool {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	}
	fe.Add(field, "must be true or false, got %s (line %d)", nodeKind(n), n.Line)
	return false
}
