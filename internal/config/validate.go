package config

import (
	"errors"
	"slices"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Validate checks inst against stack and returns the resolved parameters: every schema
// parameter, defaults applied, normalised (string, bool, int -> int64, number -> float64)
// so they survive JSON. previous is the config in force at the last deploy (nil if the
// instance was never deployed); an `initial` parameter that resolves differently from it,
// or a different stack, is rejected, and so is an approval rule or a controlPlane that would
// loosen the stack's policy. Errors are *ValidationError.
func Validate(stack *Stack, inst *Instance, previous *Instance) (map[string]any, error) {
	if stack == nil || stack.Schema == nil {
		return nil, errors.New("config: Validate needs a loaded stack")
	}
	if inst == nil {
		inst = &Instance{}
	}
	var fe yamlfields.Errors
	if inst.StackName() != stack.Name {
		fe.Add("stack", "is %q, but the stack given is %q", inst.Stack, stack.Name)
	}
	resolved := resolve(stack.Schema, inst.Parameters, &fe)
	for _, name := range sortedKeys(inst.Parameters) {
		if _, known := stack.Schema.Param(name); !known {
			fe.Add("parameters."+name, "unknown parameter; stack %q has: %s", stack.Name, paramNames(stack.Schema))
		}
	}
	checkPolicy(stack.Schema, inst, &fe)
	if previous != nil {
		checkInitial(stack.Schema, previous, inst, resolved, &fe)
	}
	if err := validationError(fe); err != nil {
		return nil, err
	}
	return resolved, nil
}

func resolve(s *Schema, given map[string]any, fe *yamlfields.Errors) map[string]any {
	out := make(map[string]any, len(s.Parameters))
	for _, p := range s.Parameters {
		field := "parameters." + p.Name
		raw, set := given[p.Name]
		if !set {
			if p.Required {
				fe.Add(field, "is required")
				continue
			}
			out[p.Name] = p.Default
			continue
		}
		v, msg := normalize(p.Type, raw)
		if msg != "" {
			fe.Add(field, "%s", msg)
			continue
		}
		if s, ok := v.(string); ok && p.Enum != nil && !slices.Contains(p.Enum, s) {
			fe.Add(field, "must be one of %s, got %q", joinQuoted(p.Enum), s)
			continue
		}
		out[p.Name] = v
	}
	return out
}

// checkInitial compares `initial` parameters with the previous config. A parameter the
// previous config cannot resolve (added to the stack since) is fixed by this deploy instead.
func checkInitial(s *Schema, previous, inst *Instance, resolved map[string]any, fe *yamlfields.Errors) {
	// The release may change (a re-pin); the stack may not.
	if previous.Stack != "" && inst.StackName() != previous.StackName() {
		fe.Add("stack", "cannot change after the first deploy (was %q, now %q)", previous.Stack, inst.Stack)
	}
	for _, p := range s.Parameters {
		now, ok := resolved[p.Name]
		if !p.Initial || !ok {
			continue
		}
		was, ok := previousValue(p, previous)
		if ok && !sameValue(was, now) {
			fe.Add("parameters."+p.Name, "is initial and cannot change after the first deploy (was %s, now %s)", show(was), show(now))
		}
	}
}

func previousValue(p Param, previous *Instance) (any, bool) {
	raw, set := previous.Parameters[p.Name]
	if !set {
		return p.Default, !p.Required
	}
	if v, msg := normalize(p.Type, raw); msg == "" {
		return v, true
	}
	return raw, true
}

func paramNames(s *Schema) string {
	names := make([]string, len(s.Parameters))
	for i, p := range s.Parameters {
		names[i] = p.Name
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "(no parameters)"
	}
	return joinQuoted(names)
}
