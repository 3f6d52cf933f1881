package config

import (
	"errors"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// pairs lists a mapping's entries (see yamlfields.Keys.Pairs). A merge key "<<" is read as an
// ordinary key, so it is reported as an unknown field rather than as a non-string key.
func pairs(m *yaml.Node, prefix string, fe *yamlfields.Errors) []yamlfields.Pair {
	return yamlfields.Keys{Describe: nodeKind, Merge: true}.Pairs(m, prefix, fe)
}

// nodeValue decodes a node into plain Go values (string, int, float64, bool, nil, []any, map[string]any).
func nodeValue(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return v, nil
}

// nodeKind describes a node for error messages, in the words used for parameter values.
func nodeKind(n *yaml.Node) string {
	return yamlfields.Kind(n, func(n *yaml.Node) string {
		v, err := nodeValue(n)
		if err != nil {
			return "a scalar"
		}
		return describe(v)
	})
}
