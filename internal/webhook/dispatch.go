package webhook

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Response is the JSON body of every answer to a valid delivery.
type Response struct {
	Delivery  string `json:"delivery"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Ignored   string `json:"ignored,omitempty"`
	// Accepted: the delivery is recorded; its commands are carried out after this answer.
	Accepted bool `json:"accepted,omitempty"`
	// Workflow is the delivery's record; its result lists each command's outcome (`slipway events`).
	Workflow string `json:"workflow,omitempty"`
	// Commands counts the commands recorded; a merged PR's are read from the repo afterwards.
	Commands int       `json:"commands"`
	Note     string    `json:"note,omitempty"`
	Refused  []Refused `json:"refused,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Refused is a command or change that will not start, and why.
type Refused struct {
	Instance  string `json:"instance,omitempty"`
	Operation string `json:"operation,omitempty"`
	Error     string `json:"error"`
}

// Bounds on what one delivery may make the server record and answer: a push is attacker-sized
// (one refusal per line of a 0.9 MB message once made a 6.9 MB record Temporal refused).
const (
	maxCommands     = 100 // commands recorded per delivery
	maxRefused      = 20  // refusals listed per delivery; the rest are counted in one more
	maxRefusalBytes = 300 // bytes of one refusal's message
	maxNameBytes    = 200 // bytes of a user or author name
)

// shaRE is a commit ID as forges send it; anything else would key a request or name a revision.
var shaRE = regexp.MustCompile(`^[0-9a-fA-F]{1,64}$`)

// plan turns an event into the delivery to record, or says why there is nothing to record:
// Ignored for events that ask for nothing, Refused (with a nil delivery) when every command
// is malformed or not allowed. It does no I/O, so the answer never waits on a forge or a worker.
func (s *Server) plan(ev *Event) (*contract.Delivery, Response) {
	resp := Response{Delivery: ev.DeliveryID}
	d := &contract.Delivery{Provider: ev.Provider, ID: ev.DeliveryID, AllowDeprovision: s.o.AllowDeprovision,
		User: clip(ev.User, maxNameBytes), UserID: clip(ev.UserID, maxNameBytes),
		Actor: fmt.Sprintf("%s via %s %s (%s delivery %s)", clip(first(ev.User, "unknown user"), maxNameBytes), ev.Provider, ev.Kind, s.o.Actor, ev.DeliveryID)}
	if ev.Kind != EventIgnored && !s.repos[ev.Provider][strings.ToLower(ev.Repo)] {
		return s.foreign(ev, d, resp)
	}
	switch {
	case ev.Kind == EventIgnored:
		resp.Ignored = ev.Reason
		return nil, resp
	case ev.Kind == EventComment:
		// Comments carry no branch: the MR's title names the instance instead.
		return planComment(ev.Comment, d, resp)
	case ev.Branch != s.o.Branch:
		resp.Ignored = fmt.Sprintf("%s to %q, not %q", ev.Kind, ev.Branch, s.o.Branch)
		return nil, resp
	case ev.Kind == EventMerge && strings.HasPrefix(ev.HeadBranch, "slipway/"):
		resp.Ignored = "merge of slipway's own MR " + ev.HeadBranch
		return nil, resp
	case ev.Kind == EventMerge && (!shaRE.MatchString(ev.BaseSHA) || !shaRE.MatchString(ev.MergeSHA)):
		resp.Refused = []Refused{{Error: fmt.Sprintf("merged %s request without base and merge commits: cannot tell which instances changed", ev.Provider)}}
		return nil, resp
	case ev.Kind == EventMerge:
		d.Merge = &contract.MergeRange{Base: ev.BaseSHA, Merge: ev.MergeSHA, Repo: ev.Repo, Author: clip(ev.PRAuthor, maxNameBytes)}
		resp.Note = "the instances this merge adds, changes or removes are read from the repository after this answer"
		return d, resp
	}
	var refused refusals
	policy := false // a well-formed command the operator has not allowed: recorded, so the attempt shows
	for _, c := range ev.Commits {
		cmds, errs := ParseCommands(c.Message)
		if (len(cmds) > 0 || len(errs) > 0) && !shaRE.MatchString(c.ID) {
			refused.add(Refused{Error: fmt.Sprintf("commit %q: not a commit ID (at most 64 hex digits)", clip(c.ID, 80))})
			continue
		}
		for _, err := range errs {
			refused.add(Refused{Error: fmt.Sprintf("commit %s: %v", short(c.ID), err)})
		}
		for _, cmd := range cmds {
			switch {
			case !s.ops[cmd.Op]:
				policy = true
				refused.add(Refused{Instance: cmd.Ref.String(), Operation: string(cmd.Op),
					Error: fmt.Sprintf("commit %s: %s from a commit message is off (the operator allows it with --commit-ops)", short(c.ID), cmd.Op)})
			case len(d.Commands) >= maxCommands:
				refused.add(Refused{Instance: cmd.Ref.String(), Operation: string(cmd.Op),
					Error: fmt.Sprintf("commit %s: over %d commands in one delivery", short(c.ID), maxCommands)})
			default:
				d.Commands = append(d.Commands, contract.DeliveryCommand{Operation: string(cmd.Op), Ref: cmd.Ref, Rev: c.ID,
					Repo: ev.Repo, Author: clip(c.Author, maxNameBytes)})
			}
		}
	}
	if s.localCreates(ev, d, &refused) {
		policy = true
	}
	resp.Refused = refused.list()
	for _, r := range resp.Refused {
		d.Refused = append(d.Refused, contract.DeliveryOutcome{Instance: r.Instance, Operation: r.Operation, Error: r.Error})
	}
	resp.Commands = len(d.Commands)
	switch {
	case len(d.Commands) > 0 || policy:
		return d, resp
	case len(resp.Refused) > 0:
		return nil, resp
	}
	resp.Ignored = "no [slipway][operation] lines and no instance file added"
	return nil, resp
}

// foreign answers a delivery from a repository outside the allow-list: it starts nothing. One
// that carries slipway commands is recorded with the reason, so `slipway events` shows the attempt.
func (s *Server) foreign(ev *Event, d *contract.Delivery, resp Response) (*contract.Delivery, Response) {
	allowed := make([]string, 0, len(s.repos[ev.Provider]))
	for r := range s.repos[ev.Provider] {
		allowed = append(allowed, r)
	}
	sort.Strings(allowed)
	resp.Ignored = fmt.Sprintf("repository %q is not allowed for %s webhooks (allowed: %s)", clip(ev.Repo, maxNameBytes), ev.Provider, strings.Join(allowed, ", "))
	asks := false
	switch ev.Kind {
	case EventPush:
		for _, c := range ev.Commits {
			cmds, errs := ParseCommands(c.Message)
			asks = asks || len(cmds) > 0 || len(errs) > 0
		}
	case EventComment:
		cmds, errs := ParseApprovals(ev.Comment.Body)
		asks = len(cmds) > 0 || len(errs) > 0
	}
	if !asks {
		return nil, resp
	}
	d.Refused = []contract.DeliveryOutcome{{Error: "ignored: " + resp.Ignored}}
	return d, resp
}

// refusals keeps the first maxRefused refusals, each clipped, and counts the rest.
type refusals struct {
	kept []Refused
	more int
}

func (r *refusals) add(x Refused) {
	if len(r.kept) >= maxRefused {
		r.more++
		return
	}
	x.Error = clip(x.Error, maxRefusalBytes)
	r.kept = append(r.kept, x)
}

func (r *refusals) list() []Refused {
	if r.more == 0 {
		return r.kept
	}
	return append(r.kept, Refused{Error: fmt.Sprintf("%d more refused (not listed)", r.more)})
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// planComment turns an MR/PR comment's `/slipway approve|reject` lines into the delivery's
// approvals, each carrying its commenter for the instance to check against its approvers.
func planComment(c *Comment, d *contract.Delivery, resp Response) (*contract.Delivery, Response) {
	cmds, errs := ParseApprovals(c.Body)
	if len(cmds) == 0 && len(errs) == 0 {
		resp.Ignored = "comment has no /slipway command"
		return nil, resp
	}
	ref, ok := InstanceOfTitle(c.Title)
	if !ok {
		resp.Ignored = fmt.Sprintf("not a slipway MR: MR %s is titled %q, not \"slipway: <operation> <tenant>/<name>\"", c.MR, c.Title)
		return nil, resp
	}
	where := fmt.Sprintf("comment by %s on MR %s", clip(c.Author, maxNameBytes), c.MR)
	var refused refusals
	for _, err := range errs {
		refused.add(Refused{Instance: ref.String(), Error: fmt.Sprintf("%s: %v", where, err)})
	}
	if c.Author == "" && len(cmds) > 0 {
		// Approvers are checked against the commenter: without one nothing can be approved.
		refused.add(Refused{Instance: ref.String(), Error: "comment on MR " + c.MR + " has no author: its /slipway commands cannot be checked against the approvers"})
		cmds = nil
	}
	if len(cmds) > maxCommands {
		refused.add(Refused{Instance: ref.String(), Error: fmt.Sprintf("%s: over %d /slipway commands in one comment", where, maxCommands)})
		cmds = cmds[:maxCommands]
	}
	resp.Refused = refused.list()
	for _, a := range cmds {
		d.Approvals = append(d.Approvals, contract.ApprovalCommand{Ref: ref, Verb: a.Verb, Plan: a.Plan, Reason: clip(a.Reason, maxRefusalBytes),
			Commenter: c.Author, CommenterID: clip(c.AuthorID, maxNameBytes), MR: clip(c.MR, maxNameBytes), URL: clip(c.URL, maxNameBytes)})
	}
	for _, r := range resp.Refused {
		d.Refused = append(d.Refused, contract.DeliveryOutcome{Instance: r.Instance, Operation: r.Operation, Error: r.Error})
	}
	resp.Commands = len(d.Approvals)
	if len(d.Approvals) == 0 {
		return nil, resp
	}
	return d, resp
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// instanceFileRE is an instance's config file in the GitOps repository.
var instanceFileRE = regexp.MustCompile(`^instances/([^/]+)/([^/]+)/instance\.yaml$`)

// prMergeRE is a merge commit GitHub, Gitea/Forgejo or GitLab writes when it merges a pull or
// merge request: such a push is the merge event's (slipway's own MRs among them), never a local create.
var prMergeRE = regexp.MustCompile(`(?m)^(Merge pull request |See merge request )`)

// localCreates adds Grove's local create: each instances/<t>/<n>/instance.yaml a push to main adds
// without a command line for it becomes a provision that adopts the push's head commit (no MR).
// It reports whether it refused one the operator has not allowed, so the attempt is recorded.
func (s *Server) localCreates(ev *Event, d *contract.Delivery, refused *refusals) (policy bool) {
	if ev.Kind != EventPush {
		return false
	}
	for _, c := range ev.Commits {
		if prMergeRE.MatchString(c.Message) {
			return false
		}
	}
	named := map[string]bool{}
	for _, c := range d.Commands {
		named[c.Ref.String()] = true
	}
	for _, c := range ev.Commits {
		for _, path := range c.Added {
			m := instanceFileRE.FindStringSubmatch(path)
			if m == nil {
				continue
			}
			ref, err := contract.ParseRef(m[1] + "/" + m[2])
			switch {
			case err != nil:
				refused.add(Refused{Operation: string(lifecycle.OpProvision), Error: fmt.Sprintf("commit %s adds %s: %v", short(c.ID), clip(path, maxNameBytes), err)})
				continue
			case named[ref.String()]:
				continue
			}
			r := contract.Ref{Tenant: ref.Tenant, Name: ref.Name}
			named[r.String()] = true
			switch {
			case !shaRE.MatchString(ev.After):
				refused.add(Refused{Instance: r.String(), Operation: string(lifecycle.OpProvision),
					Error: fmt.Sprintf("push adding %s names no head commit: cannot pin the config", path)})
			case !s.ops[lifecycle.OpProvision]:
				policy = true
				refused.add(Refused{Instance: r.String(), Operation: string(lifecycle.OpProvision),
					Error: fmt.Sprintf("commit %s adds %s: create from a push is off (the operator allows it with --commit-ops)", short(c.ID), path)})
			case len(d.Commands) >= maxCommands:
				refused.add(Refused{Instance: r.String(), Operation: string(lifecycle.OpProvision),
					Error: fmt.Sprintf("commit %s: over %d commands in one delivery", short(c.ID), maxCommands)})
			default:
				d.Commands = append(d.Commands, contract.DeliveryCommand{Operation: string(lifecycle.OpProvision), Ref: r,
					Rev: ev.After, Repo: ev.Repo, Author: clip(c.Author, maxNameBytes), Adopt: true})
			}
		}
	}
	return policy
}
