package config

import (
	"fmt"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Expiry is a stack's expiry: (schema.yaml): how long its instances may live, whether they must
// say, what happens at the end, and how long before it people are warned.
type Expiry struct {
	Max      time.Duration   // the longest an expiry may reach from when it is set or extended; 0: no maximum
	Required bool            // every instance of the stack must set expires or expiresAt
	Action   string          // archive (the default) or destroy
	Warn     []time.Duration // before the end, longest first
}

// Expiry actions.
const (
	ExpireArchive = "archive"
	ExpireDestroy = "destroy"
)

// ExpirySpec is an instance's expiry as its config sets it, checked against its stack.
type ExpirySpec struct {
	At     time.Time
	Action string
	Warn   []time.Duration
	Max    time.Duration
}

func parseExpiresAfter(n *yaml.Node, fe *yamlfields.Errors) time.Duration {
	s, _ := yamlfields.String(n)
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		fe.Add("expires", "%q is not a positive Go duration such as 72h (line %d)", s, n.Line)
		return 0
	}
	return d
}

func parseExpiresAt(n *yaml.Node, fe *yamlfields.Errors) time.Time {
	s := n.Value // YAML reads an unquoted RFC 3339 time as a !!timestamp: its text is what counts
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || n.Kind != yaml.ScalarNode {
		fe.Add("expiresAt", "%q is not an RFC 3339 time such as 2027-01-15T18:00:00Z (line %d)", s, n.Line)
	}
	return t
}

// parseExpiry reads schema.expiry: {max, required, action, warn}.
func parseExpiry(n *yaml.Node, field string, fe *yamlfields.Errors) *Expiry {
	x := &Expiry{Action: ExpireArchive}
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping {max, required, action, warn}, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	dur := func(n *yaml.Node, f string) time.Duration {
		s, _ := yamlfields.String(n)
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			fe.Add(f, "%q is not a positive Go duration such as 168h (line %d)", s, n.Line)
		}
		return d
	}
	for _, kv := range pairs(n, field+".", fe) {
		f := field + "." + kv.Key
		switch kv.Key {
		case "max":
			x.Max = dur(kv.Value, f)
		case "required":
			x.Required = parseBool(kv.Value, f, fe)
		case "action":
			x.Action, _ = yamlfields.String(kv.Value)
			if x.Action != ExpireArchive && x.Action != ExpireDestroy {
				fe.Add(f, "%q is not archive or destroy (line %d)", x.Action, kv.Line)
			}
		case "warn":
			if kv.Value.Kind != yaml.SequenceNode {
				fe.Add(f, "must be a list of durations before the end, such as [24h, 1h] (line %d)", kv.Line)
				continue
			}
			for i, item := range kv.Value.Content {
				x.Warn = append(x.Warn, dur(item, fmt.Sprintf("%s[%d]", f, i)))
			}
			slices.SortFunc(x.Warn, func(a, b time.Duration) int { return int(b - a) })
		default:
			fe.Add(f, "unknown field (line %d); allowed: max, required, action, warn", kv.Line)
		}
	}
	if x.Required && x.Max == 0 {
		fe.Add(field+".max", "is required with required: true")
	}
	return x
}

// ExpiryOf checks inst's expires or expiresAt against its stack at now: within the stack's
// maximum, present when the stack requires it, never on a protected instance. nil: it does not expire.
func ExpiryOf(stack *Stack, inst *Instance, now time.Time) (*ExpirySpec, error) {
	var x *Expiry
	if stack != nil && stack.Schema != nil {
		x = stack.Schema.Expiry
	}
	if x == nil {
		x = &Expiry{Action: ExpireArchive}
	}
	var fe yamlfields.Errors
	field, at := "expires", time.Time{}
	switch {
	case inst.Expires > 0 && !inst.ExpiresAt.IsZero():
		fe.Add("expires", "set expires or expiresAt, not both")
	case inst.Expires > 0:
		at = now.Add(inst.Expires)
	case !inst.ExpiresAt.IsZero():
		field, at = "expiresAt", inst.ExpiresAt
		if !at.After(now) {
			fe.Add(field, "%s is not in the future", at.UTC().Format(time.RFC3339))
		}
	case x.Required:
		fe.Add("expires", "the stack requires an expiry (schema.expiry.required): at most %s", x.Max)
	}
	if !at.IsZero() && x.Max > 0 && at.Sub(now) > x.Max {
		fe.Add(field, "%s from now is over the stack's maximum %s (schema.expiry.max)", at.Sub(now).Round(time.Second), x.Max)
	}
	if !at.IsZero() && ProtectedBy(stack, inst) != "" {
		fe.Add(field, "a protected instance cannot expire (protected: true in the %s); remove one of them", map[string]string{
			"file": "instance file", "stack": "stack's schema"}[ProtectedBy(stack, inst)])
	}
	if err := validationError(fe); err != nil {
		return nil, err
	}
	if at.IsZero() {
		return nil, nil
	}
	return &ExpirySpec{At: at.UTC(), Action: x.Action, Warn: x.Warn, Max: x.Max}, nil
}
