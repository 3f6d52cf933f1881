package escaping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"
)

// Explicit escapers a stack may call by name; each is accepted only where it fits.
const (
	FuncHCL   = "quote"  // an HCL string literal
	FuncJSON  = "toJSON" // a JSON value, valid YAML too
	FuncShell = "sh"     // one shell word, single-quoted
)

// Escapers slipway appends to an action by its context; the names cannot collide with a stack's.
const (
	escHCLExpr        = "_slipway_hcl_expr"
	escHCLString      = "_slipway_hcl_string"
	escHCLHeredoc     = "_slipway_hcl_heredoc"
	escShellDQ        = "_slipway_sh_dq"
	escShellSQ        = "_slipway_sh_sq"
	escShellLine      = "_slipway_sh_line"
	escJSONString     = "_slipway_json_string"
	escYAMLValue      = "_slipway_yaml_value"
	escYAMLSingle     = "_slipway_yaml_single"
	escYAMLPlain      = "_slipway_yaml_plain"
	escYAMLBlock      = "_slipway_yaml_block"
	escYAMLBlockStart = "_slipway_yaml_block_start"
	escURLPath        = "_slipway_url_path"
	escURLQuery       = "_slipway_url_query"
	escURLFrag        = "_slipway_url_fragment"
)

// Funcs are the functions a stack's file templates may call, and the escapers Apply appends.
var Funcs = template.FuncMap{
	FuncHCL:       Quote,
	FuncJSON:      ToJSON,
	FuncShell:     ShellWord,
	escHCLExpr:    hclExpr,
	escHCLString:  hclString,
	escHCLHeredoc: hclHeredoc,
	escShellDQ:    shellDouble,
	escShellSQ:    shellSingle,
	escShellLine:  shellLine,
	escJSONString: jsonBody,
	escYAMLValue:  yamlValue,
	escYAMLSingle: yamlSingle,
	escYAMLPlain:  yamlPlainMid,
	escYAMLBlock:  yamlBlockLine,
	escYAMLBlockStart: func(v any) (string, error) {
		s, err := yamlBlockLine(v)
		if err == nil && (strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t")) {
			err = fmt.Errorf("a value that starts a line of a block scalar cannot start with a space or tab (%s)", excerpt(s))
		}
		return s, err
	},
	escURLPath:  PathSegment,
	escURLQuery: QueryValue,
	escURLFrag:  fragment,
}

// URLFuncs are the escapers of an http hook's URL template; it offers no funcs of its own.
var URLFuncs = template.FuncMap{escURLPath: PathSegment, escURLQuery: QueryValue, escURLFrag: fragment}

// escaperNames are every function above: a pipeline that ends in one of them was escaped.
var escaperNames = func() map[string]bool {
	m := map[string]bool{}
	for k := range Funcs {
		m[k] = true
	}
	m["urlquery"] = true // text/template's own
	return m
}()

func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// Quote returns v as a double-quoted HCL string literal. It reads like strconv.Quote, but
// uses only escapes HCL knows and doubles "${" and "%{" so HCL does not interpolate them.
func Quote(v any) string { return `"` + hclString(v) + `"` }

// hclString is the inside of an HCL string literal: see Quote.
func hclString(v any) string {
	s := text(v)
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteRune(r)
			b.WriteRune(r)
		case !unicode.IsPrint(r) && r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// hclExpr writes a value where HCL expects an expression: numbers and bools as themselves,
// everything else as a string literal.
func hclExpr(v any) (string, error) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", fmt.Errorf("%v is not a number HCL can hold", x)
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	}
	return Quote(v), nil
}

// hclHeredoc writes a value inside a heredoc, where no escape is read: interpolation is
// doubled, and a line break, which could end the heredoc, is refused.
func hclHeredoc(v any) (string, error) {
	s := strings.ToValidUTF8(text(v), "\ufffd")
	if strings.ContainsAny(s, "\r\n") {
		return "", fmt.Errorf("a value with a line break cannot be written inside a heredoc (%s)", excerpt(s))
	}
	s = strings.ReplaceAll(s, "${", "$${")
	return strings.ReplaceAll(s, "%{", "%%{"), nil
}

