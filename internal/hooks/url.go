package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"text/template"

	"github.com/slipway-dev/slipway/internal/escaping"
)

// urlTenant are the URL data that come from the tenant: parameters and terraform outputs.
var urlTenant = []string{"Parameters", "Outputs"}

// checkURLTemplate says what is wrong with an http hook's URL template, "" when nothing is.
func checkURLTemplate(text string) string {
	if strings.TrimSpace(text) == "" {
		return "must not be empty"
	}
	if _, err := parseURL(text); err != nil {
		if ee, ok := errors.AsType[*escaping.Error](err); ok {
			return ee.Message // a URL is one line: its field says where
		}
		return err.Error()
	}
	if _, err := literalOrigin(text); err != nil {
		return err.Error()
	}
	return ""
}

// literalOrigin is the scheme and host the stack writes out before the first action: the
// only place an http hook may go.
func literalOrigin(text string) (*url.URL, error) {
	lit, _, _ := strings.Cut(text, "{{")
	lower := strings.ToLower(lit)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return nil, fmt.Errorf("%q must start with http:// or https://", truncate(text, maxQuoted))
	}
	u, err := url.Parse(lit)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q must name its host before any {{ }}", truncate(text, maxQuoted))
	}
	return u, nil
}

// parseURL parses an http hook's URL template and escapes each value for the part of the URL
// it lands in (a path segment, a query value); a value in the scheme, host or port is refused.
// It takes no funcs of its own, so every caller renders a URL the same way.
func parseURL(text string) (*template.Template, error) {
	t, err := template.New("url").Option("missingkey=error").Funcs(escaping.URLFuncs).Parse(text)
	if err != nil {
		return nil, err
	}
	if err := escaping.Apply(t, escaping.URL{}, escaping.Options{Tenant: urlTenant}); err != nil {
		return nil, err
	}
	return t, nil
}

// Render renders an http hook's URL template with missingkey=error, each value escaped for
// its part of the URL; the result goes to the host the stack wrote out, or it is an error.
func Render(tmpl string, d URLData) (string, error) {
	t, err := parseURL(tmpl)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return "", err
	}
	origin, err := literalOrigin(tmpl)
	if err != nil {
		return "", err
	}
	got, err := url.Parse(buf.String())
	if err != nil || !strings.EqualFold(got.Scheme, origin.Scheme) || !strings.EqualFold(got.Host, origin.Host) || got.User.String() != origin.User.String() {
		return "", fmt.Errorf("the rendered URL does not go to %s://%s, the host the stack names", origin.Scheme, origin.Host)
	}
	return buf.String(), nil
}
