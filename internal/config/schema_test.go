package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSchema(t *testing.T) {
	good := `description: demo
parameters:
  - name: region
    type: string
    enum: [eu-west, us-east]
    default: eu-west
    initial: true
    description: where
  - name: replicas
    type: int
    default: 1
  - name: ratio
    type: number
    default: 2
  - name: greeting
    type: string
    required: true
  - name: debug
    type: bool
    default: false
`
	s, err := ParseSchema([]byte(good))
	require.NoError(t, err)
	assert.Equal(t, &Schema{Description: "demo", Parameters: []Param{
		{Name: "region", Type: TypeString, Default: "eu-west", Initial: true, Enum: []string{"eu-west", "us-east"}, Description: "where"},
		{Name: "replicas", Type: TypeInt, Default: int64(1)},
		{Name: "ratio", Type: TypeNumber, Default: float64(2)},
		{Name: "greeting", Type: TypeString, Required: true},
		{Name: "debug", Type: TypeBool, Default: false},
	}}, s)

	empty, err := ParseSchema(nil)
	require.NoError(t, err)
	assert.Empty(t, empty.Parameters)
}

func TestParseSchemaErrors(t *testing.T) {
	// Each case is one parameter list item (or a whole file when it starts with "!").
	tests := []struct {
		name string
		in   string
		want []FieldError
	}{
		{"unknown top-level key", "!parameters: []\nversion: 2\n", []FieldError{{Field: "schema.version", Message: "unknown field (line 2)"}}},
		{"parameters not a list", "!parameters: {a: 1}\n", []FieldError{{Field: "schema.parameters", Message: "must be a list, got a mapping"}}},
		{"not a mapping", "!- a\n", []FieldError{{Field: "schema", Message: "must be a mapping"}}},
		{"syntax", "!parameters: [\n", []FieldError{{Field: "schema", Message: "did not find expected node content"}}},
		{"unknown param key", "{name: a, type: int, default: 1, min: 0}", []FieldError{{Field: "schema.parameters[1].min", Message: "unknown field"}}},
		{"bad type", "{name: a, type: integer, default: 1}", []FieldError{{Field: "schema.parameters[1].type", Message: `unknown type "integer"; allowed: string, int, bool, number`}}},
		{"missing type", "{name: a, default: 1}", []FieldError{{Field: "schema.parameters[1].type", Message: "is required"}}},
		{"missing name", "{type: int, default: 1}", []FieldError{{Field: "schema.parameters[1].name", Message: "is required"}}},
		{"bad name", "{name: Bad-Name, type: int, default: 1}", []FieldError{{Field: "schema.parameters[1].name", Message: `"Bad-Name" must match ^[a-z][a-z0-9_]*$`}}},
		{"name starts with digit", "{name: 1a, type: int, default: 1}", []FieldError{{Field: "schema.parameters[1].name", Message: `"1a" must match`}}},
		{"name not a string", "{name: 12, type: int, default: 1}", []FieldError{{Field: "schema.parameters[1].name", Message: "must be a string, got int 12"}}},
		{"duplicate name", "{name: keep, type: int, default: 1}", []FieldError{{Field: "schema.parameters[1].name", Message: `duplicate parameter "keep" (first at schema.parameters[0])`}}},
		{"default of wrong type", "{name: a, type: int, default: two}", []FieldError{{Field: "schema.parameters[1].default", Message: `must be an int, got string "two" (line`}}},
		{"default with fraction for int", "{name: a, type: int, default: 1.5}", []FieldError{{Field: "schema.parameters[1].default", Message: "must be an int, got float 1.5 (it has a fraction)"}}},
		{"string default not a string", "{name: a, type: string, default: 5}", []FieldError{{Field: "schema.parameters[1].default", Message: "must be a string, got int 5 (quote it"}}},
		{"bool default not a bool", "{name: a, type: bool, default: yes}", []FieldError{{Field: "schema.parameters[1].default", Message: `must be a bool, got string "yes"`}}},
		{"null default", "{name: a, type: string, default: null}", []FieldError{{Field: "schema.parameters[1].default", Message: "must be a string, got null"}}},
		{"required and default", "{name: a, type: int, required: true, default: 1}", []FieldError{{Field: "schema.parameters[1].default", Message: "must not be set on a required parameter"}}},
		{"neither required nor default", "{name: a, type: int}", []FieldError{{Field: "schema.parameters[1].default", Message: "is required unless required is true"}}},
		{"required not a bool", "{name: a, type: int, required: yes}", []FieldError{
			{Field: "schema.parameters[1].required", Message: `must be true or false, got string "yes"`},
			{Field: "schema.parameters[1].default", Message: "is required unless required is true"},
		}},
		{"initial not a bool", "{name: a, type: int, default: 1, initial: 1}", []FieldError{{Field: "schema.parameters[1].initial", Message: "must be true or false, got int 1"}}},
		{"enum on int", "{name: a, type: int, default: 1, enum: [a]}", []FieldError{{Field: "schema.parameters[1].enum", Message: "is only allowed for type string, not int"}}},
		{"enum empty", "{name: a, type: string, required: true, enum: []}", []FieldError{{Field: "schema.parameters[1].enum", Message: "must list at least one value"}}},
		{"enum not strings", "{name: a, type: string, required: true, enum: [a, 2]}", []FieldError{{Field: "schema.parameters[1].enum[1]", Message: "must be a string, got int 2"}}},
		{"enum duplicate", "{name: a, type: string, required: true, enum: [a, a]}", []FieldError{{Field: "schema.parameters[1].enum[1]", Message: `duplicate value "a"`}}},
		{"default outside enum", "{name: a, type: string, default: c, enum: [a, b]}", []FieldError{{Field: "schema.parameters[1].default", Message: `"c" is not one of the enum values "a", "b"`}}},
		{"item not a mapping", "just-a-name", []FieldError{{Field: "schema.parameters[1]", Message: `must be a mapping, got string "just-a-name"`}}},
		{"duplicate key in item", "{name: a, name: b, type: int, default: 1}", []FieldError{{Field: "schema.parameters[1].name", Message: "is set twice"}}},
		{"nan default for number", "{name: a, type: number, default: .nan}", []FieldError{{Field: "schema.parameters[1].default", Message: "must be a finite number"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "parameters:\n  - {name: keep, type: int, default: 1}\n  - " + tt.in + "\n"
			if tt.in[0] == '!' {
				in = tt.in[1:]
			}
			s, err := ParseSchema([]byte(in))
			assert.Nil(t, s)
			var se *StackError
			require.ErrorAs(t, err, &se)
			require.Len(t, se.Errors, len(tt.want), "errors: %v", se.Errors)
			for i, w := range tt.want {
				assert.Equal(t, w.Field, se.Errors[i].Field)
				assert.Contains(t, se.Errors[i].Message, w.Message)
			}
			assert.Contains(t, err.Error(), "invalid stack: "+tt.want[0].Field+": ")
		})
	}
}

func TestParseSchemaCollectsAllErrors(t *testing.T) {
	_, err := ParseSchema([]byte("parameters:\n  - {name: a, type: nope}\n  - {name: B, type: int, default: 1}\n"))
	var se *StackError
	require.ErrorAs(t, err, &se)
	fields := make([]string, len(se.Errors))
	for i, e := range se.Errors {
		fields[i] = e.Field
	}
	// Document order, not alphabetical: parameters[0] before parameters[1].
	assert.Equal(t, []string{"schema.parameters[0].type", "schema.parameters[0].default", "schema.parameters[1].name"}, fields)
}

func TestSchemaSecrets(t *testing.T) {
	s, err := ParseSchema([]byte("secrets: [admin_password, api_key]\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"admin_password", "api_key"}, s.Secrets)
	for body, field := range map[string]string{
		"secrets: admin\n":       "schema.secrets",
		"secrets: [Admin]\n":     "schema.secrets[0]",
		"secrets: [a, a]\n":      "schema.secrets[1]",
		"secrets: [{name: x}]\n": "schema.secrets[0]",
	} {
		_, err := ParseSchema([]byte(body))
		var se *StackError
		require.ErrorAs(t, err, &se, body)
		require.Equal(t, field, se.Errors[0].Field, body)
	}
}
