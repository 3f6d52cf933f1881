package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// checkGitHubSignature refuses a missing or malformed X-Hub-Signature-256 before the body is
// read, then reads the (size-capped) body through the HMAC and compares. The SHA-1 header
// alone is refused.
func checkGitHubSignature(r *http.Request, secret []byte) ([]byte, error) {
	want, err := githubSignature(r, secret)
	if err != nil {
		return nil, err
	}
	body, err := readSigned(r, "github", "GitHub", secret, want)
	if err != nil {
		return nil, err
	}
	// A hook may send its payload form-encoded; the signature covers the form as sent.
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &PayloadError{Provider: "github", Err: err}
		}
		body = []byte(form.Get("payload"))
	}
	return body, nil
}

// githubSignature is the HMAC X-Hub-Signature-256 claims, refused if missing or malformed.
func githubSignature(r *http.Request, _ []byte) ([]byte, error) {
	sig := r.Header.Get(gh.SHA256SignatureHeader)
	if sig == "" {
		return nil, &SignatureError{Provider: "github", Reason: "missing X-Hub-Signature-256 (SHA-1 signatures are refused)"}
	}
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	want, err := hex.DecodeString(hexSig)
	if !ok || err != nil || len(want) != sha256.Size {
		return nil, &SignatureError{Provider: "github", Reason: "malformed X-Hub-Signature-256: want sha256=<64 hex digits>"}
	}
	return want, nil
}

// parseGitHub checks the signature, then parses push, pull_request and issue_comment events
// with go-github's ParseWebHook.
func parseGitHub(r *http.Request, secret []byte) (*Event, error) {
	payload, err := checkGitHubSignature(r, secret)
	if err != nil {
		return nil, err
	}
	delivery := gh.DeliveryID(r)
	ev, err := gh.ParseWebHook(gh.WebHookType(r), payload)
	if err != nil {
		return nil, &PayloadError{Provider: "github", Err: err}
	}
	switch e := ev.(type) {
	case *gh.PushEvent:
		out := &Event{Provider: "github", DeliveryID: delivery, Kind: EventPush, Branch: branchOf(e.GetRef()),
			Repo: e.GetRepo().GetFullName(), User: first(e.GetSender().GetLogin(), e.GetPusher().GetName()), UserID: userID(e.GetSender().GetID()), After: e.GetAfter()}
		for _, c := range e.Commits {
			a := c.GetAuthor()
			out.Commits = append(out.Commits, Commit{ID: c.GetID(), Message: c.GetMessage(), Author: author(a.GetName(), a.GetEmail()), Added: c.Added})
		}
		return out, nil
	case *gh.PullRequestEvent:
		pr := e.GetPullRequest()
		if e.GetAction() != "closed" || !pr.GetMerged() {
			return ignored("github", delivery, "pull request "+e.GetAction()+", not merged"), nil
		}
		merger := e.GetSender()
		if pr.GetMergedBy().GetLogin() != "" {
			merger = pr.GetMergedBy()
		}
		return &Event{Provider: "github", DeliveryID: delivery, Kind: EventMerge, Branch: pr.GetBase().GetRef(),
			Repo: e.GetRepo().GetFullName(), User: merger.GetLogin(), UserID: userID(merger.GetID()),
			PRAuthor:   pr.GetUser().GetLogin(),
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
		return &Event{Provider: "github", DeliveryID: delivery, Kind: EventComment, Repo: e.GetRepo().GetFullName(),
			User: c.GetUser().GetLogin(), UserID: userID(c.GetUser().GetID()), Comment: &Comment{
				MR: strconv.Itoa(issue.GetNumber()), Title: issue.GetTitle(), Body: c.GetBody(),
				Author: c.GetUser().GetLogin(), AuthorID: userID(c.GetUser().GetID()), URL: c.GetHTMLURL()}}, nil
	}
	return ignored("github", delivery, "event "+gh.WebHookType(r)+" is not handled"), nil
}

// readSigned reads the body, computing its HMAC-SHA256 as it streams in, and refuses it unless
// the MAC is want (compared in constant time).
func readSigned(r *http.Request, provider, forge string, secret, want []byte) ([]byte, error) {
	mac := hmac.New(sha256.New, secret)
	body, err := io.ReadAll(io.TeeReader(r.Body, mac))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, err
	case err != nil:
		return nil, &PayloadError{Provider: provider, Err: err}
	case !hmac.Equal(want, mac.Sum(nil)):
		return nil, &SignatureError{Provider: provider, Reason: "signature does not match the " + forge + " secret"}
	}
	return body, nil
}
