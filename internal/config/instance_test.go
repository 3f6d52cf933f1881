package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseInstance(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Instance
		// wantErrs are the FieldErrors expected, as "field: message substring".
		wantErrs []FieldError
	}{
		{
			name: "full",
			in:   "stack: example\nparameters:\n  region: eu-west\n  replicas: 2\n  ratio: 0.5\n  debug: true\n",
			want: &Instance{Stack: "example", Parameters: map[string]any{"region": "eu-west", "replicas": 2, "ratio": 0.5, "debug": true}},
		},
		{
			name: "no parameters",
			in:   "stack: example\n",
			want: &Instance{Stack: "example", Parameters: map[string]any{}},
		},
		{
			name: "null parameters",
			in:   "stack: example\nparameters:\n",
			want: &Instance{Stack: "example", Parameters: map[string]any{}},
		},
		{
			name: "anchors and aliases",
			in:   "stack: example\nparameters:\n  a: &x hello\n  b: *x\n",
			want: &Instance{Stack: "example", Parameters: map[string]any{"a": "hello", "b": "hello"}},
		},
		{
			name:     "unknown top-level key",
			in:       "stack: example\ntenant: acme\n",
			wantErrs: []FieldError{{Field: "tenant", Message: "unknown field (line 2); allowed: stack, parameters, schedulingGates"}},
		},
		{
			name:     "missing stack",
			in:       "parameters:\n  a: 1\n",
			wantErrs: []FieldError{{Field: "stack", Message: "is required"}},
		},
		{
			name:     "empty file",
			in:       "",
			wantErrs: []FieldError{{Field: "stack", Message: "is required (the instance file is empty)"}},
		},
		{
			name:     "stack not a string",
			in:       "stack: 3\n",
			wantErrs: []FieldError{{Field: "stack", Message: "must be a string, got int 3 (line 1)"}},
		},
		{
			name:     "stack not a label",
			in:       "stack: ../etc\n",
			wantErrs: []FieldError{{Field: "stack", Message: `"../etc" must be a DNS-1123 label`}},
		},
		{
			name:     "parameters is a list",
			in:       "stack: example\nparameters:\n  - a\n",
			wantErrs: []FieldError{{Field: "parameters", Message: "must be a mapping of name: value, got a list (line 3)"}},
		},
		{
			name:     "duplicate parameter",
			in:       "stack: example\nparameters:\n  a: 1\n  a: 2\n",
			wantErrs: []FieldError{{Field: "parameters.a", Message: "is set twice (lines 3 and 4)"}},
		},
		{
			name:     "duplicate top-level key",
			in:       "stack: a\nstack: b\n",
			wantErrs: []FieldError{{Field: "stack", Message: "is set twice (lines 1 and 2)"}},
		},
		{
			name:     "not a mapping",
			in:       "- stack\n",
			wantErrs: []FieldError{{Field: "yaml", Message: "must be a mapping with keys stack, parameters; got a list (line 1)"}},
		},
		{
			name:     "syntax error has a line",
			in:       "stack: example\nparameters:\n  a: b: c\n",
			wantErrs: []FieldError{{Field: "yaml", Message: "line 3: mapping values are not allowed"}},
		},
		{
			name:     "two documents",
			in:       "stack: a\n---\nstack: b\n",
			wantErrs: []FieldError{{Field: "yaml", Message: "only one YAML document is allowed"}},
		},
		{
			name: "all errors at once, sorted by field",
			in:   "zeta: 1\nparameters: 3\nalpha: 2\n",
			wantErrs: []FieldError{
				{Field: "alpha", Message: "unknown field"},
				{Field: "parameters", Message: "must be a mapping"},
				{Field: "stack", Message: "is required"},
				{Field: "zeta", Message: "unknown field"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInstance([]byte(tt.in))
			if tt.wantErrs == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			assert.Nil(t, got)
			assertFieldErrors(t, err, tt.wantErrs)
		})
	}
}

// assertFieldErrors checks err is a *ValidationError with exactly these fields, in order,
// each message containing the wanted text.
func assertFieldErrors(t *testing.T, err error, want []FieldError) {
	t.Helper()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Errors, len(want), "errors: %v", ve.Errors)
	for i, w := range want {
		assert.Equal(t, w.Field, ve.Errors[i].Field)
		assert.Contains(t, ve.Errors[i].Message, w.Message)
	}
	assert.Contains(t, err.Error(), "invalid instance config: "+want[0].Field+": ")
}

func TestValidationErrorMessage(t *testing.T) {
	err := &ValidationError{Errors: []FieldError{
		{Field: "parameters.replicas", Message: `must be an int, got string "two"`},
		{Field: "stack", Message: "is required"},
	}}
	assert.Equal(t, `invalid instance config: parameters.replicas: must be an int, got string "two"; stack: is required`, err.Error())
}

func TestCanonical(t *testing.T) {
	a, err := ParseInstance([]byte("parameters:\n    replicas: 2\n    greeting: 'hello'\n    zed: \"yes\"\n    on: true\n    n: 1.5\nstack: example\n"))
	require.NoError(t, err)
	b, err := ParseInstance([]byte("stack: example\nparameters: {n: 1.5, on: true, zed: 'yes', greeting: hello, replicas: 2}\n"))
	require.NoError(t, err)

	want := "stack: example\nparameters:\n  greeting: hello\n  \"n\": 1.5\n  \"on\": true\n  replicas: 2\n  zed: \"yes\"\n"
	assert.Equal(t, want, string(a.Canonical()))
	assert.Equal(t, a.Canonical(), b.Canonical(), "same config, same bytes")

	back, err := ParseInstance(a.Canonical())
	require.NoError(t, err)
	assert.Equal(t, a, back, "canonical bytes parse back to the same instance")

	empty := &Instance{Stack: "example"}
	assert.Equal(t, "stack: example\nparameters: {}\n", string(empty.Canonical()))
}
