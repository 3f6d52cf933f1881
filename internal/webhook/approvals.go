package webhook

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Approval is one `/slipway approve [HASH]` or `/slipway reject REASON` line of an MR/PR comment.
type Approval struct {
	Verb   string // contract.VerbApprove or contract.VerbReject
	Plan   string // approve: the plan hash or prefix named, "" for any
	Reason string // reject: the rest of the line
}

// approvalRE finds `/slipway` lines; a quoted reply ("> /slipway approve") starts with ">" so
// quoting someone's approval never approves again.
var approvalRE = regexp.MustCompile(`(?i)^\s*/slipway(?:\s+(.*))?$`)

// planHashRE is a plan hash or a prefix long enough to name one plan (as git abbreviates commits).
var planHashRE = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// ParseApprovals reads every `/slipway` line of a comment, in order. Lines that start with
// `/slipway` but are not a valid command come back as errors naming the line.
func ParseApprovals(body string) ([]Approval, []error) {
	var cmds []Approval
	var errs []error
	for i, line := range strings.Split(body, "\n") {
		m := approvalRE.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		verb, rest := strings.TrimSpace(m[1]), ""
		if sp := strings.IndexFunc(verb, unicode.IsSpace); sp >= 0 {
			verb, rest = verb[:sp], strings.TrimSpace(verb[sp:])
		}
		switch strings.ToLower(verb) {
		case contract.VerbApprove:
			if strings.ContainsFunc(rest, unicode.IsSpace) {
				errs = append(errs, fmt.Errorf("line %d: /slipway approve takes at most one plan hash, not %q", i+1, rest))
				continue
			}
			if rest != "" && !planHashRE.MatchString(rest) {
				errs = append(errs, fmt.Errorf("line %d: %q is not a plan hash (7 to 64 lowercase hex characters)", i+1, rest))
				continue
			}
			cmds = append(cmds, Approval{Verb: contract.VerbApprove, Plan: rest})
		case contract.VerbReject:
			if rest == "" {
				errs = append(errs, fmt.Errorf("line %d: /slipway reject needs a reason: /slipway reject <reason>", i+1))
				continue
			}
			cmds = append(cmds, Approval{Verb: contract.VerbReject, Reason: rest})
		case "":
			errs = append(errs, fmt.Errorf("line %d: /slipway needs a verb (one of %s, %s)", i+1, contract.VerbApprove, contract.VerbReject))
		default:
			errs = append(errs, fmt.Errorf("line %d: %q is not a /slipway verb (one of %s, %s)", i+1, verb, contract.VerbApprove, contract.VerbReject))
		}
	}
	return cmds, errs
}

// titleRE matches the title activities.OpenMergeRequest gives slipway's MRs.
var titleRE = regexp.MustCompile(`^slipway: ([a-z][a-z-]*) (\S+)$`)

// InstanceOfTitle is the instance a slipway MR/PR title (`slipway: <operation> <tenant>/<name>`)
// names; false for any other title.
func InstanceOfTitle(title string) (contract.Ref, bool) {
	m := titleRE.FindStringSubmatch(strings.TrimSpace(title))
	if m == nil {
		return contract.Ref{}, false
	}
	ref, err := contract.ParseRef(m[2])
	if err != nil {
		return contract.Ref{}, false
	}
	return contract.Ref{Tenant: ref.Tenant, Name: ref.Name}, true
}