// ShellWord returns v as one single-quoted shell word: the shell expands nothing inside it.
func ShellWord(v any) (string, error) {
	s, err := noNUL(text(v))
	if err != nil {
		return "", err
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

// shellSingle writes a value inside '...': a quote closes, is escaped and reopens.
func shellSingle(v any) (string, error) {
	s, err := noNUL(text(v))
	return strings.ReplaceAll(s, "'", `'\''`), err
}

// shellDouble writes a value inside "...", where $, `, " and \ are still special.
func shellDouble(v any) (string, error) {
	s, err := noNUL(text(v))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range s {
		if r == '$' || r == '`' || r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// shellLine writes a value in a comment, which a line break would end.
func shellLine(v any) (string, error) {
	s, err := noNUL(text(v))
	if err == nil && strings.ContainsAny(s, "\r\n") {
		err = fmt.Errorf("a value with a line break cannot be written in a comment (%s)", excerpt(s))
	}
	return s, err
}

// noNUL refuses what a shell script cannot carry as text: NUL, and control characters
// other than tab and line break, which no parameter needs.
func noNUL(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("a value with a NUL byte cannot be written into a shell script (%s)", excerpt(s))
	}
	for _, r := range s {
		if r != '\t' && r != '\n' && (r < 0x20 || (r >= 0x7f && r <= 0x9f)) {
			return "", fmt.Errorf("a value with control character %U cannot be written into a shell script (%s)", r, excerpt(s))
		}
	}
	return s, nil
}

// ToJSON encodes v as compact JSON, valid YAML too. Strings escape every control and
// line-break character, so a value stays one scalar on one line.
func ToJSON(v any) (string, error) {
	if s, ok := v.(string); ok {
		return `"` + jsonBody(s) + `"`, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// plainWord is a string YAML and JSON-in-YAML read as itself when unquoted: a name.
var plainWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// yamlWords are plain words YAML 1.1 reads as something else.
var yamlWords = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true,
	"true": true, "false": true, "null": true}

// yamlValue writes a value where a YAML value starts: a plain name as itself (as a stack
// would write it), anything else as JSON.
func yamlValue(v any) (string, error) {
	if s, ok := v.(string); ok && plainWord.MatchString(s) && !yamlWords[s] {
		return s, nil
	}
	return ToJSON(v)
}

// jsonBody is the inside of a JSON (and YAML and jsonnet) double-quoted string.
func jsonBody(v any) string {
	s := text(v)
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x2028, r == 0x2029, r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// yamlSingle writes a value inside '...': a quote is doubled; a line break or control
// character, which single quotes cannot keep, is refused.
func yamlSingle(v any) (string, error) {
	s := text(v)
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError {
			return "", fmt.Errorf("a value with a control or line-break character cannot be written inside single quotes (%s); use double quotes", excerpt(s))
		}
	}
	return strings.ReplaceAll(s, "'", "''"), nil
}

// yamlBlockLine writes a value inside a line of a block scalar, where text is literal and only
// a line break (which could end the block) or a character YAML cannot hold would do harm.
func yamlBlockLine(v any) (string, error) {
	s := text(v)
	for _, r := range s {
		if (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError {
			return "", fmt.Errorf("a value with a line break or control character cannot be written inside a block scalar (%s)", excerpt(s))
		}
	}
	return s, nil
}

// plainSafe is what may continue a plain YAML scalar unquoted.
var plainSafe = regexp.MustCompile(`^[A-Za-z0-9._/+=@-]*$`)

// yamlPlainMid writes a value in the middle of a plain scalar, where only harmless
// characters keep their meaning.
func yamlPlainMid(v any) (string, error) {
	s := text(v)
	if s == "" || !plainSafe.MatchString(s) {
		return "", fmt.Errorf("%s cannot be written inside an unquoted YAML scalar (only letters, digits and ._/+=@-); put the whole scalar in double quotes", excerpt(s))
	}
	return s, nil
}

// PathSegment escapes v as one URL path segment: a '/', '?' or '#' in it stays data, and
// "." and "..", which would move along the path, are refused.
func PathSegment(v any) (string, error) {
	s := text(v)
	if s == "." || s == ".." {
		return "", fmt.Errorf("%q cannot be a URL path segment", s)
	}
	return url.PathEscape(s), nil
}

// QueryValue escapes v as a URL query value (or fragment).
func QueryValue(v any) string { return url.QueryEscape(text(v)) }

// fragment escapes v as a URL fragment, where '+' is no space.
func fragment(v any) string { return url.PathEscape(text(v)) }

// excerpt quotes the start of a value for an error message.
func excerpt(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
