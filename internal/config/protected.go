package config

// ProtectedBy says what protects inst from deletion: "file" (its own protected: true), "stack"
// (the schema's protected: true, which protects every instance of the stack; an instance cannot
// lower it), or "" when nothing does.
func ProtectedBy(stack *Stack, inst *Instance) string {
	switch {
	case inst.Protected:
		return "file"
	case stack != nil && stack.Schema != nil && stack.Schema.Protected:
		return "stack"
	}
	return ""
}
