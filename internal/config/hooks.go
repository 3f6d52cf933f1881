package config

import (
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Hook finds a lifecycle hook by name (hooks.Drain, hooks.PostDeploy).
func (s *Schema) Hook(name string) (hooks.Spec, bool) {
	for _, h := range s.Hooks {
		if h.Name == name {
			return h, true
		}
	}
	return hooks.Spec{}, false
}

// parseHooks reads schema.hooks, a mapping of hook name to hook; only sound hooks are kept.
func parseHooks(n *yaml.Node, fe *yamlfields.Errors) []hooks.Spec {
	if yamlfields.IsNull(n) {
		return nil
	}
	allowed := strings.Join(hooks.Names, ", ")
	if n.Kind != yaml.MappingNode {
		fe.Add("schema.hooks", "must be a mapping of hook name (%s) to hook, got %s (line %d)", allowed, nodeKind(n), n.Line)
		return nil
	}
	var specs []hooks.Spec
	for _, kv := range pairs(n, "schema.hooks.", fe) {
		prefix := "schema.hooks." + kv.Key
		if !slices.Contains(hooks.Names, kv.Key) {
			fe.Add(prefix, "unknown hook; allowed: %s", allowed)
			continue
		}
		if s, ok := parseHook(kv.Key, kv.Value, prefix, fe); ok {
			specs = append(specs, s)
		}
	}
	return specs
}

// parseHook reads one hook; ok is false when it has errors of its own.
func parseHook(name string, n *yaml.Node, prefix string, fe *yamlfields.Errors) (hooks.Spec, bool) {
	before := len(*fe)
	if n.Kind != yaml.MappingNode {
		fe.Add(prefix, "must be a mapping with keys exec or http, and deadline, got %s (line %d)", nodeKind(n), n.Line)
		return hooks.Spec{}, false
	}
	s := hooks.Spec{Name: name}
	reported := map[string]bool{} // fields already wrong here, so hooks' own checks skip them
	lines := map[string]int{}     // where each field is, for hooks' own checks
	var hasExec, hasHTTP, hasDeadline bool
	for _, kv := range pairs(n, prefix+".", fe) {
		field := prefix + "." + kv.Key
		lines[kv.Key] = kv.Value.Line
		at := len(*fe)
		switch kv.Key {
		case hooks.KindExec:
			hasExec = true
			s.Exec = parseString(kv.Value, field, fe)
		case hooks.KindHTTP:
			hasHTTP = true
			s.URL = parseString(kv.Value, field, fe)
		case "deadline":
			hasDeadline = true
			s.Deadline = parseDeadline(kv.Value, field, fe)
		default:
			fe.Add(field, "unknown field (line %d); allowed: exec, http, deadline", kv.Line)
		}
		reported[kv.Key] = len(*fe) > at
	}
	switch {
	case hasExec && hasHTTP:
		fe.Add(prefix, "sets both exec and http; a hook is exactly one of them")
		reported[hooks.KindExec], reported[hooks.KindHTTP], reported["kind"] = true, true, true
	case !hasExec && !hasHTTP:
		fe.Add(prefix, "must set exactly one of exec (a script under %s/) or http (a URL to POST to)", hooks.ScriptDir)
		reported[hooks.KindExec], reported[hooks.KindHTTP], reported["kind"] = true, true, true
	case hasExec:
		s.Kind = hooks.KindExec
	default:
		s.Kind = hooks.KindHTTP
	}
	if !hasDeadline {
		fe.Add(prefix+".deadline", "is required: a hook without a deadline could hold the operation forever")
		reported["deadline"] = true
	}
	for _, p := range s.Problems() {
		switch {
		case reported[p.Field]:
		case lines[p.Field] > 0:
			fe.Add(prefix+"."+p.Field, "%s (%s line %d)", p.Reason, SchemaFile, lines[p.Field])
		default:
			fe.Add(prefix+"."+p.Field, "%s", p.Reason)
		}
	}
	return s, len(*fe) == before
}

// parseDeadline reads a Go duration such as 90s, 5m or 1h30m; hooks checks its range.
func parseDeadline(n *yaml.Node, field string, fe *yamlfields.Errors) time.Duration {
	s, ok := yamlfields.String(n)
	if !ok {
		fe.Add(field, "must be a duration like 90s, 5m or 1h30m, got %s (line %d)", nodeKind(n), n.Line)
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		fe.Add(field, "%q is not a duration like 90s, 5m or 1h30m (line %d)", s, n.Line)
		return 0
	}
	return d
}

// checkHookScripts reports exec hooks whose script the stack lacks; a .tmpl of it counts,
// as it renders to that path.
func checkHookScripts(name string, s *Schema, files map[string][]byte, fe *yamlfields.Errors) {
	if s == nil {
		return
	}
	for _, h := range s.Hooks {
		if h.Kind != hooks.KindExec {
			continue
		}
		_, plain := files[h.Exec]
		_, tmpl := files[h.Exec+TemplateSuffix]
		if !plain && !tmpl {
			fe.Add("schema.hooks."+h.Name+".exec", "%s is not in %s/", h.Exec, StackDir(name))
		}
	}
}
