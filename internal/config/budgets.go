package config

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// DefaultBudget is each terraform step's budget when the stack names none: the one-hour
// start-to-close timeout terraform steps always had.
const DefaultBudget = time.Hour

// Bounds of a budget: under a second no terraform command even starts; over a day is a stuck run.
const (
	MinBudget = time.Second
	MaxBudget = 24 * time.Hour
)

// Timeouts are the stack's budgets for its terraform steps (schema.timeouts); zero is the default.
type Timeouts struct {
	Plan    time.Duration // init and plan
	Apply   time.Duration
	Destroy time.Duration
}

// IsZero reports whether the stack names no budget at all.
func (t Timeouts) IsZero() bool { return t == Timeouts{} }

// parseTimeouts reads schema.timeouts: {plan, apply, destroy} Go durations.
func parseTimeouts(n *yaml.Node, fe *yamlfields.Errors) Timeouts {
	var t Timeouts
	if yamlfields.IsNull(n) {
		return t
	}
	if n.Kind != yaml.MappingNode {
		fe.Add("schema.timeouts", "must be a mapping with keys plan, apply, destroy (Go durations such as 30m or 2h), got %s (line %d)", nodeKind(n), n.Line)
		return t
	}
	for _, kv := range pairs(n, "schema.timeouts.", fe) {
		field := "schema.timeouts." + kv.Key
		var into *time.Duration
		switch kv.Key {
		case "plan":
			into = &t.Plan
		case "apply":
			into = &t.Apply
		case "destroy":
			into = &t.Destroy
		default:
			fe.Add(field, "unknown field (line %d); allowed: plan, apply, destroy", kv.Line)
			continue
		}
		*into = parseBudget(kv.Value, field, fe)
	}
	return t
}

func parseBudget(n *yaml.Node, field string, fe *yamlfields.Errors) time.Duration {
	s, ok := yamlfields.String(n)
	if !ok {
		fe.Add(field, "must be a Go duration such as 30m or 2h, got %s (line %d)", nodeKind(n), n.Line)
		return 0
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		fe.Add(field, "%q is not a Go duration such as 30m or 2h (line %d)", s, n.Line)
		return 0
	case d < MinBudget || d > MaxBudget:
		fe.Add(field, "must be between %s and %s, got %s (line %d)", MinBudget, MaxBudget, d, n.Line)
		return 0
	}
	return d
}

// parseCredentials reads schema.credentials, the names of the credentials the stack's terraform
// and hooks need; the operator maps each to a source (SLIPWAY_CREDENTIALS_FILE).
func parseCredentials(n *yaml.Node, fe *yamlfields.Errors) []string {
	if yamlfields.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		fe.Add("schema.credentials", "must be a list of credential names, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var names []string
	seen := map[string]int{}
	for i, item := range n.Content {
		field := fmt.Sprintf("schema.credentials[%d]", i)
		name, ok := yamlfields.String(yamlfields.Deref(item))
		switch {
		case !ok || !paramNameRE.MatchString(name):
			fe.Add(field, "must be a name matching %s (line %d)", paramNameRE, item.Line)
		default:
			if j, dup := seen[name]; dup {
				fe.Add(field, "duplicate credential %q (first at schema.credentials[%d])", name, j)
				continue
			}
			seen[name] = i
			names = append(names, name)
		}
	}
	return names
}
