package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Requests hands one operation to an instance's workflow and returns once the instance
// accepted or refused it (internal/client does, over the worker's Temporal connection).
type Requests interface {
	Submit(ctx context.Context, ref contract.Ref, op lifecycle.Operation, configYAML, actor, requestID string) error
	// Approve sends an approval comment's approve or reject to its instance.
	Approve(ctx context.Context, cmd contract.ApprovalCommand, source, requestID string) error
}

// Adopter provisions an instance from a config a push put on main itself (Grove's local create):
// the instance records the commit and opens no MR.
type Adopter interface {
	Adopt(ctx context.Context, ref contract.Ref, configYAML, commit, actor, requestID string) error
}

// RefusedError is an instance's answer that no retry changes: it is busy, the state does
// not allow the operation, or the config is invalid.
// Busy says it runs another operation: the same request may be accepted later.
type RefusedError struct {
	Err  error
	Busy bool
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// SubmitCommand submits one command of a recorded delivery. The request ID is the command's
// content (forge, repository, commit, operation, instance), so a retry, a redelivery or a replay
// under a new delivery ID is the same request, never a second run. A command whose commit no
// longer holds the instance's files as main does is refused: a replayed or superseded push
// never rolls an instance back.
func (a *Activities) SubmitCommand(ctx context.Context, in contract.SubmitInput) (contract.DeliveryOutcome, error) {
	c := in.Command
	out := contract.DeliveryOutcome{Instance: c.Ref.String(), Operation: c.Operation,
		Request: CommandRequestID(in.Delivery, in.Index, c), Workflow: contract.InstanceWorkflowID(c.Ref)}
	refuse := func(msg string) (contract.DeliveryOutcome, error) {
		out.Error = msg
		if c.Adopt {
			// The tenant pushed no command and opened no MR: the commit's status is where they look.
			a.reportAdopt(ctx, c, forge.StatusFailure, msg)
		}
		activity.GetLogger(ctx).Warn("webhook command refused", "delivery", in.Delivery, "instance", out.Instance,
			"operation", out.Operation, "error", msg)
		return out, nil
	}
	if a.Requests == nil {
		return out, notAllowedf("this worker has no Temporal client for webhook requests")
	}
	op, ok := lifecycle.ParseOperation(c.Operation)
	if !ok {
		return refuse(fmt.Sprintf("%q is not an operation", c.Operation))
	}
	dir := fmt.Sprintf("instances/%s/%s", c.Ref.Tenant, c.Ref.Name)
	files, err := a.Forge.ReadDir(ctx, c.Rev, dir)
	var nf *forge.NotFoundError
	switch {
	case errors.As(err, &nf):
		return refuse(fmt.Sprintf("read instance file at %s: %v", short(c.Rev), err))
	case err != nil:
		return out, fmt.Errorf("read instance file at %s: %w", short(c.Rev), err)
	}
	head, err := a.Forge.ReadDir(ctx, "", dir)
	if err != nil {
		return out, fmt.Errorf("read %s on main: %w", dir, err)
	}
	if changed := changedFiles(files, head); len(changed) > 0 {
		return refuse(fmt.Sprintf("commit %s is older than what main holds for %s: %s/ changed since (%s%s); a replayed or superseded command never rolls an instance back",
			short(c.Rev), c.Ref, dir, strings.Join(changed, ", "), a.changedBy(ctx, c.Rev, dir)))
	}
	var cfg string
	if op == lifecycle.OpProvision || op == lifecycle.OpDeploy {
		cfg = string(files["instance.yaml"])
		if cfg == "" && op == lifecycle.OpProvision {
			return refuse(fmt.Sprintf("no instances/%s/%s/instance.yaml at %s to create it from", c.Ref.Tenant, c.Ref.Name, short(c.Rev)))
		}
	}
	actor := in.Actor
	if c.Author != "" {
		actor += ", author " + c.Author
	}
	if a.Claims != nil {
		// Temporal de-duplicates the request's ID within one run of the instance only: the claim
		// outlives its runs, so the same signed command under another delivery acts once.
		claimer := fmt.Sprintf("%s#%d", in.Delivery, in.Index)
		holder, err := a.Claims.ClaimRequest(ctx, out.Request, claimer)
		if err != nil {
			return out, err
		}
		if holder != claimer {
			return refuse(fmt.Sprintf("request %s was submitted already, by delivery %s: a signed command acts once", out.Request, holder))
		}
	}
	// The request is signed for the forge account that pushed or merged (identity.With).
	sctx := identity.With(ctx, a.forgeUser(first(in.Provider, providerOf(in.Delivery)), in.User, in.UserID, "webhook"))
	if c.Adopt {
		adopter, ok := a.Requests.(Adopter)
		if !ok || op != lifecycle.OpProvision {
			return refuse("this worker cannot create an instance from a pushed config")
		}
		err = adopter.Adopt(sctx, c.Ref, cfg, c.Rev, actor, out.Request)
	} else {
		err = a.Requests.Submit(sctx, c.Ref, op, cfg, actor, out.Request)
	}
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return refuse(err.Error())
	case err != nil:
		return out, err
	}
	out.Started = true
	if c.Adopt {
		a.reportAdopt(ctx, c, forge.StatusSuccess, "created from this commit; deploy it with slipway deploy "+c.Ref.String())
	}
	activity.GetLogger(ctx).Info("webhook command started", "delivery", in.Delivery,
		"instance", out.Instance, "operation", out.Operation, "request", out.Request)
	return out, nil
}

