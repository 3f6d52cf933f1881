package webhook

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// Response is the JSON body of every answer to a valid delivery.
type Response struct {
	Delivery  string    `json:"delivery"`
	Duplicate bool      `json:"duplicate,omitempty"`
	Ignored   string    `json:"ignored,omitempty"`
	Started   []Started `json:"started,omitempty"`
	Refused   []Refused `json:"refused,omitempty"`
}

// Started is a request an instance accepted.
type Started struct {
	Instance  string `json:"instance"`
	Operation string `json:"operation"`
	Workflow  string `json:"workflow"`
	Request   string `json:"request"`
}

// Refused is a command or change that started nothing, and why.
type Refused struct {
	Instance  string `json:"instance,omitempty"`
	Operation string `json:"operation,omitempty"`
	Error     string `json:"error"`
}

// request is one operation a delivery asks for.
type request struct {
	op  lifecycle.Operation
	ref steps.Ref
	rev string // the commit whose instance file configures it
}

func (s *Server) dispatch(ctx context.Context, ev *Event) Response {
	resp := Response{Delivery: ev.DeliveryID}
	var reqs []request
	switch {
	case ev.Kind == EventIgnored:
		resp.Ignored = ev.Reason
		return resp
	case ev.Branch != s.o.Branch:
		resp.Ignored = fmt.Sprintf("%s to %q, not %q", ev.Kind, ev.Branch, s.o.Branch)
		return resp
	case ev.Kind == EventMerge && strings.HasPrefix(ev.HeadBranch, "slipway/"):
		resp.Ignored = "merge of slipway's own MR " + ev.HeadBranch
		return resp
	case ev.Kind == EventPush:
		for _, c := range ev.Commits {
			cmds, errs := ParseCommands(c.Message)
			for _, err := range errs {
				resp.Refused = append(resp.Refused, Refused{Error: fmt.Sprintf("commit %s: %v", short(c.ID), err)})
			}
			for _, cmd := range cmds {
				reqs = append(reqs, request{op: cmd.Op, ref: cmd.Ref, rev: c.ID})
			}
		}
	case ev.Kind == EventMerge:
		changed, err := s.changedInstances(ctx, ev)
		if err != nil {
			resp.Refused = append(resp.Refused, Refused{Error: err.Error()})
		}
		reqs = changed
	}
	for i, rq := range reqs {
		s.start(ctx, ev, i, rq, &resp)
	}
	if len(reqs) == 0 && len(resp.Refused) == 0 {
		resp.Ignored = "no [slipway][operation] lines and no instance changes"
	}
	return resp
}

// start submits one request. The request ID is derived from the delivery and the
// request's place in it, so a redelivery is deduplicated by Temporal too.
func (s *Server) start(ctx context.Context, ev *Event, i int, rq request, resp *Response) {
	refused := func(msg string) {
		resp.Refused = append(resp.Refused, Refused{Instance: rq.ref.String(), Operation: string(rq.op), Error: msg})
	}
	req := workflows.OperationRequest{Actor: fmt.Sprintf("%s/%s (%s webhook)", s.o.Actor, ev.Provider, ev.DeliveryID)}
	switch rq.op {
	case lifecycle.OpDeprovision:
		if !s.o.AllowDeprovision {
			refused("deprovision from a webhook is disabled (serve with --allow-deprovision)")
			return
		}
		req.Confirm = true
	case lifecycle.OpProvision, lifecycle.OpDeploy:
		cfg, err := s.instanceFile(ctx, rq)
		switch {
		case err != nil:
			refused(err.Error())
			return
		case cfg == "" && rq.op == lifecycle.OpProvision:
			refused(fmt.Sprintf("no instances/%s/%s/instance.yaml at %s to create it from", rq.ref.Tenant, rq.ref.Name, short(rq.rev)))
			return
		}
		req.ConfigYAML = cfg
	}
	id := fmt.Sprintf("%s/%s/%d", ev.Provider, ev.DeliveryID, i)
	if _, err := s.submit.Submit(ctx, rq.ref, rq.op, req, id); err != nil {
		refused(err.Error())
		return
	}
	resp.Started = append(resp.Started, Started{Instance: rq.ref.String(), Operation: string(rq.op),
		Workflow: workflows.InstanceWorkflowID(rq.ref), Request: id})
}

func (s *Server) instanceFile(ctx context.Context, rq request) (string, error) {
	files, err := s.repo.ReadDir(ctx, rq.rev, fmt.Sprintf("instances/%s/%s", rq.ref.Tenant, rq.ref.Name))
	if err != nil {
		return "", fmt.Errorf("read instance file at %s: %v", short(rq.rev), err)
	}
	return string(files["instance.yaml"]), nil
}

// changedInstances compares the instance files before and after a merged PR:
// added → create, changed → deploy, removed → deprovision.
func (s *Server) changedInstances(ctx context.Context, ev *Event) ([]request, error) {
	if ev.BaseSHA == "" || ev.MergeSHA == "" {
		return nil, fmt.Errorf("merged %s request without base and merge commits: cannot tell which instances changed", ev.Provider)
	}
	before, err := s.repo.ReadDir(ctx, ev.BaseSHA, "instances")
	if err != nil {
		return nil, fmt.Errorf("read instances at %s: %v", short(ev.BaseSHA), err)
	}
	after, err := s.repo.ReadDir(ctx, ev.MergeSHA, "instances")
	if err != nil {
		return nil, fmt.Errorf("read instances at %s: %v", short(ev.MergeSHA), err)
	}
	refs := map[string]steps.Ref{}
	for _, files := range []map[string][]byte{before, after} {
		for p := range files {
			if parts := strings.Split(p, "/"); len(parts) == 3 && parts[2] == "instance.yaml" {
				refs[parts[0]+"/"+parts[1]] = steps.Ref{Tenant: parts[0], Name: parts[1]}
			}
		}
	}
	keys := make([]string, 0, len(refs))
	for k := range refs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []request
	for _, k := range keys {
		old, had := before[k+"/instance.yaml"]
		cur, has := after[k+"/instance.yaml"]
		rq := request{ref: refs[k], rev: ev.MergeSHA}
		switch {
		case !had && has:
			rq.op = lifecycle.OpProvision
		case had && !has:
			rq.op = lifecycle.OpDeprovision
		case string(old) != string(cur):
			rq.op = lifecycle.OpDeploy
		default:
			continue
		}
		out = append(out, rq)
	}
	return out, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
