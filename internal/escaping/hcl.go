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
// 's' returns to a string, 'h' to a heredoc, 'm' is a top-level module block, 't' the
// terraform block, '{' any other block or object.
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
				if s.Head == "" && s.Attr == "" {
					s.Head = word
				}
			case c == ' ' || c == '\t':
				word = lastIdent
			case c == '=' && lastIdent != "" && !strings.HasPrefix(rest, "=="):
				s.Attr = lastIdent
			case c == '\n':
				s.Attr, s.Head = "", "" // an attribute's value ends with its line (or this reads no further)
			case c == '"':
				s.Mode = hclStringMode
			case c == '{':
				s.Stack += blockKind(s)
				s.Head = ""
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

// blockKind is what a { opens: a top-level module or terraform block, or any other.
func blockKind(s State) string {
	if s.Attr == "" && s.Stack == "" {
		switch s.Head {
		case "module":
			return "m"
		case "terraform":
			return "t"
		}
	}
	return "{"
}

// commandAttrs are the attributes whose text a shell or an interpreter runs: local-exec's
// command and interpreter, remote-exec's inline, script and scripts, the external data
// source's program.
var commandAttrs = map[string]bool{"command": true, "interpreter": true, "inline": true, "script": true, "scripts": true, "program": true}

// NoTenant refuses tenant values where HCL escaping keeps the string a string but it still
// chooses what runs: a command terraform hands to a shell, the directory it runs in, the code a
// module downloads, and the terraform block (backend, providers' sources and versions).
func (HCL) NoTenant(s State) string {
	if s.Mode == hclLineComment || s.Mode == hclBlockComment {
		return ""
	}
	blocks := strings.TrimRight(s.Stack, "sh") // the blocks around an interpolation
	switch {
	case commandAttrs[s.Attr]:
		return fmt.Sprintf("%q is a command a shell runs, so no tenant value is written into it: give the provisioner environment = { NAME = {{ .Params.name }} } and read $NAME", s.Attr)
	case s.Attr == "working_dir":
		return `"working_dir" is where a command runs, so no tenant value is written into it: name the directory in the stack`
	case strings.HasSuffix(blocks, "m") && (s.Attr == "source" || s.Attr == "version"):
		return fmt.Sprintf("a module's %q says which code terraform downloads and runs, so no tenant value is written into it: name the module in the stack and pass tenant values as its inputs", s.Attr)
	case strings.HasPrefix(blocks, "t"):
		return "the terraform block (backend, required_providers' sources and versions) chooses where state goes and which providers run, so no tenant value is written into it"
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
