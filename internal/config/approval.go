package config

import (
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// parseApproval reads `approval:` in a schema or an instance file: a policy name, or
// {policy, approvers, timeout}.
func parseApproval(n *yaml.Node, field string, fe *yamlfields.Errors) approval.Rule {
	var r approval.Rule
	if s, ok := yamlfields.String(n); ok {
		r.Policy = parsePolicy(s, field, n.Line, fe)
		return r
	}
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be never, destructive, always or {policy, approvers, timeout}, got %s (line %d)", nodeKind(n), n.Line)
		return r
	}
	for _, kv := range pairs(n, field+".", fe) {
		sub := field + "." + kv.Key
		switch kv.Key {
		case "policy":
			s, _ := yamlfields.String(kv.Value)
			r.Policy = parsePolicy(s, sub, kv.Line, fe)
		case "approvers":
			r.Approvers = parseApprovers(kv.Value, sub, fe)
		case "timeout":
			s, _ := yamlfields.String(kv.Value)
			d, err := time.ParseDuration(s)
			switch {
			case err != nil || d <= 0:
				fe.Add(sub, "%q is not a positive duration such as 24h (line %d)", s, kv.Line)
			case approval.CheckTimeout(d) != nil:
				fe.Add(sub, "%v (line %d)", approval.CheckTimeout(d), kv.Line)
			default:
				r.Timeout = d
			}
		default:
			fe.Add(sub, "unknown field (line %d); allowed: policy, approvers, timeout", kv.Line)
		}
	}
	return r
}

func parsePolicy(s, field string, line int, fe *yamlfields.Errors) approval.Policy {
	p, err := approval.ParsePolicy(s)
	if err != nil {
		fe.Add(field, "%v (line %d)", err, line)
	}
	return p
}

func parseApprovers(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of names, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	out := []string{}
	for _, item := range n.Content {
		s, ok := yamlfields.String(item)
		if !ok || s == "" {
			fe.Add(field, "must be a list of non-empty names (line %d)", item.Line)
			continue
		}
		out = append(out, s)
	}
	return out
}

// approvalNode encodes a rule for the canonical instance file.
func approvalNode(r approval.Rule) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	if r.Policy != "" {
		m.Content = append(m.Content, scalar("policy"), scalar(string(r.Policy)))
	}
	if r.Approvers != nil {
		list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range r.Approvers {
			list.Content = append(list.Content, scalar(a))
		}
		m.Content = append(m.Content, scalar("approvers"), list)
	}
	if r.Timeout > 0 {
		m.Content = append(m.Content, scalar("timeout"), scalar(r.Timeout.String()))
	}
	return m
}

// parseControlPlanes reads a schema's controlPlanes: the worker pools its instances may name.
func parseControlPlanes(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of worker pool names, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var out []string
	for _, item := range n.Content {
		s, ok := yamlfields.String(item)
		if !ok || !names.IsLabel(s) {
			fe.Add(field, "must be a list of worker pool names (%s), got %q (line %d)", names.LabelRule, s, item.Line)
			continue
		}
		out = append(out, s)
	}
	return out
}

// checkPolicy refuses an instance file that would loosen what the platform decided in the stack:
// a weaker approval rule (see approval.Rule.Weakens) or a worker pool the stack does not allow.
func checkPolicy(s *Schema, inst *Instance, fe *yamlfields.Errors) {
	for _, w := range s.Approval.Weakens(inst.Approval) {
		fe.Add(w.Field, "%s", w.Message)
	}
	if inst.ControlPlane != "" && !slices.Contains(s.ControlPlanes, inst.ControlPlane) {
		allowed := "none: its instances run on the default pool"
		if len(s.ControlPlanes) > 0 {
			allowed = strings.Join(s.ControlPlanes, ", ")
		}
		fe.Add("controlPlane", "%q is not a worker pool the stack allows (schema.controlPlanes: %s)", inst.ControlPlane, allowed)
	}
}
