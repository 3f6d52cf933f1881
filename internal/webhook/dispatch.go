package webhook

import (
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
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

// plan turns an event into the delivery to record, or says why there is nothing to record:
// Ignored for events that ask for nothing, Refused (with a nil delivery) when every command
// is malformed or not allowed. It does no I/O, so the answer never waits on a forge or a worker.
func (s *Server) plan(ev *Event) (*steps.Delivery, Response) {
	resp := Response{Delivery: ev.DeliveryID}
	d := &steps.Delivery{Provider: ev.Provider, ID: ev.DeliveryID, AllowDeprovision: s.o.AllowDeprovision,
		Actor: fmt.Sprintf("%s/%s (%s webhook)", s.o.Actor, ev.Provider, ev.DeliveryID)}
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
	case ev.Kind == EventMerge && (ev.BaseSHA == "" || ev.MergeSHA == ""):
		resp.Refused = []Refused{{Error: fmt.Sprintf("merged %s request without base and merge commits: cannot tell which instances changed", ev.Provider)}}
		return nil, resp
	case ev.Kind == EventMerge:
		d.Merge = &steps.MergeRange{Base: ev.BaseSHA, Merge: ev.MergeSHA}
		resp.Note = "the instances this merge adds, changes or removes are read from the repository after this answer"
		return d, resp
	}
	for _, c := range ev.Commits {
		cmds, errs := ParseCommands(c.Message)
		for _, err := range errs {
			resp.Refused = append(resp.Refused, Refused{Error: fmt.Sprintf("commit %s: %v", short(c.ID), err)})
		}
		for _, cmd := range cmds {
			if cmd.Op == lifecycle.OpDeprovision && !s.o.AllowDeprovision {
				resp.Refused = append(resp.Refused, Refused{Instance: cmd.Ref.String(), Operation: string(cmd.Op),
					Error: "deprovision from a webhook is disabled (serve with --allow-deprovision)"})
				continue
			}
			d.Commands = append(d.Commands, steps.DeliveryCommand{Operation: string(cmd.Op), Ref: cmd.Ref, Rev: c.ID})
		}
	}
	for _, r := range resp.Refused {
		d.Refused = append(d.Refused, steps.DeliveryOutcome{Instance: r.Instance, Operation: r.Operation, Error: r.Error})
	}
	resp.Commands = len(d.Commands)
	switch {
	case len(d.Commands) > 0:
		return d, resp
	case len(resp.Refused) > 0:
		return nil, resp
	}
	resp.Ignored = "no [slipway][operation] lines"
	return nil, resp
}

// planComment turns an MR/PR comment's `/slipway approve|reject` lines into the delivery's
// approvals, each carrying its commenter for the instance to check against its approvers.
func planComment(c *Comment, d *steps.Delivery, resp Response) (*steps.Delivery, Response) {
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
	where := fmt.Sprintf("comment by %s on MR %s", c.Author, c.MR)
	for _, err := range errs {
		resp.Refused = append(resp.Refused, Refused{Instance: ref.String(), Error: fmt.Sprintf("%s: %v", where, err)})
	}
	if c.Author == "" && len(cmds) > 0 {
		// Approvers are checked against the commenter: without one nothing can be approved.
		resp.Refused = append(resp.Refused, Refused{Instance: ref.String(), Error: "comment on MR " + c.MR + " has no author: its /slipway commands cannot be checked against the approvers"})
		cmds = nil
	}
	for _, a := range cmds {
		d.Approvals = append(d.Approvals, steps.ApprovalCommand{Ref: ref, Verb: a.Verb, Plan: a.Plan, Reason: a.Reason,
			Commenter: c.Author, MR: c.MR, URL: c.URL})
	}
	for _, r := range resp.Refused {
		d.Refused = append(d.Refused, steps.DeliveryOutcome{Instance: r.Instance, Operation: r.Operation, Error: r.Error})
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
