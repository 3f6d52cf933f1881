package notify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// The strict-YAML helpers below follow internal/config's: one document, aliases followed,
// repeated keys reported by field path.

// parseDoc parses exactly one YAML document and returns its root node, nil for an empty file.
func parseDoc(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("only one YAML document is allowed (a second one starts near line %d)", extra.Line)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil, nil
	}
	return root, nil
}

// deref follows aliases (*anchor) to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

type pair struct {
	key   string
	line  int
	value *yaml.Node
}

// pairs lists a mapping's entries in document order; a repeated or non-string key is reported
// under prefix+key and left out.
func pairs(m *yaml.Node, prefix string, fe *fieldErrors) []pair {
	seen := map[string]int{}
	var out []pair
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			field := strings.TrimSuffix(prefix, ".")
			if field == "" {
				field = "yaml"
			}
			fe.add(field, "keys must be strings, got %s (line %d)", nodeKind(k), k.Line)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			fe.add(prefix+k.Value, "is set twice (lines %d and %d)", first, k.Line)
			continue
		}
		seen[k.Value] = k.Line
		out = append(out, pair{key: k.Value, line: k.Line, value: v})
	}
	return out
}

// stringNode returns the text of a string scalar; ok is false for anything else.
func stringNode(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", false
	}
	return n.Value, true
}

// nodeKind describes a node for error messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
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
	return "an unknown node"
}
