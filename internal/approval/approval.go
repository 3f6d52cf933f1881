// Package approval decides when an operation must wait for a person to approve its plan,
// and checks an approval against the plan it names. It is pure: no I/O, table-tested.
package approval

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Policy says which operations wait for approval.
type Policy string

const (
	Never       Policy = "never"
	Destructive Policy = "destructive" // a plan that deletes or replaces, or archive, destroy, deprovision
	Always      Policy = "always"
)

// Timeouts: how long an operation waits for approval before it ends unapproved.
const (
	DefaultTimeout = 24 * time.Hour
	MaxTimeout     = 30 * 24 * time.Hour
	// MinHashPrefix is the shortest plan hash prefix an approval may name.
	MinHashPrefix = 7
)

// Policies lists the policies in the order help texts name them.
var Policies = []Policy{Never, Destructive, Always}

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (Policy, error) {
	p := Policy(strings.TrimSpace(s))
	if !slices.Contains(Policies, p) {
		return "", fmt.Errorf("%q is not a policy; use never, destructive or always", s)
	}
	return p, nil
}

// CheckTimeout accepts a positive timeout up to MaxTimeout (0 means the default).
func CheckTimeout(d time.Duration) error {
	if d < 0 || d > MaxTimeout {
		return fmt.Errorf("%s must be between 0 (the default, %s) and %s", d, DefaultTimeout, MaxTimeout)
	}
	return nil
}

// Rule is the approval policy in force for one instance: the stack's, tightened by the
// instance file's fields that are set.
type Rule struct {
	Policy    Policy        `json:"policy,omitempty" yaml:"policy,omitempty"`
	Approvers []string      `json:"approvers,omitempty" yaml:"approvers,omitempty"`
	Timeout   time.Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// Over returns r with the fields o sets taking their place where they tighten it (the instance
// over the stack): a stricter policy, a subset of r's approvers, a shorter timeout. A field that
// would weaken r is left as r has it, so an instance file edited on main never loosens the
// stack's rule; Weakens names such fields, for refusing them as bad input.
func (r Rule) Over(o Rule) Rule {
	if o.Policy != "" && rank(o.Policy) > rank(r.Policy) {
		r.Policy = o.Policy
	}
	if o.Approvers != nil && subset(o.Approvers, r.Approvers) {
		r.Approvers = o.Approvers
	}
	if o.Timeout != 0 && o.Timeout < r.Wait() {
		r.Timeout = o.Timeout
	}
	return r
}

// Weakening is a field of an instance's rule that would loosen the stack's.
type Weakening struct {
	Field   string // approval.policy, approval.approvers or approval.timeout
	Message string
}

// Weakens lists the fields of o (the instance's rule) that would loosen r (the stack's): a weaker
// policy, an approver r does not name or any approvers when r names none (the stack's operators
// approve, not the tenant's choice), an empty list, or a longer timeout.
func (r Rule) Weakens(o Rule) []Weakening {
	var out []Weakening
	if o.Policy != "" && rank(o.Policy) < rank(r.Policy) {
		out = append(out, Weakening{"approval.policy", fmt.Sprintf("%s is weaker than the stack's %s: an instance may only ask for more approval (never < destructive < always)",
			o.Policy, r.policy())})
	}
	switch {
	case o.Approvers == nil:
	case len(r.Approvers) == 0:
		out = append(out, Weakening{"approval.approvers", "the stack names no approvers, so its operators approve: an instance may not choose who approves"})
	case len(o.Approvers) == 0:
		out = append(out, Weakening{"approval.approvers", "an empty list would let anyone approve; the stack's approvers are " + strings.Join(r.Approvers, ", ")})
	case !subset(o.Approvers, r.Approvers):
		out = append(out, Weakening{"approval.approvers", fmt.Sprintf("%s not among the stack's approvers (%s): an instance may only narrow the list",
			strings.Join(missing(o.Approvers, r.Approvers), ", "), strings.Join(r.Approvers, ", "))})
	}
	if o.Timeout != 0 && o.Timeout > r.Wait() {
		out = append(out, Weakening{"approval.timeout", fmt.Sprintf("%s is longer than the stack's %s: an instance may only shorten it", o.Timeout, r.Wait())})
	}
	return out
}

// rank orders the policies by how much they ask for; unset is never.
func rank(p Policy) int {
	return max(slices.Index(Policies, p), 0)
}

func (r Rule) policy() Policy {
	if r.Policy == "" {
		return Never
	}
	return r.Policy
}

// subset reports whether some is a non-empty list of names all in of; an empty of allows none.
func subset(some, of []string) bool {
	return len(some) > 0 && len(missing(some, of)) == 0
}

func missing(some, of []string) []string {
	var out []string
	for _, a := range some {
		if !slices.Contains(of, a) {
			out = append(out, a)
		}
	}
	return out
}

// Wait is how long an operation waits for approval under r.
func (r Rule) Wait() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

// removes are the operations that stop or remove the app or its data.
var removes = []lifecycle.Operation{lifecycle.OpArchive, lifecycle.OpDestroy, lifecycle.OpDeprovision}

// Needs says whether op, whose plan deletes or replaces the resources removed, waits for
// approval under r, and why.
func (r Rule) Needs(op lifecycle.Operation, removed []string) (bool, string) {
	switch r.Policy {
	case Always:
		return true, "approval: always"
	case Destructive:
		if slices.Contains(removes, op) {
			return true, fmt.Sprintf("approval: destructive, and %s removes the app or its data", op)
		}
		if len(removed) > 0 {
			return true, "approval: destructive, and the plan deletes or replaces " + strings.Join(removed, ", ")
		}
	}
	return false, ""
}

var hexRE = regexp.MustCompile(`^[0-9a-f]+$`)

// CheckHash accepts a plan hash or a prefix of one that an operator may type.
func CheckHash(h string) error {
	if len(h) < MinHashPrefix || len(h) > 64 || !hexRE.MatchString(h) {
		return fmt.Errorf("%q is not a plan hash: give at least %d of its lowercase hex digits", h, MinHashPrefix)
	}
	return nil
}

// Names reports whether given names the plan hash want.
func Names(want, given string) bool {
	return CheckHash(given) == nil && strings.HasPrefix(want, given)
}

// Allows says whether actor may approve under r: anyone when no approvers are listed; else an
// approver by name, by the user part of a CLI actor (alice@host), or as a forge login.
func (r Rule) Allows(actor string) bool {
	if len(r.Approvers) == 0 {
		return true
	}
	user, _, _ := strings.Cut(actor, "@")
	for _, a := range r.Approvers {
		if a == actor || a == user {
			return true
		}
	}
	return false
}
