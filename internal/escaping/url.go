package escaping

import (
	"fmt"
	"strings"
)

// URL modes.
const (
	urlPrefix uint8 = iota // scheme, user info, host and port: literal text only
	urlPath
	urlQuery
	urlFragment
)

// URL is an http URL whose scheme and authority are the stack's literal text: values go only
// into path segments, query values and the fragment, each escaped for its part.
type URL struct{}

func (URL) Name() string { return "URL" }
func (URL) Start() State { return State{} }

func (URL) Describe(s State) string {
	return [...]string{"URL's scheme, host or port", "URL path", "URL query", "URL fragment"}[s.Mode]
}

func (URL) Scan(s State, text string) State {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch s.Mode {
		case urlPrefix:
			s.Delim += string(c)
			_, after, ok := strings.Cut(s.Delim, "://")
			switch {
			case !ok || after == "":
			case c == '/':
				s.Mode, s.Delim = urlPath, ""
			case c == '?':
				s.Mode, s.Delim = urlQuery, ""
			case c == '#':
				s.Mode, s.Delim = urlFragment, ""
			}
		case urlPath:
			switch c {
			case '?':
				s.Mode = urlQuery
			case '#':
				s.Mode = urlFragment
			}
		case urlQuery:
			if c == '#' {
				s.Mode = urlFragment
			}
		}
	}
	return s
}

func (URL) Escaper(s State) (string, error) {
	switch s.Mode {
	case urlPath:
		return escURLPath, nil
	case urlQuery:
		return escURLQuery, nil
	case urlFragment:
		return escURLFrag, nil
	}
	return "", fmt.Errorf("the URL's scheme, host and port must be written out in the stack, ending in / (or ? or #) before the first {{ }}: a template value there could send the request anywhere; values may go into the path and the query")
}

func (u URL) Accepts(s State, fn string) bool {
	if fn == "urlquery" && (s.Mode == urlQuery || s.Mode == urlFragment) {
		return true
	}
	name, err := u.Escaper(s)
	return err == nil && fn == name
}
