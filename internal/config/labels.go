package config

import (
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/labels"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// parseLabels reads labels: a mapping of Kubernetes-style label keys to values (tier: gold), which
// change windows select instances by.
func parseLabels(n *yaml.Node, fe *yamlfields.Errors) map[string]string {
	if n.Kind != yaml.MappingNode {
		fe.Add("labels", "must be a mapping of key: value, such as {tier: gold}, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	out := map[string]string{}
	for _, kv := range pairs(n, "labels.", fe) {
		field := "labels." + kv.Key
		if err := labels.CheckKey(kv.Key); err != nil {
			fe.Add(field, "%v (line %d)", err, kv.Line)
			continue
		}
		if kv.Value.Kind != yaml.ScalarNode || kv.Value.ShortTag() == "!!null" {
			fe.Add(field, "must be a string, got %s (line %d)", nodeKind(kv.Value), kv.Line)
			continue
		}
		if err := labels.CheckValue(kv.Value.Value); err != nil {
			fe.Add(field, "%v (line %d)", err, kv.Line)
			continue
		}
		out[kv.Key] = kv.Value.Value
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
