// Package hooks runs a stack's lifecycle hooks (the BOSH drain proposal): a script or an
// HTTP endpoint the stack declares in schema.yaml, called before a transition that stops or
// removes the app or its data (drain) or after a deploy (post-deploy). Its answer says
// whether it is done, wants a wait, or wants to be called again.
package hooks

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Hook names a stack may declare.
const (
	Drain      = "drain"
	PostDeploy = "post-deploy"
)

// Names lists the hook names in the order messages list them.
var Names = []string{Drain, PostDeploy}

// Hook kinds: a script from the stack, or a POST to a templated URL.
const (
	KindExec = "exec"
	KindHTTP = "http"
)

// ScriptDir is the stack folder an exec hook's script must live in.
const ScriptDir = "hooks"

// MaxDeadline bounds a hook's overall deadline.
const MaxDeadline = 24 * time.Hour

// Spec is one hook as schema.yaml declares it.
type Spec struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`           // KindExec | KindHTTP
	Exec     string        `json:"exec,omitempty"` // relative to stacks/<name>/, under hooks/
	URL      string        `json:"url,omitempty"`  // a text/template over URLData
	Deadline time.Duration `json:"deadline"`       // for all calls of the hook together
}

// URLData is what an http hook's URL template sees.
type URLData struct {
	Tenant     string
	Name       string
	Parameters map[string]any
	Outputs    map[string]any
}

// Validate returns the spec's first problem as an *InvalidSpecError, or nil.
func (s Spec) Validate() error {
	if p := s.Problems(); len(p) > 0 {
		return p[0]
	}
	return nil
}

// Problems lists everything wrong with the spec, one *InvalidSpecError per field.
func (s Spec) Problems() []*InvalidSpecError {
	bad := func(field, format string, args ...any) *InvalidSpecError {
		return &InvalidSpecError{Hook: s.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if !slices.Contains(Names, s.Name) {
		return []*InvalidSpecError{bad("", "unknown hook; allowed: %s", strings.Join(Names, ", "))}
	}
	var out []*InvalidSpecError
	switch s.Kind {
	case KindExec:
		if s.URL != "" {
			out = append(out, bad(KindHTTP, "must not be set on an exec hook"))
		}
		if msg := checkScript(s.Exec); msg != "" {
			out = append(out, bad(KindExec, "%s", msg))
		}
	case KindHTTP:
		if s.Exec != "" {
			out = append(out, bad(KindExec, "must not be set on an http hook"))
		}
		if msg := checkURLTemplate(s.URL); msg != "" {
			out = append(out, bad(KindHTTP, "%s", msg))
		}
	default:
		out = append(out, bad("kind", "must be %s or %s, not %q", KindExec, KindHTTP, s.Kind))
	}
	switch {
	case s.Deadline <= 0:
		out = append(out, bad("deadline", "must be more than 0"))
	case s.Deadline > MaxDeadline:
		out = append(out, bad("deadline", "must be at most 24h, got %s", s.Deadline))
	}
	return out
}

// checkScript says what is wrong with an exec path, "" when nothing is.
func checkScript(p string) string {
	switch {
	case p == "":
		return "must not be empty"
	case path.IsAbs(p) || path.Clean(p) != p || !strings.HasPrefix(p, ScriptDir+"/"):
		return fmt.Sprintf("%q must be a clean relative path under %s/, like %s/drain.sh", p, ScriptDir, ScriptDir)
	case strings.HasSuffix(p, ".tmpl"):
		// A .tmpl file is rendered without its suffix: the instance directory has no such path.
		return fmt.Sprintf("%q must name the script as rendered, without .tmpl", p)
	}
	return ""
}
