package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// FieldError names one bad field, e.g. "parameters.replicas", "stack" or "schema.parameters[2].type".
// Its fields are Field and Message, as JSON "field" and "message".
type FieldError = yamlfields.FieldError

// ValidationError is everything wrong with an instance file, sorted by field.
type ValidationError struct {
	Errors []FieldError `json:"errors"`
}

func (e *ValidationError) Error() string { return "invalid instance config: " + joinFields(e.Errors) }

func (e *ValidationError) Is(target error) bool { return target == errkind.Invalid }

// StackError is everything wrong with a stack: its schema, its files or its templates.
// Stack is empty when the schema was parsed on its own.
type StackError struct {
	Stack  string       `json:"stack,omitempty"`
	Errors []FieldError `json:"errors"`
}

func (e *StackError) Error() string {
	if e.Stack == "" {
		return "invalid stack: " + joinFields(e.Errors)
	}
	return fmt.Sprintf("invalid stack %q: %s", e.Stack, joinFields(e.Errors))
}

func (e *StackError) Is(target error) bool { return target == errkind.Invalid }

// ManifestError is a rendered manifest that does not describe a Kubernetes object.
type ManifestError struct {
	File    string
	Doc     int // 1-based document index within File; 0 when the file itself is bad
	Field   string
	Message string
}

func (e *ManifestError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Doc > 0 {
		fmt.Fprintf(&b, ": document %d", e.Doc)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Message)
	return b.String()
}

// validationError returns nil when nothing was collected, so callers can
// `return x, validationError(fe)`; the errors are sorted by field.
func validationError(fe yamlfields.Errors) error {
	if len(fe) == 0 {
		return nil
	}
	out := fieldErrors(fe)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Field != out[j].Field {
			return out[i].Field < out[j].Field
		}
		return out[i].Message < out[j].Message
	})
	return &ValidationError{Errors: out}
}

// stackError keeps document order: schema errors read best in the order they were written.
func stackError(name string, fe yamlfields.Errors) error {
	if len(fe) == 0 {
		return nil
	}
	return &StackError{Stack: name, Errors: fieldErrors(fe)}
}

func fieldErrors(fe yamlfields.Errors) []FieldError {
	out := make([]FieldError, len(fe))
	for i, e := range fe {
		out[i] = FieldError(e)
	}
	return out
}

func joinFields(errs []FieldError) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.String()
	}
	return strings.Join(parts, "; ")
}
