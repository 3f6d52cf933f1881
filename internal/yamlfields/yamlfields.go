// Package yamlfields holds what the strict YAML readers of internal/config (instance files,
// stack schemas) and internal/notify (notify configs) share: one document per file, aliases
// followed, mapping entries read in document order with repeated and non-string keys
// reported, and every problem collected by field path ("sinks[1].kind") instead of stopping
// at the first. Each package keeps its own public error types and its own wording for
// values; they convert from Errors.
package yamlfields

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// FieldError names one bad field, e.g. "parameters.replicas" or "sinks[1].kind".
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e FieldError) String() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Errors collects FieldErrors in the order they are found.
type Errors []FieldError

// Add records a message about field, formatted as by fmt.Sprintf.
func (errs *Errors) Add(field, format string, args ...any) {
	*errs = append(*errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// ParseDoc parses exactly one YAML document and returns its root node, nil for an empty
// file or a document that is just null. Messages drop yaml.v3's "yaml: " prefix.
func ParseDoc(data []byte) (*yaml.Node, error) {
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
	root := Deref(doc.Content[0])
	if IsNull(root) {
		return nil, nil
	}
	return root, nil
}

// Deref follows aliases (*anchor) to the node they name.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is a null scalar (null, ~ or nothing at all).
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// String returns the text of a string scalar; ok is false for anything else.
func String(n *yaml.Node) (s string, ok bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", false
	}
	return n.Value, true
}

// Kind names a node's kind for messages: "a mapping", "a list", or what scalar says about a
// scalar; each format has its own words for scalars.
func Kind(n *yaml.Node, scalar func(*yaml.Node) string) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return scalar(n)
	}
	return "an unknown node"
}

// Pair is one entry of a mapping; Value has its aliases followed.
type Pair struct {
	Key   string
	Line  int // the key's line
	Value *yaml.Node
}

// Keys is how a format reads mapping keys.
type Keys struct {
	// Describe names a node's kind in the message about a key that is not a string,
	// e.g. "a list" (see Kind).
	Describe func(*yaml.Node) string
	// Merge accepts the merge key "<<" as an ordinary string key.
	Merge bool
}

// Pairs lists a mapping's entries in document order. A repeated key is reported under
// prefix+key, a key that is not a string under prefix without its trailing dot ("yaml" at
// the top level, as for syntax errors); both are left out.
func (k Keys) Pairs(m *yaml.Node, prefix string, errs *Errors) []Pair {
	seen := map[string]int{}
	var out []Pair
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := Deref(m.Content[i]), Deref(m.Content[i+1])
		if !k.stringKey(key) {
			field := strings.TrimSuffix(prefix, ".")
			if field == "" {
				field = "yaml"
			}
			errs.Add(field, "keys must be strings, got %s (line %d)", k.Describe(key), key.Line)
			continue
		}
		if first, dup := seen[key.Value]; dup {
			errs.Add(prefix+key.Value, "is set twice (lines %d and %d)", first, key.Line)
			continue
		}
		seen[key.Value] = key.Line
		out = append(out, Pair{Key: key.Value, Line: key.Line, Value: v})
	}
	return out
}

func (k Keys) stringKey(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	tag := n.ShortTag()
	return tag == "!!str" || (k.Merge && tag == "!!merge")
}
