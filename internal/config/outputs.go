package config

import (
	"fmt"
	"regexp"
	"slices"

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
