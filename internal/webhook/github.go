package webhook

import (
	"errors"
	"net/http"

	gh "github.com/google/go-github/v62/github"
)

// parseGitHub checks X-Hub-Signature-256 with go-github's ValidatePayload and
// parses the event with ParseWebHook. The SHA-1 header alone is refused.
func parseGitHub(r *http.Request, secret []byte) (*Event, error) {
	if r.Header.Get(gh.SHA256SignatureHeader) == "" {
		return nil, &SignatureError{Provider: "github", Reason: "missing X-Hub-Signature-256 (SHA-1 signatures are refused)"}
	}
	payload, err := gh.ValidatePayload(r, secret)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, err
	case err != nil:
		return nil, &SignatureError{Provider: "github", Reason: "signature does not match the shared secret"}
	}
	delivery := gh.DeliveryID(r)
	ev, err := gh.ParseWebHook(gh.WebHookType(r), payload)
	if err != nil {
		return nil, &PayloadError{Provider: "github", Err: err}
	}
	switch e := ev.(type) {
	case *gh.PushEvent:
		out := &Event{Provider: "github", DeliveryID: delivery, Kind: EventPush, Branch: branchOf(e.GetRef())}
		for _, c := range e.Commits {
			out.Commits = append(out.Commits, Commit{ID: c.GetID(), Message: c.GetMessage()})
		}
		return out, nil
	case *gh.PullRequestEvent:
		pr := e.GetPullRequest()
		if e.GetAction() != "closed" || !pr.GetMerged() {
			return ignored("github", delivery, "pull request "+e.GetAction()+", not merged"), nil
		}
		return &Event{Provider: "github", DeliveryID: delivery, Kind: EventMerge, Branch: pr.GetBase().GetRef(),
			HeadBranch: pr.GetHead().GetRef(), BaseSHA: pr.GetBase().GetSHA(), MergeSHA: pr.GetMergeCommitSHA()}, nil
	}
	return ignored("github", delivery, "event "+gh.WebHookType(r)+" is not handled"), nil
}
