package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
)

// giteaPush and giteaPull are the fields slipway reads from Gitea/Forgejo payloads.
type giteaUser struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
}

// id is the account's ID as text, "" when the payload has none.
func (u giteaUser) id() string { return userID(u.ID) }

// giteaRepo names the repository and the acting user of every event's payload.
type giteaRepo struct {
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Sender giteaUser `json:"sender"`
}

type giteaPush struct {
	giteaRepo
	Ref     string    `json:"ref"`
	After   string    `json:"after"`
	Pusher  giteaUser `json:"pusher"`
	Commits []struct {
		ID      string   `json:"id"`
		Message string   `json:"message"`
		Added   []string `json:"added"`
		Author  struct {
			Name  string `json:"name"`
			Email string `json:"email"`
		} `json:"author"`
	} `json:"commits"`
}

type giteaPull struct {
	giteaRepo
	Action      string `json:"action"`
	PullRequest struct {
		User           giteaUser  `json:"user"`
		MergedBy       *giteaUser `json:"merged_by"`
		Merged         bool       `json:"merged"`
		MergeCommitSHA string     `json:"merge_commit_sha"`
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
	giteaRepo
	Action string `json:"action"`
	IsPull bool   `json:"is_pull"`
	Issue  struct {
		Number      int64     `json:"number"`
		Title       string    `json:"title"`
		PullRequest *struct{} `json:"pull_request"`
	} `json:"issue"`
	Comment struct {
		HTMLURL string    `json:"html_url"`
		Body    string    `json:"body"`
		User    giteaUser `json:"user"`
	} `json:"comment"`
}

// parseGitea checks X-Gitea-Signature or X-Forgejo-Signature (hex HMAC-SHA256 of the body):
// a missing or malformed one before the body is read, then the HMAC in constant time as the
// body streams in; then it reads push, pull_request and issue_comment events.
func parseGitea(r *http.Request, secret []byte) (*Event, error) {
	want, err := giteaSignature(r, secret)
	if err != nil {
		return nil, err
	}
	body, err := readSigned(r, "gitea", "Gitea", secret, want)
	if err != nil {
		return nil, err
	}
	delivery := first(r.Header.Get("X-Gitea-Delivery"), r.Header.Get("X-Forgejo-Delivery"))
	kind := first(r.Header.Get("X-Gitea-Event"), r.Header.Get("X-Forgejo-Event"))
	switch kind {
	case "push":
		var p giteaPush
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitea", Err: err}
		}
		out := &Event{Provider: "gitea", DeliveryID: delivery, Kind: EventPush, Branch: branchOf(p.Ref),
			Repo: p.Repository.FullName, User: first(p.Pusher.Login, p.Sender.Login), After: p.After}
		if p.Pusher.Login != "" {
			out.UserID = p.Pusher.id()
		} else {
			out.UserID = p.Sender.id()
		}
		for _, c := range p.Commits {
			out.Commits = append(out.Commits, Commit{ID: c.ID, Message: c.Message, Author: author(c.Author.Name, c.Author.Email), Added: c.Added})
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
		merger, mergerID := p.Sender.Login, p.Sender.id()
		if pr.MergedBy != nil && pr.MergedBy.Login != "" {
			merger, mergerID = pr.MergedBy.Login, pr.MergedBy.id()
		}
		return &Event{Provider: "gitea", DeliveryID: delivery, Kind: EventMerge, Branch: pr.Base.Ref,
			Repo: p.Repository.FullName, User: merger, UserID: mergerID, PRAuthor: pr.User.Login,
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
		who := p.Comment.User
		if who.Login == "" {
			who = p.Sender
		}
		return &Event{Provider: "gitea", DeliveryID: delivery, Kind: EventComment, Repo: p.Repository.FullName,
			User: who.Login, UserID: who.id(), Comment: &Comment{
				MR: strconv.FormatInt(p.Issue.Number, 10), Title: p.Issue.Title, Body: p.Comment.Body,
				Author: who.Login, AuthorID: who.id(), URL: p.Comment.HTMLURL}}, nil
	}
	return ignored("gitea", delivery, "event "+kind+" is not handled"), nil
}

// giteaSignature is the HMAC X-Gitea-Signature (or X-Forgejo-Signature) claims, refused if missing or malformed.
func giteaSignature(r *http.Request, _ []byte) ([]byte, error) {
	want, err := hex.DecodeString(first(r.Header.Get("X-Gitea-Signature"), r.Header.Get("X-Forgejo-Signature")))
	if err != nil || len(want) != sha256.Size {
		return nil, &SignatureError{Provider: "gitea", Reason: "missing or malformed X-Gitea-Signature"}
	}
	return want, nil
}

// userID is a forge's numeric user ID as text; 0 (absent) is "".
func userID(id int64) string {
	if id <= 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
