package localgit

import (
	"context"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// branch is what one MR branch's head commit says about the MR.
type branch struct {
	name    string
	head    string
	parent  string // first parent: the base head when the MR was opened
	subject string // the MR title
}

// branchFormat yields one NUL-separated record per ref; subjects never hold newlines.
const branchFormat = "%(refname)%00%(objectname)%00%(parent)%00%(contents:subject)"

// branches lists refs/heads/* matching the for-each-ref arguments (patterns, filters, sorts).
func (r *runner) branches(ctx context.Context, args ...string) ([]branch, error) {
	return r.refs(ctx, "refs/heads/", args...)
}

// refs lists the refs under namespace ns (e.g. "refs/heads/") matching the for-each-ref
// arguments, named relative to ns.
func (r *runner) refs(ctx context.Context, ns string, args ...string) ([]branch, error) {
	out, err := r.run(ctx, nil, nil, append([]string{"for-each-ref", "--format=" + branchFormat}, args...)...)
	if err != nil {
		return nil, err
	}
	var list []branch
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\x00", 4)
		if len(f) != 4 || !strings.HasPrefix(f[0], ns) {
			return nil, fmt.Errorf("localgit: unexpected for-each-ref line %q", line)
		}
		parent, _, _ := strings.Cut(f[2], " ")
		list = append(list, branch{name: strings.TrimPrefix(f[0], ns), head: f[1], parent: parent, subject: f[3]})
	}
	return list, nil
}

// readBranch finds one branch by exact name.
func (r *runner) readBranch(ctx context.Context, name string) (branch, bool, error) {
	return r.readRef(ctx, "refs/heads/", name)
}

// readRef finds the ref ns+name by exact name.
func (r *runner) readRef(ctx context.Context, ns, name string) (branch, bool, error) {
	list, err := r.refs(ctx, ns, ns+name)
	if err != nil {
		return branch{}, false, err
	}
	for _, b := range list {
		if b.name == name { // the pattern also matches refs below name/
			return b, true, nil
		}
	}
	return branch{}, false, nil
}

// mergeOf tells whether head is merged into the base commit and by which commit: the merge
// whose second parent is head, or head itself when it reached the base without one (fast-forward).
func (r *runner) mergeOf(ctx context.Context, base, head string) (string, bool, error) {
	if _, err := r.run(ctx, nil, nil, "merge-base", "--is-ancestor", head, base); err != nil {
		if exitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, err
	}
	// Only merges made since the branch was cut can have head as a parent.
	out, err := r.out(ctx, "rev-list", "--merges", "--parents", base, "^"+head)
	if err != nil {
		return "", false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[2] == head {
			return f[0], true, nil
		}
	}
	return head, true, nil
}

// mr describes b as an MR; mergeSHA is empty while it is open.
func (f *Forge) mr(b branch, mergeSHA string) forge.MergeRequest {
	mr := forge.MergeRequest{ID: b.name, Branch: b.name, Title: b.subject, State: forge.StateOpen,
		HeadSHA: b.head, BaseSHA: b.parent, URL: f.mrURL(b.name)}
	if mergeSHA != "" {
		mr.State, mr.MergeSHA = forge.StateMerged, mergeSHA
	}
	return mr
}

// describe reads the merge state of b against the current base head.
func (f *Forge) describe(ctx context.Context, b branch) (forge.MergeRequest, error) {
	base, err := f.Head(ctx)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	mergeSHA, _, err := f.git.mergeOf(ctx, base, b.head)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	return f.mr(b, mergeSHA), nil
}

// describeClosed describes the record of a closed MR: closed, or merged when a merge that
// raced the Close landed it anyway.
func (f *Forge) describeClosed(ctx context.Context, rec branch) (forge.MergeRequest, error) {
	mr, err := f.describe(ctx, rec)
	if err == nil && mr.State == forge.StateOpen {
		mr.State = forge.StateClosed
	}
	return mr, err
}
