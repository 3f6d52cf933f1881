package webhook

import "strings"

// Event is a delivery in provider-neutral form.
type Event struct {
	Provider   string
	DeliveryID string
	Kind       string // EventPush, EventMerge, EventComment or EventIgnored
	Branch     string // push: the branch pushed to; merge: the PR's base branch; comment: none
	// Repo is the repository the forge says the event is from (OWNER/NAME; GitLab: the project path).
	Repo string
	// User is who the forge says pushed, merged or commented: the account, not what a commit claims.
	User string
	// UserID is that account's ID on the forge (stable across renames); "" when the payload has none.
	UserID  string
	Commits []Commit
	// After is the commit a push moved the branch to (its head).
	After string
	// A merged pull/merge request.
	HeadBranch string
	BaseSHA    string
	MergeSHA   string
	PRAuthor   string // who opened the merged request
	// A new comment on a pull/merge request.
	Comment *Comment
	// Why an event was ignored (ping, closed unmerged, another event type).
	Reason string
}

// Commit is one pushed commit.
type Commit struct {
	ID      string
	Message string
	Author  string // as the commit says: "Name <email>", which the pusher chooses
	// Added are the files the commit adds, as the forge lists them.
	Added []string
}

// author is how a commit names its author.
func author(name, email string) string {
	switch {
	case email == "":
		return name
	case name == "":
		return "<" + email + ">"
	}
	return name + " <" + email + ">"
}

// Comment is a new comment on a pull/merge request, which may hold `/slipway` commands.
type Comment struct {
	MR       string // the MR/PR number, as the forge numbers it (GitLab's iid)
	Title    string // the MR/PR title, which names the instance of slipway's own MRs
	Body     string
	Author   string // the commenter's login
	AuthorID string // the commenter's user ID on the forge, checked against the forge's API
	URL      string // the comment's web page
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
