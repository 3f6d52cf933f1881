package localgit

import (
	"context"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// closedNS keeps a closed MR's head commit under its branch name, so Get can still say
// "closed" (and ReadDir can read it) after the branch itself is gone. Clones do not fetch it.
const closedNS = "refs/slipway/closed/"

// Close deletes the MR's branch and records its head under closedNS, in one ref transaction.
// A branch already closed returns its record; a merged one is a *forge.MergedError.
func (f *Forge) Close(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if mr.NoChanges {
		return mr, nil
	}
	if err := f.checkBranch(ctx, mr.Branch); err != nil {
		return forge.MergeRequest{}, err
	}
	// Branch first: a racing Close's transaction writes the record before the branch goes.
	b, open, err := f.git.readBranch(ctx, mr.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	rec, closed, err := f.git.readRef(ctx, closedNS, mr.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	// A late retry for the recorded MR must not close a newer one opened on the same branch.
	retry := closed && mr.HeadSHA != "" && mr.HeadSHA == rec.head && b.head != rec.head
	switch {
	case open && !retry:
		return f.closeBranch(ctx, b)
	case closed:
		return f.closedOrMerged(ctx, rec)
	}
	return forge.MergeRequest{}, &forge.NotFoundError{What: "branch " + mr.Branch + " in " + f.path}
}

// closeBranch moves b from refs/heads to closedNS unless it is merged. Both refs change in one
// transaction that expects b.head, so a push or a racing Close in between fails it cleanly.
func (f *Forge) closeBranch(ctx context.Context, b branch) (forge.MergeRequest, error) {
	mr, err := f.describe(ctx, b)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if mr.State == forge.StateMerged {
		return forge.MergeRequest{}, &forge.MergedError{MR: mr}
	}
	tx := fmt.Sprintf("update %s%s %s\ndelete refs/heads/%s %s\n", closedNS, b.name, b.head, b.name, b.head)
	if err := f.writing(ctx, func() error {
		_, err := f.git.run(ctx, strings.NewReader(tx), nil, "update-ref", "-m", "slipway: close "+b.name, "--stdin")
		return err
	}); err != nil {
		// A racing Close of the same MR may have won: its record is the answer.
		if rec, ok, readErr := f.git.readRef(ctx, closedNS, b.name); readErr == nil && ok && rec.head == b.head {
			return f.closedOrMerged(ctx, rec)
		}
		return forge.MergeRequest{}, err
	}
	mr.State = forge.StateClosed
	return mr, nil
}

// closedOrMerged answers Close for a recorded MR: closed, or *forge.MergedError when a merge
// that raced the Close landed it.
func (f *Forge) closedOrMerged(ctx context.Context, rec branch) (forge.MergeRequest, error) {
	mr, err := f.describeClosed(ctx, rec)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if mr.State == forge.StateMerged {
		return forge.MergeRequest{}, &forge.MergedError{MR: mr}
	}
	return mr, nil
}
