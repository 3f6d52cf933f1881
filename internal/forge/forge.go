// Package forge opens and merges merge requests (MRs/PRs) in a GitOps repository.
// It holds the Forge interface, the optional ones a backend may add (History,
// Permissions, Reporter for commit statuses and MR comments, Mirrored), their errors
// and the checks every backend shares. The backends are subpackages: localgit (a git
// repository on disk, the embedded default), github, gitlab, gitea (Gitea and
// Forgejo) and mirror (reads through a second remote while the forge is down);
// forgetest is the contract suite each of them passes.
package forge

import "context"

// State is the lifecycle of one merge request.
type State string

const (
	StateOpen   State = "open"
	StateMerged State = "merged"
	StateClosed State = "closed"
)

// Change replaces everything under Dir on the base branch with Files.
// Nil or empty Files removes Dir (used by deprovision).
type Change struct {
	Branch string            // e.g. slipway/<tenant>/<name>/<operation>-<id>; the idempotency key
	Title  string            // MR title and commit subject
	Body   string            // MR description and commit body
	Dir    string            // repo-relative directory, e.g. instances/acme/web
	Files  map[string][]byte // paths relative to Dir
}

// MergeRequest is what a forge knows about one MR. For localgit the ID is the branch name.
type MergeRequest struct {
	ID        string `json:"id"`
	Branch    string `json:"branch"`
	Title     string `json:"title"`
	State     State  `json:"state"`
	HeadSHA   string `json:"headSHA"`
	BaseSHA   string `json:"baseSHA"`
	MergeSHA  string `json:"mergeSHA,omitempty"`
	URL       string `json:"url,omitempty"`
	NoChanges bool   `json:"noChanges,omitempty"` // the change equals the base: no branch, nothing to merge
	// Repaired is what the forge repaired on its own in this call (a stale git lock a killed worker
	// left, with its age), for the step's record; it is not part of the MR.
	Repaired []string `json:"repaired,omitempty"`
}

// Forge is the GitOps repository as slipway uses it. Every method is idempotent.
type Forge interface {
	// Name identifies the backend in status and leftovers ("localgit", "github", ...).
	Name() string
	// RepoURL is where a GitOps agent (ArgoCD) can clone the repository.
	RepoURL() string
	// Head returns the commit SHA of the base branch (main).
	Head(ctx context.Context) (string, error)
	// ReadDir returns the files under dir at rev ("" means the base head), recursively,
	// keyed by path relative to dir. A missing dir gives an empty map and no error.
	ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error)
	// Open opens the MR for c.Branch, or returns the existing one for that branch
	// (open or merged) unchanged. A change equal to the base returns NoChanges and opens nothing.
	Open(ctx context.Context, c Change) (MergeRequest, error)
	// Merge merges an open MR into the base with a merge commit (--no-ff) and returns it
	// with MergeSHA set. Merging an MR that is already merged returns it unchanged.
	Merge(ctx context.Context, mr MergeRequest) (MergeRequest, error)
	// Get finds the MR for a branch; ok is false when there is none.
	Get(ctx context.Context, branch string) (mr MergeRequest, ok bool, err error)
	// ListOpen lists the open MRs whose branch starts with prefix, oldest first.
	ListOpen(ctx context.Context, prefix string) ([]MergeRequest, error)
	// Close closes an open MR without merging it and deletes its branch, so an operation that
	// ends unapproved leaves nothing behind, and returns it with State StateClosed. Closing a
	// closed MR returns it unchanged (a retry after a lost answer succeeds); closing a merged
	// one is a *MergedError; an MR with NoChanges is returned as it is, with no call. After
	// Close, ListOpen no longer lists it, Get reports it closed (github: reports none, as its
	// Get skips closed PRs), and Open of the same branch opens a new MR.
	Close(ctx context.Context, mr MergeRequest) (MergeRequest, error)
}

// Mirrored is a forge that reads through a mirror while it is down.
type Mirrored interface {
	// HeadVia returns the base head and the URL of the repository that answered.
	HeadVia(ctx context.Context) (sha, repoURL string, err error)
	// MirrorURL is the mirror's URL.
	MirrorURL() string
}

// Wrapper is a forge that adds behaviour around another and hides its optional interfaces.
type Wrapper interface {
	Unwrap() Forge
}

// As finds the first forge in f's wrapping chain that is a T (Mirrored, Reporter, History,
// Permissions): a type assertion on a wrapper alone would miss what the forge below it does.
func As[T any](f Forge) (T, bool) {
	for f != nil {
		if t, ok := f.(T); ok {
			return t, true
		}
		w, ok := f.(Wrapper)
		if !ok {
			break
		}
		f = w.Unwrap()
	}
	var zero T
	return zero, false
}