// CommandRequestID keys a webhook command's request by its content: the same command of the same
// commit in the same repository is one request whatever delivery carries it. Commands recorded
// before commands carried their repository keep their delivery and place.
func CommandRequestID(delivery string, index int, c contract.DeliveryCommand) string {
	if c.Repo == "" {
		return fmt.Sprintf("%s/%d", delivery, index)
	}
	provider, _, _ := strings.Cut(delivery, "/")
	sum := sha256.Sum256([]byte(strings.Join([]string{provider, strings.ToLower(c.Repo), c.Rev, c.Operation, c.Ref.String()}, "\x00")))
	return provider + "/" + hex.EncodeToString(sum[:12])
}

// changedBy names the commits that changed dir since rev, where the forge can list them; best effort.
func (a *Activities) changedBy(ctx context.Context, rev, dir string) string {
	h, ok := forge.As[forge.History](a.Forge)
	if !ok {
		return ""
	}
	head, err := a.Forge.Head(ctx)
	if err != nil {
		return ""
	}
	commits, err := h.Commits(ctx, rev, head, dir)
	if err != nil || len(commits) == 0 {
		return ""
	}
	var by []string
	for _, cm := range commits[:min(len(commits), 3)] {
		by = append(by, short(cm.SHA)+" "+clipSubject(cm.Subject))
	}
	if len(commits) > 3 {
		by = append(by, fmt.Sprintf("%d more", len(commits)-3))
	}
	return " by " + strings.Join(by, ", ")
}

func clipSubject(s string) string {
	if r := []rune(s); len(r) > 60 {
		return fmt.Sprintf("%q", string(r[:59])+"…")
	}
	return fmt.Sprintf("%q", s)
}

// changedFiles lists, sorted and at most eight, the files that differ between two readings of a folder.
func changedFiles(at, head map[string][]byte) []string {
	var out []string
	for p, b := range at {
		if h, ok := head[p]; !ok || !bytes.Equal(b, h) {
			out = append(out, p)
		}
	}
	for p := range head {
		if _, ok := at[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("%d more", len(out)-8))
	}
	return out
}

// ChangedInstances compares the instance files before and after a merged PR:
// added → provision, changed → deploy, removed → deprovision.
func (a *Activities) ChangedInstances(ctx context.Context, m contract.MergeRange) ([]contract.DeliveryCommand, error) {
	if m.Base == "" || m.Merge == "" {
		return nil, notAllowedf("merged request without base and merge commits: cannot tell which instances changed")
	}
	before, err := a.Forge.ReadDir(ctx, m.Base, "instances")
	if err != nil {
		return nil, classify(fmt.Errorf("read instances at %s: %w", short(m.Base), err))
	}
	after, err := a.Forge.ReadDir(ctx, m.Merge, "instances")
	if err != nil {
		return nil, classify(fmt.Errorf("read instances at %s: %w", short(m.Merge), err))
	}
	cmds := changedInstances(before, after, m.Merge)
	for i := range cmds {
		cmds[i].Repo, cmds[i].Author = m.Repo, m.Author
	}
	return cmds, nil
}

func changedInstances(before, after map[string][]byte, rev string) []contract.DeliveryCommand {
	refs := map[string]contract.Ref{}
	for _, files := range []map[string][]byte{before, after} {
		for p := range files {
			if parts := strings.Split(p, "/"); len(parts) == 3 && parts[2] == "instance.yaml" {
				refs[parts[0]+"/"+parts[1]] = contract.Ref{Tenant: parts[0], Name: parts[1]}
			}
		}
	}
	keys := make([]string, 0, len(refs))
	for k := range refs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []contract.DeliveryCommand
	for _, k := range keys {
		old, had := before[k+"/instance.yaml"]
		cur, has := after[k+"/instance.yaml"]
		c := contract.DeliveryCommand{Ref: refs[k], Rev: rev}
		switch {
		case !had && has:
			c.Operation = string(lifecycle.OpProvision)
		case had && !has:
			c.Operation = string(lifecycle.OpDeprovision)
		case string(old) != string(cur):
			c.Operation = string(lifecycle.OpDeploy)
		default:
			continue
		}
		out = append(out, c)
	}
	return out
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// reportAdopt sets the commit status of a local create, best effort: the outcome is recorded
// with the delivery whatever the forge answers.
func (a *Activities) reportAdopt(ctx context.Context, c contract.DeliveryCommand, state forge.StatusState, msg string) {
	rep, ok := forge.As[forge.Reporter](a.Forge)
	if !ok || !shaHex(c.Rev) {
		return
	}
	if r := []rune(msg); len(r) > 140 { // forges cut a status description at 140 characters
		msg = string(r[:139]) + "…"
	}
	if err := rep.SetStatus(ctx, c.Rev, forge.CommitStatus{State: state, Context: "slipway/create " + c.Ref.String(), Description: msg}); err != nil {
		activity.GetLogger(ctx).Warn("commit status of a local create not set", "instance", c.Ref.String(), "error", err)
	}
}

func shaHex(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}
