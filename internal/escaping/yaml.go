package escaping

import "fmt"

// YAML modes.
const (
	yamlStart uint8 = iota // where a scalar may start
	yamlPlain              // inside a plain (unquoted) scalar
	yamlDQ                 // inside "..."
	yamlSQ                 // inside '...'
	yamlComment
)

// YAML is YAML and JSON (a JSON document is YAML), and jsonnet, whose double-quoted strings
// read the same escapes; jsonnet's single-quoted strings do not, so values stay out of them.
type YAML struct {
	JSON    bool // a .json file: a value is always JSON, never a bare YAML word
	Jsonnet bool
}

func (YAML) Name() string { return "YAML/JSON" }
func (YAML) Start() State { return State{} }

func (YAML) Describe(s State) string {
	return [...]string{"YAML/JSON value", "unquoted YAML scalar", "double-quoted string", "single-quoted string", "comment"}[s.Mode]
}

func (YAML) Scan(s State, text string) State {
	for i := 0; i < len(text); i++ {
		c := text[i]
		next := byte('\n') // the end of a chunk: what follows is a value or more text
		if i+1 < len(text) {
			next = text[i+1]
		}
		switch s.Mode {
		case yamlStart:
			switch c {
			case ' ', '\t', '\n', '\r', '[', '{', ',', ']', '}':
			case '"':
				s.Mode = yamlDQ
			case '\'':
				s.Mode = yamlSQ
			case '#':
				s.Mode = yamlComment
			case '-', '?', ':':
				if next != ' ' && next != '\n' && next != '\t' {
					s.Mode = yamlPlain
				}
			default:
				s.Mode = yamlPlain
			}
		case yamlPlain:
			switch {
			case c == '\n', c == ',', c == '[', c == ']', c == '{', c == '}':
				s.Mode = yamlStart
			case c == ':' && (next == ' ' || next == '\t') && i+1 < len(text):
				s.Mode = yamlStart
			case (c == ' ' || c == '\t') && next == '#':
				s.Mode, i = yamlComment, i+1
			}
		case yamlDQ:
			switch c {
			case '\\':
				i++
			case '"':
				s.Mode = yamlPlain
			}
		case yamlSQ:
			switch {
			case c == '\'' && next == '\'' && i+1 < len(text):
				i++
			case c == '\'':
				s.Mode = yamlPlain
			}
		case yamlComment:
			if c == '\n' {
				s.Mode = yamlStart
			}
		}
	}
	return s
}

func (y YAML) Escaper(s State) (string, error) {
	switch s.Mode {
	case yamlStart, yamlComment:
		if y.JSON || y.Jsonnet {
			return FuncJSON, nil // a bare word is no JSON, and a name in jsonnet
		}
		return escYAMLValue, nil
	case yamlDQ:
		return escJSONString, nil
	case yamlSQ:
		if y.Jsonnet {
			return "", fmt.Errorf("a value cannot be written inside a single-quoted jsonnet string; use double quotes")
		}
		return escYAMLSingle, nil
	}
	return escYAMLPlain, nil
}

func (y YAML) Accepts(s State, fn string) bool {
	if fn == FuncJSON && (s.Mode == yamlStart || s.Mode == yamlComment) {
		return true
	}
	name, err := y.Escaper(s)
	return err == nil && fn == name
}
