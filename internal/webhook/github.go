package webhook

import (
	"errors"
	"net/http"
	"strconv"

	gh "github.com/google/go-github/v62/github"
)

// parseGitHub checks X-Hub-Signature-256 with go-github's ValidatePayload and
// parses push, pull_request and issue_comment events with ParseWebHook. The SHA-1
// header alone is refused.
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
	case *gh.IssueCommentEvent:
		// An edit or a deletion would replay or retract a decision already taken: only new comments count.
		if e.GetAction() != "created" {
			return ignored("github", delivery, "comment "+e.GetAction()+", not created"), nil
		}
		issue, c := e.GetIssue(), e.GetComment()
		if issue.GetPullRequestLinks() == nil {
			return ignored("github", delivery, "comment on an issue, not a pull request"), nil
		}
		return &Event{Provider: "github", DeliveryID: delivery, Kind: EventComment, Comment: &Comment{
			MR: strconv.Itoa(issue.GetNumber()), Title: issue.GetTitle(), Body: c.GetBody(),
			Author: c.GetUser().GetLogin(), URL: c.GetHTMLURL()}}, nil
	}
	return ignored("github", delivery, "event "+gh.WebHookType(r)+" is not handled"), nil
}
