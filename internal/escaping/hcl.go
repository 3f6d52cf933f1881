package escaping

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// HCL modes.
const (
	hclExprMode uint8 = iota
	hclStringMode
	hclHeredocHeader // the rest of the line that opens a heredoc
	hclHeredocMode
	hclLineComment
	hclBlockComment
)

// HCL is terraform's language (.tf, .tfvars): expressions, quoted templates, heredocs, comments.
type HCL struct{}

func (HCL) Name() string { return "HCL" }
func (HCL) Start() State { return State{} }

func (HCL) Describe(s State) string {
	return [...]string{"HCL expression", "HCL string", "heredoc's opening line", "HCL heredoc", "HCL comment", "HCL block comment"}[s.Mode]
}

// Scan follows HCL's lexical structure; nesting (interpolations, braces) is kept in Stack:
// 's' returns to a string, 'h' to a heredoc, '{' is a brace of an expression.
func (HCL) Scan(s State, text string) State {
	lastIdent := "" // the identifier just before, to name an attribute at its =
	for i := 0; i < len(text); i++ {
		c := text[i]
		rest := text[i:]
		switch s.Mode {
		case hclExprMode:
			word := ""
			switch {
			case isIdent(c) && (c < '0' || c > '9'):
				k := i
				for k < len(text) && isIdent(text[k]) {
					k++
				}
				word, i = text[i:k], k-1
			case c == ' ' || c == '\t':
				word = lastIdent
			case c == '=' && lastIdent != "" && !strings.HasPrefix(rest, "=="):
				s.Attr = lastIdent
			case c == '\n':
				s.Attr = "" // an attribute's value ends with its line (or this reads no further)
			case c == '"':
				s.Mode = hclStringMode
			case c == '{':
				s.Stack += "{"
			case c == '}' && s.Stack != "":
				top := s.Stack[len(s.Stack)-1]
				s.Stack = s.Stack[:len(s.Stack)-1]
				switch top {
				case 's':
					s.Mode = hclStringMode
				case 'h':
					s.Mode = hclHeredocMode
				}
			case c == '#' || strings.HasPrefix(rest, "//"):
				s.Mode = hclLineComment
			case strings.HasPrefix(rest, "/*"):
				s.Mode, i = hclBlockComment, i+1
			case strings.HasPrefix(rest, "<<"):
				j := i + 2
				if j < len(text) && text[j] == '-' {
					j++
				}
				k := j
				for k < len(text) && isIdent(text[k]) {
					k++
				}
				if k > j {
					s.Mode, s.Delim, i = hclHeredocHeader, text[j:k], k-1
				}
			}
			lastIdent = word
		case hclStringMode:
			switch {
			case c == '\\':
				i++
			case c == '"':
				s.Mode = hclExprMode
			case strings.HasPrefix(rest, "$${"), strings.HasPrefix(rest, "%%{"):
				i += 2
			case strings.HasPrefix(rest, "${"), strings.HasPrefix(rest, "%{"):
				s.Mode, s.Stack, i = hclExprMode, s.Stack+"s", i+1
			}
		case hclHeredocHeader:
			if c == '\n' {
				s.Mode, s.Delim = hclHeredocMode, s.Delim+"\x00"
			}
		case hclHeredocMode:
			switch {
			case c == '\n':
				if strings.TrimSpace(heredocLine(s)) == heredocWord(s) {
					s.Mode, s.Delim = hclExprMode, ""
				} else {
					s.Delim = heredocWord(s) + "\x00"
				}
			case strings.HasPrefix(rest, "$${"), strings.HasPrefix(rest, "%%{"):
				s.Delim += rest[:3]
				i += 2
			case strings.HasPrefix(rest, "${"), strings.HasPrefix(rest, "%{"):
				s.Delim += "\x01" // the line holds an interpolation: it is not the closing word
				s.Mode, s.Stack, i = hclExprMode, s.Stack+"h", i+1
			default:
				s.Delim += string(c)
			}
		case hclLineComment:
			if c == '\n' {
				s.Mode = hclExprMode
			}
		case hclBlockComment:
			if strings.HasPrefix(rest, "*/") {
				s.Mode, i = hclExprMode, i+1
			}
		}
	}
	return s
}

// A heredoc's State.Delim is its closing word, then NUL and the current line so far.
func heredocWord(s State) string {
	w, _, _ := strings.Cut(s.Delim, "\x00")
	return w
}

func heredocLine(s State) string {
	_, l, _ := strings.Cut(s.Delim, "\x00")
	return l
}

func isIdent(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (h HCL) Escaper(s State) (string, error) {
	switch s.Mode {
	case hclExprMode:
		return escHCLExpr, nil
	case hclStringMode, hclLineComment:
		return escHCLString, nil
	case hclHeredocMode:
		return escHCLHeredoc + "_" + hex.EncodeToString([]byte(heredocWord(s))), nil
	case hclHeredocHeader:
		return "", fmt.Errorf("a value cannot be written on the line that opens a heredoc")
	}
	return "", fmt.Errorf("a value cannot be written inside a /* */ comment, which it could end")
}

// commandAttrs are the attributes whose text a shell or an interpreter runs: local-exec's
// command and interpreter, remote-exec's inline, script and scripts, the external data
// source's program.
var commandAttrs = map[string]bool{"command": true, "interpreter": true, "inline": true, "script": true, "scripts": true, "program": true}

// NoTenant refuses tenant values in a command terraform hands to a shell: HCL escaping keeps the
// string a string, but the shell would still run what it holds.
func (HCL) NoTenant(s State) string {
	if commandAttrs[s.Attr] && s.Mode != hclLineComment && s.Mode != hclBlockComment {
		return fmt.Sprintf("%q is a command a shell runs, so no tenant value is written into it: give the provisioner environment = { NAME = {{ .Params.name }} } and read $NAME", s.Attr)
	}
	return ""
}

func (h HCL) Accepts(s State, fn string) bool {
	if s.Mode == hclExprMode && fn == FuncHCL {
		return true
	}
	name, err := h.Escaper(s)
	return err == nil && fn == name
}

// Func makes the escaper of a heredoc closed by the word the name carries.
func (HCL) Func(name string) any {
	word, _ := hex.DecodeString(strings.TrimPrefix(name, escHCLHeredoc+"_"))
	return func(v any) (string, error) {
		out, err := hclHeredoc(v)
		// A line that reads the closing word ends the heredoc; literal text around a value
		// can only spell it with a part of the word, so such values are refused.
		if t := strings.TrimSpace(out); err == nil && t != "" && strings.Contains(string(word), t) {
			err = fmt.Errorf("%s could end the heredoc %s", excerpt(out), word)
		}
		return out, err
	}
}
