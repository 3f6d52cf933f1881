package escaping

import (
	"fmt"
	"strings"
)

// Shell modes.
const (
	shUnquoted uint8 = iota
	shSingle
	shDouble
	shComment
	shHeredocHeader
	shHeredoc
	shANSI // $'...'
)

// Shell is a POSIX shell script: words, quotes, comments, command substitution, heredocs.
type Shell struct{}

func (Shell) Name() string { return "shell" }
func (Shell) Start() State { return State{} }

func (Shell) Describe(s State) string {
	return [...]string{"shell word", "single-quoted shell string", "double-quoted shell string", "shell comment",
		"line that opens a shell heredoc", "shell heredoc", "$'...' shell string"}[s.Mode]
}

// Scan follows quoting; Stack holds the mode to return to after $( ... ) or ` ... `, with
// the kind of the opener before it ('(' or '`').
func (Shell) Scan(s State, text string) State {
	prev := byte('\n')
	for i := 0; i < len(text); i++ {
		c := text[i]
		rest := text[i:]
		switch s.Mode {
		case shUnquoted, shHeredocHeader:
			switch {
			case c == '\\':
				i++
			case c == '\'':
				s.Stack += "'" + string('0'+s.Mode)
				s.Mode = shSingle
			case strings.HasPrefix(rest, "$'"):
				s.Stack += "'" + string('0'+s.Mode)
				s.Mode, i = shANSI, i+1
			case c == '"':
				s.Stack += "\"" + string('0'+s.Mode)
				s.Mode = shDouble
			case c == '#' && strings.IndexByte(" \t\n;&|(", prev) >= 0:
				s.Stack += "#" + string('0'+s.Mode)
				s.Mode = shComment
			case strings.HasPrefix(rest, "$("), c == '(':
				s.Stack += "(" + string('0'+s.Mode)
				if c == '$' {
					i++
				}
				s.Mode = shUnquoted
			case c == '`' && opener(s) == '`':
				s = pop(s)
			case c == '`':
				s.Stack += "`" + string('0'+s.Mode)
				s.Mode = shUnquoted
			case c == ')' && opener(s) == '(':
				s = pop(s)
			case strings.HasPrefix(rest, "<<") && !strings.HasPrefix(rest, "<<<") && s.Mode == shUnquoted:
				j := i + 2
				if j < len(text) && text[j] == '-' {
					j++
				}
				for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
					j++
				}
				k := j
				for k < len(text) && (isIdent(text[k]) || text[k] == '\'' || text[k] == '"' || text[k] == '\\') {
					k++
				}
				word := strings.NewReplacer("'", "", "\"", "", "\\", "").Replace(text[j:k])
				if word != "" {
					s.Mode, s.Delim, i = shHeredocHeader, word, k-1
				}
			case c == '\n' && s.Mode == shHeredocHeader:
				s.Mode, s.Delim = shHeredoc, s.Delim+"\x00"
			}
		case shSingle:
			if c == '\'' {
				s = pop(s)
			}
		case shANSI:
			switch c {
			case '\\':
				i++
			case '\'':
				s = pop(s)
			}
		case shDouble:
			switch {
			case c == '\\':
				i++
			case c == '"':
				s = pop(s)
			case strings.HasPrefix(rest, "$("):
				s.Stack += "(" + string('0'+s.Mode)
				s.Mode, i = shUnquoted, i+1
			case c == '`':
				s.Stack += "`" + string('0'+s.Mode)
				s.Mode = shUnquoted
			}
		case shComment:
			if c == '\n' {
				s = pop(s)
				if s.Mode == shHeredocHeader {
					s.Mode, s.Delim = shHeredoc, s.Delim+"\x00"
				}
			}
		case shHeredoc:
			if c == '\n' {
				if strings.TrimLeft(heredocLine(s), "\t") == heredocWord(s) {
					s.Mode, s.Delim = shUnquoted, ""
				} else {
					s.Delim = heredocWord(s) + "\x00"
				}
			} else {
				s.Delim += string(c)
			}
		}
		prev = c
	}
	return s
}

// opener is the innermost nesting's opening character, 0 at the top.
func opener(s State) byte {
	if len(s.Stack) < 2 {
		return 0
	}
	return s.Stack[len(s.Stack)-2]
}

// pop returns to the mode saved with the innermost opener.
func pop(s State) State {
	if len(s.Stack) < 2 {
		s.Mode, s.Stack = shUnquoted, ""
		return s
	}
	s.Mode = s.Stack[len(s.Stack)-1] - '0'
	s.Stack = s.Stack[:len(s.Stack)-2]
	return s
}

func (Shell) Escaper(s State) (string, error) {
	switch s.Mode {
	case shUnquoted, shHeredocHeader:
		return FuncShell, nil
	case shSingle:
		return escShellSQ, nil
	case shDouble:
		return escShellDQ, nil
	case shComment:
		return escShellLine, nil
	}
	return "", fmt.Errorf("a value cannot be written inside a %s; pass it in the environment", Shell{}.Describe(s))
}

func (sh Shell) Accepts(s State, fn string) bool {
	name, err := sh.Escaper(s)
	return err == nil && fn == name
}
