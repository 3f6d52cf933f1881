package config

import (
	"bytes"
	"errors"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// archivedKey is the instance file's field that says the instance is archived.
const archivedKey = "archived"

func archivedTrue() *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}
}

func parseArchived(n *yaml.Node, fe *yamlfields.Errors) bool { return parseBool(n, archivedKey, fe) }

// MarkArchived is the instance file data with archived: true (Grove's archive is an update with
// an automated config change): every other field, and the file's comments, stay as committed.
func MarkArchived(data []byte) ([]byte, error) {
	if _, err := ParseInstance(data); err != nil {
		return nil, err
	}
	root, _ := yamlfields.ParseDoc(data) // parsed above: a mapping
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, errors.New("the instance file is not a mapping")
	}
	set := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == archivedKey {
			root.Content[i+1], set = archivedTrue(), true
		}
	}
	if !set {
		root.Content = append(root.Content, scalar(archivedKey), archivedTrue())
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// RefuseArchived refuses a config people deploy that sets archived: only the archive writes it.
func RefuseArchived(inst *Instance) error {
	if !inst.Archived {
		return nil
	}
	var fe yamlfields.Errors
	fe.Add(archivedKey, "is written by slipway's archive, not by a config you deploy: remove it (a deploy brings an archived instance back and clears it)")
	return validationError(fe)
}
