// Package gates names scheduling gates (Datum's schedulingGates): while an instance has one,
// nothing provisions or deploys it. A manual gate is a label that a person removes; a built-in
// gate is KIND:ARG and clears itself when its condition holds. Pure data, shared by the
// instance file, the CLI and the workflows.
package gates

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// KindInstance is the built-in gate instance:TENANT/NAME, cleared when that instance is Ready
// (the analogue of Datum's Network gate, which waits for a network to be ready).
const KindInstance = "instance"

// Kinds are the built-in gate kinds.
var Kinds = []string{KindInstance}

// Spec is one gate as an instance file or the CLI gives it.
type Spec struct {
	Name    string        `json:"name"`
	Timeout time.Duration `json:"timeout,omitempty"` // 0: waits until removed or cleared
}

var (
	labelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	refRE   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
)

// Check says what is wrong with a gate name: a label (a manual gate) or KIND:ARG of a known kind.
func Check(name string) error {
	kind, arg, builtin := strings.Cut(name, ":")
	switch {
	case !builtin && labelRE.MatchString(name):
		return nil
	case !builtin:
		return fmt.Errorf("gate %q: a manual gate is a lowercase label (a-z, 0-9, -); a built-in one is KIND:ARG", name)
	case kind != KindInstance:
		return fmt.Errorf("gate %q: unknown gate kind %q; the built-in kinds are: %s", name, kind, strings.Join(Kinds, ", "))
	case !refRE.MatchString(arg):
		return fmt.Errorf("gate %q: instance:TENANT/NAME names the instance whose Ready clears it", name)
	}
	return nil
}

// Instance is the TENANT/NAME an instance gate waits for; ok is false for other gates.
func Instance(name string) (ref string, ok bool) {
	kind, arg, builtin := strings.Cut(name, ":")
	if !builtin || kind != KindInstance {
		return "", false
	}
	return arg, true
}

// CheckTenant refuses an instance gate, on an instance of tenant, that names another tenant's
// instance: the target answers its watchers with its state and failures, which are its tenant's.
func CheckTenant(tenant, name string) error {
	ref, ok := Instance(name)
	if target, _, _ := strings.Cut(ref, "/"); ok && target != tenant {
		return fmt.Errorf("gate %q names an instance of tenant %s: an instance gate waits for an instance of its own tenant (tenant %s)", name, target, tenant)
	}
	return nil
}

// CheckTimeout refuses a negative timeout.
func CheckTimeout(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("gate %q: timeout must not be negative, got %s", name, d)
	}
	return nil
}
