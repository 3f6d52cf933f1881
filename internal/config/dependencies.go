package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Dependency is one entry of schema.dependencies: an instance of this stack needs an instance
// of another stack to be Ready first, and takes some of its terraform outputs as parameters
// (Datum's network and subnet; Crossplane's Usage keeps the dependency from being destroyed).
type Dependency struct {
	// Name labels the dependency in errors, status and gates.
	Name string
	// Stack is the stack the dependency must be an instance of.
	Stack string
	// Instance is this stack's string parameter whose value names the dependency: NAME (same
	// tenant) or TENANT/NAME. A parameter, not a template: the target is known before any render.
	Instance string
	// Outputs maps a dependency's output name to the parameter of this stack it fills.
	Outputs map[string]string
	// OnChange is what a change of a consumed output starts on the dependent: plan or deploy.
	OnChange string
}

// What a changed consumed output starts on a dependent.
const (
	OnChangePlan   = "plan"
	OnChangeDeploy = "deploy"
)

var (
	dependencyNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	instanceRefRE    = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/)?[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
)

// parseDependencies reads schema.dependencies: [{name, stack, instance, outputs, onChange}].
func parseDependencies(n *yaml.Node, field string, fe *yamlfields.Errors) []Dependency {
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of {name, stack, instance, outputs, onChange}, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var deps []Dependency
	for i, item := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		item = yamlfields.Deref(item)
		if item.Kind != yaml.MappingNode {
			fe.Add(f, "must be a mapping with keys name, stack, instance, outputs, onChange, got %s (line %d)", nodeKind(item), item.Line)
			continue
		}
		d := Dependency{OnChange: OnChangePlan}
		for _, kv := range pairs(item, f+".", fe) {
			kf := f + "." + kv.Key
			switch kv.Key {
			case "name":
				d.Name = parseString(kv.Value, kf, fe)
			case "stack":
				d.Stack = parseString(kv.Value, kf, fe)
			case "instance":
				d.Instance = parseString(kv.Value, kf, fe)
			case "outputs":
				d.Outputs = parseConsumedOutputs(kv.Value, kf, fe)
			case "onChange":
				d.OnChange = parseString(kv.Value, kf, fe)
				if d.OnChange != OnChangePlan && d.OnChange != OnChangeDeploy {
					fe.Add(kf, "must be %s or %s, got %q (line %d)", OnChangePlan, OnChangeDeploy, d.OnChange, kv.Line)
				}
			default:
				fe.Add(kf, "unknown field (line %d); allowed: name, stack, instance, outputs, onChange", kv.Line)
			}
		}
		switch {
		case !dependencyNameRE.MatchString(d.Name):
			fe.Add(f+".name", "must be a lowercase label (a-z, 0-9, -), got %q", d.Name)
		case slices.ContainsFunc(deps, func(o Dependency) bool { return o.Name == d.Name }):
			fe.Add(f+".name", "dependency %q is declared twice", d.Name)
		}
		if d.Stack == "" {
			fe.Add(f+".stack", "is required: the stack the dependency is an instance of")
		}
		if d.Instance == "" {
			fe.Add(f+".instance", "is required: the string parameter naming the dependency (NAME or TENANT/NAME)")
		}
		deps = append(deps, d)
	}
	return deps
}

// parseConsumedOutputs reads outputs: {dependency output: parameter of this stack}.
func parseConsumedOutputs(n *yaml.Node, field string, fe *yamlfields.Errors) map[string]string {
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping of the dependency's output to this stack's parameter, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	out := map[string]string{}
	for _, kv := range pairs(n, field+".", fe) {
		f := field + "." + kv.Key
		if !outputNameRE.MatchString(kv.Key) {
			fe.Add(f, "must be a terraform output name matching %s (line %d)", outputNameRE, kv.Line)
			continue
		}
		out[kv.Key] = parseString(kv.Value, f, fe)
	}
	return out
}

// checkDependencies ties each dependency to the stack's own parameters: the one naming it and
// those its outputs fill must be declared strings, each filled by one output only.
func checkDependencies(s *Schema, fe *yamlfields.Errors) {
	stringParam := func(name string) bool {
		i := slices.IndexFunc(s.Parameters, func(p Param) bool { return p.Name == name })
		return i >= 0 && s.Parameters[i].Type == TypeString
	}
	filled := map[string]string{}
	for i, d := range s.Dependencies {
		f := fmt.Sprintf("schema.dependencies[%d]", i)
		if d.Instance != "" && !stringParam(d.Instance) {
			fe.Add(f+".instance", "%q is not a string parameter of this stack (schema.parameters)", d.Instance)
		}
		for _, out := range sortedKeys(d.Outputs) {
			param, of := d.Outputs[out], f+".outputs."+out
			switch {
			case !stringParam(param):
				fe.Add(of, "%q is not a string parameter of this stack (schema.parameters)", param)
			case param == d.Instance:
				fe.Add(of, "%q names the dependency: it cannot also take an output", param)
			case filled[param] != "":
				fe.Add(of, "parameter %q is already filled by %s", param, filled[param])
			default:
				filled[param] = of
			}
		}
	}
}

// Target is the TENANT/NAME of the instance d names in params, for an instance of tenant.
func (d Dependency) Target(tenant string, params map[string]any) (string, error) {
	v, _ := params[d.Instance].(string)
	if !instanceRefRE.MatchString(v) {
		return "", fmt.Errorf("parameter %s must name the %s dependency as NAME or TENANT/NAME, got %q", d.Instance, d.Name, v)
	}
	if !strings.Contains(v, "/") {
		v = tenant + "/" + v
	}
	return v, nil
}

// DependencyError is a dependency a render or validation cannot use, naming the field.
func DependencyError(stack string, i int, sub, format string, args ...any) error {
	field := fmt.Sprintf("schema.dependencies[%d]", i)
	if sub != "" {
		field += "." + sub
	}
	return &StackError{Stack: stack, Errors: []FieldError{{Field: field, Message: fmt.Sprintf(format, args...)}}}
}
