package config

import (
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Capacity names the platform's capacity budgets (SLIPWAY_CAPACITY_FILE) its terraform steps draw
// on (schema.capacity); "" draws on none. The worker checks the names exist (activities' validate).
type Capacity struct {
	Apply   string
	Destroy string
}

// parseCapacity reads schema.capacity: {apply: BUDGET, destroy: BUDGET}.
func parseCapacity(n *yaml.Node, fe *yamlfields.Errors) Capacity {
	var c Capacity
	if yamlfields.IsNull(n) {
		return c
	}
	if n.Kind != yaml.MappingNode {
		fe.Add("schema.capacity", "must be a mapping with keys apply, destroy (budget names), got %s (line %d)", nodeKind(n), n.Line)
		return c
	}
	for _, kv := range pairs(n, "schema.capacity.", fe) {
		field := "schema.capacity." + kv.Key
		var into *string
		switch kv.Key {
		case "apply":
			into = &c.Apply
		case "destroy":
			into = &c.Destroy
		default:
			fe.Add(field, "unknown field (line %d); allowed: apply, destroy", kv.Line)
			continue
		}
		s, ok := yamlfields.String(kv.Value)
		if !ok || s == "" {
			fe.Add(field, "must be the name of a capacity budget, got %s (line %d)", nodeKind(kv.Value), kv.Value.Line)
			continue
		}
		*into = s
	}
	return c
}
