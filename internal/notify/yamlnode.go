package notify

import (
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// pairs lists a mapping's entries (see yamlfields.Keys.Pairs); only string keys are allowed.
func pairs(m *yaml.Node, prefix string, fe *yamlfields.Errors) []yamlfields.Pair {
	return yamlfields.Keys{Describe: nodeKind}.Pairs(m, prefix, fe)
}

// nodeKind describes a node for error messages.
func nodeKind(n *yaml.Node) string { return yamlfields.Kind(n, scalarKind) }

func scalarKind(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	}
	return "a scalar"
}
