package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// giteaPush and giteaPull are the fields slipway reads from Gitea/Forgejo payloads.
type giteaPush struct {
	Ref     string `json:"ref"`
	Commits []struct {
		ID      string `json:"id"`
		Message string `json:"message"`
	} `json:"commits"`
}

type giteaPull struct {
	Action      string `json:"action"`
	PullRequest struct {
		Merged         bool   `json:"merged"`
		MergeCommitSHA string `json:"merge_commit_sha"`
		Base           struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"base"`
		Head struct {
			Ref string `json:"ref"`
		} `json:"head"`
	} `json:"pull_request"`
}

// giteaComment is an issue_comment event; Gitea sends it for issues and pull requests alike
// (X-Gitea-Event-Type says pull_request_comment for the latter).
type giteaComment struct {
	Action string `json:"action"`
	IsPull bool   `json:"is_pull"`
	Issue  struct {
		Number      int64     `json:"number"`
		Title       string    `json:"title"`
		PullRequest *struct{} `json:"pull_request"`
	} `json:"issue"`
	Comment struct {
		HTMLURL string `json:"html_url"`
		Body    string `json:"body"`
		User    struct {
			Login string `json:"login"`
		} `json:"user"`
	} `json:"comment"`
	Sender struct {
		Login string `json:"login"`
	} `json:"sender"`
}

// parseGitea checks X-Gitea-Signature or X-Forgejo-Signature (hex HMAC-SHA256 of
// the body) in constant time, then reads push, pull_request and issue_comment events.
func parseGitea(r *http.Request, secret []byte) (*Event, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, &PayloadError{Provider: "gitea", Err: err}
	}
	sig := r.Header.Get("X-Gitea-Signature")
	if sig == "" {
		sig = r.Header.Get("X-Forgejo-Signature")
	}
	got, err := hex.DecodeString(sig)
	if sig == "" || err != nil {
		return nil, &SignatureError{Provider: "gitea", Reason: "missing or malformed X-Gitea-Signature"}
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, &SignatureError{Provider: "gitea", Reason: "signature does not match the shared secret"}
	}
	delivery := first(r.Header.Get("X-Gitea-Delivery"), r.Header.Get("X-Forgejo-Delivery"))
	kind := first(r.Header.Get("X-Gitea-Event"), r.Header.Get("X-Forgejo-Event"))
	switch kind {
	case "push":
		var p giteaPush
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitea", Err: err}
		}
		out := &Event{Provider: "gitea", DeliveryID: delivery, Kind: EventPush, Branch: branchOf(p.Ref)}
		for _, c := range p.Commits {
			out.Commits = append(out.Commits, Commit{ID: c.ID, Message: c.Message})
		}
		return out, nil
	case "pull_request":
		var p giteaPull
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitea", Err: err}
		}
		pr := p.PullRequest
		if p.Action != "closed" || !pr.Merged {
			return ignored("gitea", delivery, "pull request "+p.Action+", not merged"), nil
		}
		return &Event{Provider: "gitea", DeliveryID: delivery, Kind: EventMerge, Branch: pr.Base.Ref,
			HeadBranch: pr.Head.Ref, BaseSHA: pr.Base.SHA, MergeSHA: pr.MergeCommitSHA}, nil
	case "issue_comment":
		var p giteaComment
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitea", Err: err}
		}
		switch {
		case p.Action != "created":
			// An edit or a deletion would replay or retract a decision already taken: only new comments count.
			return ignored("gitea", delivery, "comment "+p.Action+", not created"), nil
		case !p.IsPull && p.Issue.PullRequest == nil:
			return ignored("gitea", delivery, "comment on an issue, not a pull request"), nil
		}
		return &Event{Provider: "gitea", DeliveryID: delivery, Kind: EventComment, Comment: &Comment{
			MR: strconv.FormatInt(p.Issue.Number, 10), Title: p.Issue.Title, Body: p.Comment.Body,
			Author: first(p.Comment.User.Login, p.Sender.Login), URL: p.Comment.HTMLURL}}, nil
	}
	return ignored("gitea", delivery, "event "+kind+" is not handled"), nil
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
