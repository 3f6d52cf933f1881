package config

// JSONSchemaDialect is the JSON Schema version JSONSchema answers in.
const JSONSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// jsonTypes are the JSON Schema types of the parameter types.
var jsonTypes = map[ParamType]string{TypeString: "string", TypeInt: "integer", TypeBool: "boolean", TypeNumber: "number"}

// JSONSchema is an instance's parameters object for the stack as JSON Schema 2020-12, which a
// portal renders a form from: types, defaults, enums, required and descriptions. An initial
// parameter says x-slipway-initial, and is readOnly for an instance already deployed (a form to
// update it): it cannot change after the first deploy, but a create sets it. Validate stays the
// authority: it also checks what a schema cannot (an initial value's change).
func (s *Schema) JSONSchema(stack string, deployed bool) map[string]any {
	props, required := map[string]any{}, []string{}
	for _, p := range s.Parameters {
		prop := map[string]any{"type": jsonTypes[p.Type]}
		if p.Description != "" {
			prop["description"] = p.Description
		}
		if !p.Required {
			prop["default"] = p.Default
		} else {
			required = append(required, p.Name)
		}
		if p.Enum != nil {
			prop["enum"] = p.Enum
		}
		if p.Initial {
			prop["x-slipway-initial"] = true
			if deployed {
				prop["readOnly"] = true
			}
		}
		props[p.Name] = prop
	}
	out := map[string]any{
		"$schema": JSONSchemaDialect, "title": stack, "type": "object",
		"properties": props, "required": required, "additionalProperties": false,
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	return out
}
