package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slipway-dev/slipway/internal/names"
)

// semverRE is a release version: MAJOR.MINOR.PATCH with an optional -prerelease (semver.org, no build metadata).
var semverRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// IsVersion says whether s is a release version (semver: 1.5.0, 2.0.0-rc.1).
func IsVersion(s string) bool { return semverRE.MatchString(s) }

// ParseStackRef splits an instance's stack: field: "web" (unpinned), "web@1.5.0" (a release)
// or "web@stable" (a channel). A bad value is a *ValidationError naming the field stack.
func ParseStackRef(s string) (name, release string, err error) {
	name, release, pinned := strings.Cut(s, "@")
	switch {
	case name == "":
		err = fieldErr("stack", "is required (got %q)", s)
	case !names.IsLabel(name):
		// The name becomes a path (stacks/<name>), so it must be a plain label.
		err = fieldErr("stack", "%q %s", name, names.LabelRule)
	case pinned && !IsVersion(release) && !names.IsLabel(release):
		err = fieldErr("stack", "%q: after @ comes a release version (1.5.0) or a channel name (stable), got %q", s, release)
	}
	return name, release, err
}

// StackName is the bare name of the instance's stack (web for web@1.5.0): its directory stacks/<name>.
func (i *Instance) StackName() string {
	name, _, _ := strings.Cut(i.Stack, "@")
	return name
}

// Release is the release or channel the instance pins ("" when unpinned).
func (i *Instance) Release() string {
	_, r, _ := strings.Cut(i.Stack, "@")
	return r
}

func fieldErr(field, format string, args ...any) *ValidationError {
	return &ValidationError{Errors: []FieldError{{Field: field, Message: fmt.Sprintf(format, args...)}}}
}
