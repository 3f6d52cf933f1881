package forge

import "context"

// StatusState is a commit status's state, in the words GitHub uses; each backend maps it.
type StatusState string

const (
	StatusPending StatusState = "pending"
	StatusSuccess StatusState = "success"
	StatusFailure StatusState = "failure"
	StatusError   StatusState = "error"
)

// CommitStatus is what a forge shows beside a commit, keyed by Context ("slipway/acme/web").
type CommitStatus struct {
	State       StatusState `json:"state"`
	Context     string      `json:"context"`
	Description string      `json:"description,omitempty"`
	TargetURL   string      `json:"targetURL,omitempty"`
}

// Reporter posts outcomes where reviewers look, as Atlantis does. A forge that can report
// implements it besides Forge. Both calls are idempotent.
type Reporter interface {
	// SetStatus sets the status s.Context of commit sha; setting it again replaces it.
	SetStatus(ctx context.Context, sha string, s CommitStatus) error
	// Comment posts body on mr once per key: a retry with the same key never posts twice.
	Comment(ctx context.Context, mr MergeRequest, key, body string) error
}
