package config

import (
	"strings"

	"github.com/hashicorp/go-version"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// The engines a stack may name in engine:.
const (
	EngineTerraform = "terraform"
	EngineOpenTofu  = "opentofu"
)

// EngineFile records the stack's engine in a rendered instance directory, so the merged
// revision says which binary applies it; absent when the stack names none (terraform, any version).
const EngineFile = "engine"

// Engine is a stack's engine: terraform or opentofu, and a version constraint ("" = any).
type Engine struct {
	Name, Version string
}

// IsZero is the default engine: terraform, whichever version the worker has.
func (e Engine) IsZero() bool { return e == Engine{} }

// WithDefault is e with the default engine's name filled in.
func (e Engine) WithDefault() Engine {
	if e.Name == "" {
		e.Name = EngineTerraform
	}
	return e
}

// String is the one line EngineFile holds: "opentofu ~> 1.10", or "terraform".
func (e Engine) String() string {
	e = e.WithDefault()
	if e.Version == "" {
		return e.Name
	}
	return e.Name + " " + e.Version
}

// ParseEngineFile reads EngineFile's content; errors name the file.
func ParseEngineFile(data []byte) (Engine, error) {
	name, constraint, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	e := Engine{Name: name, Version: strings.TrimSpace(constraint)}
	var fe yamlfields.Errors
	checkEngine(e, EngineFile, EngineFile, &fe)
	if err := validationError(fe); err != nil {
		return Engine{}, err
	}
	return e, nil
}

// parseEngineName reads schema.engine.
func parseEngineName(n *yaml.Node, field string, fe *yamlfields.Errors) string {
	name := parseString(n, field, fe)
	if name != "" && name != EngineTerraform && name != EngineOpenTofu {
		fe.Add(field, "unknown engine %q (line %d); allowed: %s, %s", name, n.Line, EngineTerraform, EngineOpenTofu)
		return ""
	}
	return name
}

// parseEngineVersion reads schema.engineVersion, a hashicorp/go-version constraint.
func parseEngineVersion(n *yaml.Node, field string, fe *yamlfields.Errors) string {
	s := strings.TrimSpace(parseString(n, field, fe))
	if s == "" {
		return ""
	}
	if _, err := version.NewConstraint(s); err != nil {
		fe.Add(field, "%q is not a version constraint such as \"~> 1.10\" or \">= 1.11, < 2\" (line %d)", s, n.Line)
		return ""
	}
	return s
}

// checkEngine refuses an engine name or constraint that is not one a stack may hold.
func checkEngine(e Engine, nameField, versionField string, fe *yamlfields.Errors) {
	if e.Name != EngineTerraform && e.Name != EngineOpenTofu {
		fe.Add(nameField, "unknown engine %q; allowed: %s, %s", e.Name, EngineTerraform, EngineOpenTofu)
	}
	if e.Version != "" {
		if _, err := version.NewConstraint(e.Version); err != nil {
			fe.Add(versionField, "%q is not a version constraint", e.Version)
		}
	}
}
