package webhook

import "strings"

// Event is a delivery in provider-neutral form.
type Event struct {
	Provider   string
	DeliveryID string
	Kind       string // EventPush, EventMerge or EventIgnored
	Branch     string // push: the branch pushed to; merge: the PR's base branch
	Commits    []Commit
	// A merged pull/merge request.
	HeadBranch string
	BaseSHA    string
	MergeSHA   string
	// Why an event was ignored (ping, closed unmerged, another event type).
	Reason string
}

// Commit is one pushed commit.
type Commit struct {
	ID      string
	Message string
}

// Event kinds.
const (
	EventPush    = "push"
	EventMerge   = "merge"
	EventIgnored = "ignored"
)

func branchOf(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }

func ignored(provider, delivery, reason string) *Event {
	return &Event{Provider: provider, DeliveryID: delivery, Kind: EventIgnored, Reason: reason}
}
