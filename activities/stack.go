package activities

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/names"
)

// commitRE is a full commit SHA (SHA-1 or SHA-256): what a release records, never a branch that moves.
var commitRE = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// Stack does a `slipway stack` request the policy allowed: it cuts a release or points a channel
// by an MR on the stack's releases file (releases/<stack>/releases.yaml), merged at once, or
// reads that file. A retry finds its MR merged and answers from main.
func (a *Activities) Stack(ctx context.Context, req contract.StackRequest) (contract.StackResult, error) {
	if !names.IsLabel(req.Stack) {
		return contract.StackResult{}, invalidConfig(fieldError("stack", fmt.Sprintf("%q %s", req.Stack, names.LabelRule)))
	}
	r, err := a.readReleases(ctx, "", req.Stack)
	if err != nil {
		return contract.StackResult{}, err
	}
	if req.Op == contract.StackOpReleases {
		return stackResult(r, ""), nil
	}
	branch := fmt.Sprintf("slipway/stacks/%s/%s-%s", req.Stack, req.Op, req.ID)
	if mr, ok, err := a.Forge.Get(ctx, branch); err != nil {
		return contract.StackResult{}, classify(err)
	} else if ok && mr.State == forge.StateMerged {
		return stackResult(r, mr.MergeSHA), nil
	}
	var title string
	switch req.Op {
	case contract.StackOpRelease:
		if err := a.cutRelease(ctx, r, req); err != nil {
			return contract.StackResult{}, err
		}
		title = fmt.Sprintf("slipway: release %s@%s", req.Stack, req.Version)
	case contract.StackOpChannel:
		if err := r.SetChannel(req.Channel, req.Version, req.Default); err != nil {
			return contract.StackResult{}, invalidConfig(err)
		}
		title = fmt.Sprintf("slipway: channel %s of %s is %s", req.Channel, req.Stack, req.Version)
	case contract.StackOpDeadline:
		if req.Deadline == nil {
			return contract.StackResult{}, invalidConfig(fieldError("deadline", "is required"))
		}
		d := *req.Deadline
		d.SetBy, d.SetAt = req.CutBy, time.Now().UTC().Truncate(time.Second)
		if err := r.SetDeadline(d, time.Now()); err != nil {
			return contract.StackResult{}, invalidConfig(err)
		}
		title = fmt.Sprintf("slipway: every %s instance on %s or newer by %s", req.Stack, d.Min, d.By.Format(time.RFC3339))
	default:
		return contract.StackResult{}, invalidConfig(fieldError("op", fmt.Sprintf("%q is not a stack request (release, channel, deadline, releases)", req.Op)))
	}
	a.seal(r)
	mr, err := a.Forge.Open(forgeNotes(ctx, "stack", req.Stack), forge.Change{
		Branch: branch, Title: title, Body: fmt.Sprintf("%s, by %s, through slipway.\n\n%s", title, req.CutBy, req.Notes),
		Dir: config.ReleasesDir(req.Stack), Files: map[string][]byte{config.ReleasesFile: r.Encode()},
	})
	if err == nil && !mr.NoChanges {
		mr, err = a.Forge.Merge(ctx, mr)
	}
	if err != nil {
		return contract.StackResult{}, classify(err)
	}
	// Read back as merged: the read records it as the stack's head before anyone can restore an older one.
	if r, err = a.readReleases(ctx, mr.MergeSHA, req.Stack); err != nil {
		return contract.StackResult{}, err
	}
	return stackResult(r, mr.MergeSHA), nil
}

// onMain refuses a --from whose stack files fg's main never held: a commit reachable from it and not
// from main's head changed the stack (an unmerged branch's, never reviewed into main). A forge
// that cannot list commits (forge.History) is not asked.
func onMain(ctx context.Context, fg forge.Forge, head, commit, stack string) error {
	h, ok := forge.As[forge.History](fg)
	if !ok {
		return nil
	}
	off, err := h.Commits(ctx, head, commit, config.StackDir(stack))
	if err != nil {
		return classify(err)
	}
	if len(off) > 0 {
		return invalidConfig(fieldError("--from", fmt.Sprintf("%s is not on main's history: %s changed %s/ on a branch main has not merged", commit, off[0].SHA, config.StackDir(stack))))
	}
	return nil
}

// cutRelease adds req's release to r: the stack at req.From (main's head when empty) must load,
// and its files' hash is recorded, so a render can tell when they are not the ones cut. With a
// stacks repository the stack is read there, and the release names it.
func (a *Activities) cutRelease(ctx context.Context, r *config.Releases, req contract.StackRequest) error {
	if !config.IsVersion(req.Version) {
		return invalidConfig(fieldError("version", fmt.Sprintf("%q is not a release version MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", req.Version)))
	}
	fg, repo := a.Forge, ""
	if a.Stacks != nil {
		fg, repo = a.Stacks, a.Stacks.RepoURL()
	}
	head, err := fg.Head(ctx)
	if err != nil {
		return classify(err)
	}
	commit := req.From
	if commit == "" {
		commit = head
	} else if !commitRE.MatchString(commit) {
		return invalidConfig(fieldError("--from", fmt.Sprintf("%q: a release is cut from a full commit SHA, never a branch or tag that moves", commit)))
	} else if err := onMain(ctx, fg, head, commit, req.Stack); err != nil {
		return err
	}
	files, err := fg.ReadDir(ctx, commit, config.StackDir(req.Stack))
	if err != nil {
		return classify(err)
	}
	if _, err := config.LoadStack(req.Stack, files); err != nil {
		return invalidConfig(err) // names the file and line, as a render would
	}
	rel := contract.StackRelease{Version: req.Version, Repo: repo, Commit: commit, Tree: config.TreeHash(files), Notes: req.Notes,
		CutBy: req.CutBy, CutAt: time.Now().UTC().Truncate(time.Second)}
	if err := r.Add(rel); err != nil {
		return invalidConfig(err)
	}
	return nil
}

func stackResult(r *config.Releases, merge string) contract.StackResult {
	return contract.StackResult{Stack: r.Stack, Releases: r.Releases, Channels: r.Channels, Default: r.Default, Generation: r.Generation, MergeSHA: merge, Deadlines: r.Deadlines}
}
