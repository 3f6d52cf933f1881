package config

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testSchema = `parameters:
  - {name: region, type: string, enum: [eu-west, us-east], default: eu-west, initial: true}
  - {name: replicas, type: int, default: 1}
  - {name: ratio, type: number, default: 0.5}
  - {name: greeting, type: string, required: true}
  - {name: debug, type: bool, default: false}
  - {name: size, type: int, required: true, initial: true}
`

func testStack(t *testing.T, extra map[string]string) *Stack {
	t.Helper()
	files := map[string][]byte{SchemaFile: []byte(testSchema)}
	for p, c := range extra {
		files[p] = []byte(c)
	}
	st, err := LoadStack("demo", files)
	require.NoError(t, err)
	return st
}

func TestValidate(t *testing.T) {
	st := testStack(t, nil)
	base := map[string]any{"greeting": "hi", "size": 3}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	defaults := map[string]any{"region": "eu-west", "replicas": int64(1), "ratio": 0.5, "greeting": "hi", "debug": false, "size": int64(3)}
	resolvedWith := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range defaults {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	tests := []struct {
		name     string
		stack    string
		params   map[string]any
		previous *Instance
		want     map[string]any
		wantErrs []FieldError
	}{
		{name: "defaults applied", params: base, want: defaults},
		{name: "all set", params: with("region", "us-east", "replicas", 4, "ratio", 2, "debug", true),
			want: resolvedWith("region", "us-east", "replicas", int64(4), "ratio", float64(2), "debug", true)},
		{name: "integral float is an int", params: with("replicas", 2.0), want: resolvedWith("replicas", int64(2))},
		{name: "json number", params: with("replicas", json.Number("7"), "ratio", json.Number("1.25")), want: resolvedWith("replicas", int64(7), "ratio", 1.25)},
		{name: "wrong stack", stack: "other", params: base, wantErrs: []FieldError{{Field: "stack", Message: `is "other", but the stack given is "demo"`}}},
		{name: "unknown parameter", params: with("colour", "red"), wantErrs: []FieldError{{Field: "parameters.colour", Message: `unknown parameter; stack "demo" has: "debug", "greeting", "ratio", "region", "replicas", "size"`}}},
		{name: "int given a string", params: with("replicas", "two"), wantErrs: []FieldError{{Field: "parameters.replicas", Message: `must be an int, got string "two"`}}},
		{name: "int given a fraction", params: with("replicas", 2.5), wantErrs: []FieldError{{Field: "parameters.replicas", Message: "must be an int, got float 2.5 (it has a fraction)"}}},
		{name: "int out of range", params: with("replicas", uint64(1)<<63), wantErrs: []FieldError{{Field: "parameters.replicas", Message: "out of range"}}},
		{name: "int given a bool", params: with("replicas", true), wantErrs: []FieldError{{Field: "parameters.replicas", Message: "must be an int, got bool true"}}},
		{name: "number given a string", params: with("ratio", "0.5"), wantErrs: []FieldError{{Field: "parameters.ratio", Message: `must be a number, got string "0.5"`}}},
		{name: "string given an int", params: with("greeting", 5), wantErrs: []FieldError{{Field: "parameters.greeting", Message: "must be a string, got int 5 (quote it to make it a string)"}}},
		{name: "string given a list", params: with("greeting", []any{"a"}), wantErrs: []FieldError{{Field: "parameters.greeting", Message: "must be a string, got a list"}}},
		{name: "null is not a value", params: map[string]any{"greeting": nil, "size": 3},
			wantErrs: []FieldError{{Field: "parameters.greeting", Message: "must be a string, got null"}}},
		{name: "bool given yes", params: with("debug", "yes"), wantErrs: []FieldError{{Field: "parameters.debug", Message: `must be a bool, got string "yes"`}}},
		{name: "enum", params: with("region", "mars"), wantErrs: []FieldError{{Field: "parameters.region", Message: `must be one of "eu-west", "us-east", got "mars"`}}},
		{name: "missing required", params: map[string]any{"size": 1}, wantErrs: []FieldError{{Field: "parameters.greeting", Message: "is required"}}},
		{name: "every error, sorted", stack: "x", params: map[string]any{"replicas": "x", "zz": 1},
			wantErrs: []FieldError{
				{Field: "parameters.greeting", Message: "is required"},
				{Field: "parameters.replicas", Message: "must be an int"},
				{Field: "parameters.size", Message: "is required"},
				{Field: "parameters.zz", Message: "unknown parameter"},
				{Field: "stack", Message: `is "x"`},
			}},
		{name: "initial unchanged", params: with("region", "eu-west"),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "old", "size": 3}}, want: defaults},
		{name: "non-initial may change", params: with("replicas", 9),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "old", "size": 3, "replicas": 1}}, want: resolvedWith("replicas", int64(9))},
		{name: "initial changed", params: with("region", "us-east"),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"region": "eu-west", "greeting": "hi", "size": 3}},
			wantErrs: []FieldError{{Field: "parameters.region", Message: `is initial and cannot change after the first deploy (was "eu-west", now "us-east")`}}},
		{name: "initial changed from its default", params: with("region", "us-east"),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 3}},
			wantErrs: []FieldError{{Field: "parameters.region", Message: `(was "eu-west", now "us-east")`}}},
		{name: "initial int changed, compared after normalising", params: with("size", 4),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 3.0}},
			wantErrs: []FieldError{{Field: "parameters.size", Message: "is initial and cannot change after the first deploy (was 3, now 4)"}}},
		{name: "initial int equal across int and float", params: with("size", 3),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 3.0}}, want: defaults},
		{name: "initial added to the stack later is fixed now", params: with("size", 5),
			previous: &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi"}}, want: resolvedWith("size", int64(5))},
		{name: "stack cannot change after deploy", params: base,
			previous: &Instance{Stack: "older", Parameters: map[string]any{"greeting": "hi", "size": 3}},
			wantErrs: []FieldError{{Field: "stack", Message: `cannot change after the first deploy (was "older", now "demo")`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack := tt.stack
			if stack == "" {
				stack = "demo"
			}
			got, err := Validate(st, &Instance{Stack: stack, Parameters: tt.params}, tt.previous)
			if tt.wantErrs != nil {
				assert.Nil(t, got)
				assertFieldErrors(t, err, tt.wantErrs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateResolvedSurvivesJSON(t *testing.T) {
	st := testStack(t, nil)
	first, err := Validate(st, &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 3, "ratio": 2}}, nil)
	require.NoError(t, err)

	// Resolved params travel through Temporal as JSON; they must validate back to the same values.
	data, err := json.Marshal(first)
	require.NoError(t, err)
	var decoded map[string]any
	require.NoError(t, json.Unmarshal(data, &decoded))
	again, err := Validate(st, &Instance{Stack: "demo", Parameters: decoded}, &Instance{Stack: "demo", Parameters: first})
	require.NoError(t, err)
	assert.Equal(t, first, again)
}

func TestValidateNeedsAStack(t *testing.T) {
	_, err := Validate(nil, &Instance{Stack: "demo"}, nil)
	require.Error(t, err)
}
