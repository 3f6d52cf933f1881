package policy

import (
	"fmt"
	"strings"
)

// LoadError is a bundle that does not load: each problem names its file (and line, for Rego).
type LoadError struct {
	Problems []string
}

func (e *LoadError) Error() string { return strings.Join(e.Problems, "\n") }

// InputError is input a policy cannot decide on; Field names the part of it.
type InputError struct {
	Field, Message string
}

func (e *InputError) Error() string { return fmt.Sprintf("policy input: %s: %s", e.Field, e.Message) }

// UndeclaredGroupError is a decision that requires approval by a group data.slipway.groups
// does not declare: a typo or a stack naming a group the platform never made.
type UndeclaredGroupError struct {
	Group, Hash string
}

func (e *UndeclaredGroupError) Error() string {
	return fmt.Sprintf("policy %s requires approval by group %q, which data.slipway.groups does not declare", short(e.Hash), e.Group)
}

// EvalError is a policy that failed to evaluate or gave an answer of the wrong shape.
type EvalError struct {
	Hash, Message string
}

func (e *EvalError) Error() string { return fmt.Sprintf("policy %s: %s", short(e.Hash), e.Message) }

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
