package escaping

import (
	"fmt"
	"strconv"
	"strings"
)

// YAML modes.
const (
	yamlStart uint8 = iota // where a scalar may start
	yamlPlain              // inside a plain (unquoted) scalar
	yamlDQ                 // inside "..."
	yamlSQ                 // inside '...'
	yamlComment
	yamlBlockHeader // the rest of the line after | or >
	yamlBlock       // the lines of a block scalar
)

// YAML is YAML and JSON (a JSON document is YAML), and jsonnet, whose double-quoted strings
// read the same escapes; jsonnet's single-quoted strings do not, so values stay out of them.
type YAML struct {
	JSON    bool // a .json file: a value is always JSON, never a bare YAML word
	Jsonnet bool
}

func (YAML) Name() string { return "YAML/JSON" }
func (YAML) Start() State { return State{Stack: "m0"} }

func (YAML) Describe(s State) string {
	return [...]string{"YAML/JSON value", "unquoted YAML scalar", "double-quoted string", "single-quoted string", "comment",
		"line that opens a YAML block scalar", "YAML block scalar"}[s.Mode]
}

func (YAML) Scan(s State, text string) State {
	for i := 0; i < len(text); i++ {
		c := text[i]
		next := byte('\n') // the end of a chunk: what follows is a value or more text
		if i+1 < len(text) {
			next = text[i+1]
		}
		n, measuring := yamlIndent(s)
		if s.Mode == yamlBlock && measuring && c != ' ' && c != '\n' && c != '\r' && n <= atoi(s.Delim) {
			s.Mode, s.Delim = yamlStart, "" // a line at the key's indentation ends the block
		}
		switch s.Mode {
		case yamlBlockHeader:
			if c == '\n' {
				s.Mode = yamlBlock
			}
		case yamlStart:
			switch c {
			case '|', '>':
				s.Mode, s.Delim = yamlBlockHeader, strconv.Itoa(n)
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
		switch {
		case c == '\n':
			n, measuring = 0, true
		case measuring && c == ' ':
			n++
		default:
			measuring = false
		}
		s.Stack = strconv.Itoa(n)
		if measuring {
			s.Stack = "m" + s.Stack
		}
	}
	return s
}

// yamlIndent is the current line's indentation so far, kept in Stack ("m3" while the line is
// still in its leading spaces).
func yamlIndent(s State) (int, bool) {
	return atoi(strings.TrimPrefix(s.Stack, "m")), strings.HasPrefix(s.Stack, "m")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
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
	case yamlBlockHeader:
		return "", fmt.Errorf("a value cannot be written on the line that opens a block scalar")
	case yamlBlock:
		n, measuring := yamlIndent(s)
		switch {
		case measuring && n <= atoi(s.Delim):
			return "", fmt.Errorf("a value cannot start a line of a block scalar at its key's indentation; indent it")
		case measuring:
			return escYAMLBlockStart, nil // its own leading spaces would move the block's indentation
		}
		return escYAMLBlock, nil
	case yamlSQ:
		if y.Jsonnet {
			return "", fmt.Errorf("a value cannot be written inside a single-quoted jsonnet string; use double quotes")
		}
		return escYAMLSingle, nil
	}
	return escYAMLPlain, nil
}

func (y YAML) Accepts(s State, fn string) bool {
	if fn == FuncJSON && (s.Mode == yamlStart || s.Mode == yamlComment || s.Mode == yamlBlock) {
		_, err := y.Escaper(s)
		return err == nil // toJSON writes no line break
	}
	name, err := y.Escaper(s)
	return err == nil && fn == name
}
