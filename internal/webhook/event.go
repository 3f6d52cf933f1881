package webhook

import "strings"

// Event is a delivery in provider-neutral form.
type Event struct {
	Provider   string
	DeliveryID string
	Kind       string // EventPush, EventMerge, EventComment or EventIgnored
	Branch     string // push: the branch pushed to; merge: the PR's base branch; comment: none
	Commits    []Commit
	// A merged pull/merge request.
	HeadBranch string
	BaseSHA    string
	MergeSHA   string
	// A new comment on a pull/merge request.
	Comment *Comment
	// Why an event was ignored (ping, closed unmerged, another event type).
	Reason string
}

// Commit is one pushed commit.
type Commit struct {
	ID      string
	Message string
}

// Comment is a new comment on a pull/merge request, which may hold `/slipway` commands.
type Comment struct {
	MR     string // the MR/PR number, as the forge numbers it (GitLab's iid)
	Title  string // the MR/PR title, which names the instance of slipway's own MRs
	Body   string
	Author string // the commenter's login
	URL    string // the comment's web page
}

// Event kinds.
const (
	EventPush    = "push"
	EventMerge   = "merge"
	EventComment = "comment"
	EventIgnored = "ignored"
)

func branchOf(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }

func ignored(provider, delivery, reason string) *Event {
	return &Event{Provider: provider, DeliveryID: delivery, Kind: EventIgnored, Reason: reason}
}
