package config

import (
	"bytes"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// InstanceFile is the instance's config inside its directory in the GitOps repository.
const InstanceFile = "instance.yaml"

// Instance is an instance file: the stack and its parameters. Tenant and name are not in
// the file; they come from the Ref.
type Instance struct {
	Stack      string         `yaml:"stack" json:"stack"`
	Parameters map[string]any `yaml:"parameters" json:"parameters"`
	// SchedulingGates hold every provision and deploy until each is removed or cleared.
	SchedulingGates []gates.Spec `yaml:"schedulingGates,omitempty" json:"schedulingGates,omitempty"`
	// Approval overrides the stack's approval rule, field by field.
	Approval approval.Rule `yaml:"approval,omitempty" json:"approval,omitempty"`
	// ControlPlane is the worker pool that runs the instance's pipelines ("" is the default pool).
	ControlPlane string `yaml:"controlPlane,omitempty" json:"controlPlane,omitempty"`
	// Placement, when set, replaces the stack's: the clusters this instance's app goes to.
	Placement Placement `yaml:"placement,omitempty" json:"placement,omitempty"`
	// Archived is written by the archive's own MR (MarkArchived), so the repository alone says
	// which instances are archived; a deploy's render drops it. A config people deploy may not set it.
	Archived bool `yaml:"archived,omitempty" json:"archived,omitempty"`
	// Protected refuses destroy and deprovision until a platform admin unprotects the instance.
	Protected bool `yaml:"protected,omitempty" json:"protected,omitempty"`
	// Expires (a duration from when a provision or deploy of this config is accepted) or ExpiresAt
	// ends the instance then: its stack's expiry.action (expiry.go).
	Expires   time.Duration `yaml:"expires,omitempty" json:"expires,omitempty"`
	ExpiresAt time.Time     `yaml:"expiresAt,omitempty" json:"expiresAt,omitempty"`
	// Labels (tier: gold) select the instance for change windows (data.slipway.windows[].labels).
	Labels map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
}

// ParseInstance parses an instance file strictly: unknown or repeated keys are errors.
// Parameter values are kept as YAML gives them; Validate checks them against the stack.
// Errors are *ValidationError.
func ParseInstance(data []byte) (*Instance, error) {
	var fe yamlfields.Errors
	inst := &Instance{Parameters: map[string]any{}}
	root, err := yamlfields.ParseDoc(data)
	switch {
	case err != nil:
		fe.Add("yaml", "%v", err)
		return nil, validationError(fe)
	case root == nil:
		fe.Add("stack", "is required (the instance file is empty)")
		return nil, validationError(fe)
	case root.Kind != yaml.MappingNode:
		fe.Add("yaml", "the instance file must be a mapping with keys stack, parameters; got %s (line %d)", nodeKind(root), root.Line)
		return nil, validationError(fe)
	}
	hasStack := false
	for _, kv := range pairs(root, "", &fe) {
		switch kv.Key {
		case "stack":
			hasStack = true
			inst.Stack = parseStackName(kv.Value, &fe)
		case "parameters":
			parseParamValues(kv.Value, inst.Parameters, &fe)
		case "schedulingGates":
			inst.SchedulingGates = parseGates(kv.Value, &fe)
		case "approval":
			inst.Approval = parseApproval(kv.Value, "approval", &fe)
		case "controlPlane":
			inst.ControlPlane = parseControlPlane(kv.Value, &fe)
		case "placement":
			inst.Placement = parsePlacement(kv.Value, "placement", &fe)
		case "archived":
			inst.Archived = parseArchived(kv.Value, &fe)
		case "protected":
			inst.Protected = parseBool(kv.Value, "protected", &fe)
		case "expires":
			inst.Expires = parseExpiresAfter(kv.Value, &fe)
		case "expiresAt":
			inst.ExpiresAt = parseExpiresAt(kv.Value, &fe)
		case "labels":
			inst.Labels = parseLabels(kv.Value, &fe)
		default:
			fe.Add(kv.Key, "unknown field (line %d); allowed: stack, parameters, schedulingGates, approval, controlPlane, placement, archived, protected, expires, expiresAt, labels", kv.Line)
		}
	}
	if !hasStack {
		fe.Add("stack", "is required")
	}
	if err := validationError(fe); err != nil {
		return nil, err
	}
	return inst, nil
}

// parseGates reads schedulingGates: a list of gate names, or of {name, timeout}.
func parseGates(n *yaml.Node, fe *yamlfields.Errors) []gates.Spec {
	if n.Kind != yaml.SequenceNode {
		fe.Add("schedulingGates", "must be a list of gate names, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var out []gates.Spec
	seen := map[string]bool{}
	for i, item := range n.Content {
		field := fmt.Sprintf("schedulingGates[%d]", i)
		spec, ok := parseGate(item, field, fe)
		switch {
		case !ok:
		case seen[spec.Name]:
			fe.Add(field, "gate %q is listed twice (line %d)", spec.Name, item.Line)
		default:
			seen[spec.Name] = true
			out = append(out, spec)
		}
	}
	return out
}

func parseGate(n *yaml.Node, field string, fe *yamlfields.Errors) (gates.Spec, bool) {
	var spec gates.Spec
	if name, ok := yamlfields.String(n); ok {
		spec.Name = name
	} else if n.Kind == yaml.MappingNode {
		for _, kv := range pairs(n, field+".", fe) {
			switch kv.Key {
			case "name":
				spec.Name, _ = yamlfields.String(kv.Value)
			case "timeout":
				s, _ := yamlfields.String(kv.Value)
				d, err := time.ParseDuration(s)
				if err != nil || d <= 0 {
					fe.Add(field+".timeout", "%q is not a positive duration such as 10m (line %d)", s, kv.Line)
					return spec, false
				}
				spec.Timeout = d
			default:
				fe.Add(field+"."+kv.Key, "unknown field (line %d); allowed: name, timeout", kv.Line)
				return spec, false
			}
		}
	} else {
		fe.Add(field, "must be a gate name or {name, timeout}, got %s (line %d)", nodeKind(n), n.Line)
		return spec, false
	}
	if err := gates.Check(spec.Name); err != nil {
		fe.Add(field, "%v (line %d)", err, n.Line)
		return spec, false
	}
	return spec, true
}

// parseControlPlane reads controlPlane: a worker pool's name, a DNS-1123 label like a stack's.
func parseControlPlane(n *yaml.Node, fe *yamlfields.Errors) string {
	s, ok := yamlfields.String(n)
	if !ok || !names.IsLabel(s) {
		fe.Add("controlPlane", "must be a worker pool's name (%s), got %q (line %d)", names.LabelRule, s, n.Line)
		return ""
	}
	return s
}

func parseStackName(n *yaml.Node, fe *yamlfields.Errors) string {
	s, ok := yamlfields.String(n)
	if !ok {
		fe.Add("stack", "must be a string, got %s (line %d)", nodeKind(n), n.Line)
		return s
	}
	if _, _, err := ParseStackRef(s); err != nil {
		fe.Add("stack", "%s (line %d)", err.(*ValidationError).Errors[0].Message, n.Line)
	}
	return s
}

func parseParamValues(n *yaml.Node, into map[string]any, fe *yamlfields.Errors) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		fe.Add("parameters", "must be a mapping of name: value, got %s (line %d)", nodeKind(n), n.Line)
		return
	}
	for _, kv := range pairs(n, "parameters.", fe) {
		v, err := nodeValue(kv.Value)
		if err != nil {
			fe.Add("parameters."+kv.Key, "%v (line %d)", err, kv.Line)
			continue
		}
		into[kv.Key] = v
	}
}

// Canonical encodes the instance deterministically: stack first, then parameters sorted by
// name, two-space indent. Equal instances give equal bytes.
func (i *Instance) Canonical() []byte {
	params := &yaml.Node{Kind: yaml.MappingNode}
	if len(i.Parameters) == 0 {
		params.Style = yaml.FlowStyle
	}
	for _, name := range sortedKeys(i.Parameters) {
		params.Content = append(params.Content, scalar(name), valueNode(i.Parameters[name]))
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		scalar("stack"), scalar(i.Stack),
		scalar("parameters"), params,
	}}
	if len(i.SchedulingGates) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, g := range i.SchedulingGates {
			item := scalar(g.Name)
			if g.Timeout > 0 {
				item = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
					scalar("name"), scalar(g.Name), scalar("timeout"), scalar(g.Timeout.String())}}
			}
			list.Content = append(list.Content, item)
		}
		root.Content = append(root.Content, scalar("schedulingGates"), list)
	}
	if a := approvalNode(i.Approval); len(a.Content) > 0 {
		root.Content = append(root.Content, scalar("approval"), a)
	}
	if i.ControlPlane != "" {
		root.Content = append(root.Content, scalar("controlPlane"), scalar(i.ControlPlane))
	}
	if !i.Placement.IsZero() {
		root.Content = append(root.Content, scalar("placement"), placementNode(i.Placement))
	}
	if i.Protected {
		root.Content = append(root.Content, scalar("protected"), archivedTrue())
	}
	if i.Expires > 0 {
		root.Content = append(root.Content, scalar("expires"), scalar(i.Expires.String()))
	}
	if !i.ExpiresAt.IsZero() {
		root.Content = append(root.Content, scalar("expiresAt"), scalar(i.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	if len(i.Labels) > 0 {
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range sortedKeys(i.Labels) {
			m.Content = append(m.Content, scalar(k), scalar(i.Labels[k]))
		}
		root.Content = append(root.Content, scalar("labels"), m)
	}
	if i.Archived {
		root.Content = append(root.Content, scalar(archivedKey), archivedTrue())
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		// Unreachable for nodes built from strings; keep the bytes deterministic anyway.
		return []byte(fmt.Sprintf("# canonical encoding failed: %v\n", err))
	}
	_ = enc.Close()
	return buf.Bytes()
}

func scalar(s string) *yaml.Node {
	n := &yaml.Node{}
	_ = n.Encode(s) // encoding a string cannot fail; Encode picks quoting for "yes", "1", ...
	return n
}

// valueNode encodes a parameter value; values YAML cannot encode fall back to their text.
func valueNode(v any) *yaml.Node {
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return scalar(fmt.Sprint(v))
	}
	return n
}
