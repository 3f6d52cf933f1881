package webhook

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// gitlabProject names the repository of every hook's payload.
type gitlabProject struct {
	Project struct {
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
}

// gitlabUser is the account that acted (user in merge request and note hooks).
type gitlabUser struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

type gitlabAuthor struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

type gitlabPush struct {
	gitlabProject
	Ref          string `json:"ref"`
	After        string `json:"after"`
	UserID       int64  `json:"user_id"`
	UserUsername string `json:"user_username"`
	Commits      []struct {
		ID      string       `json:"id"`
		Message string       `json:"message"`
		Added   []string     `json:"added"`
		Author  gitlabAuthor `json:"author"`
	} `json:"commits"`
}

type gitlabMerge struct {
	gitlabProject
	User             gitlabUser `json:"user"`
	ObjectAttributes struct {
		LastCommit struct {
			Author gitlabAuthor `json:"author"`
		} `json:"last_commit"`
		Action         string `json:"action"`
		State          string `json:"state"`
		SourceBranch   string `json:"source_branch"`
		TargetBranch   string `json:"target_branch"`
		MergeCommitSHA string `json:"merge_commit_sha"`
		DiffRefs       struct {
			BaseSHA string `json:"base_sha"`
		} `json:"diff_refs"`
	} `json:"object_attributes"`
}

// gitlabNote is a Note Hook: a comment on a commit, issue, snippet or merge request.
type gitlabNote struct {
	gitlabProject
	User             gitlabUser `json:"user"`
	ObjectAttributes struct {
		Note         string `json:"note"`
		NoteableType string `json:"noteable_type"`
		Action       string `json:"action"` // create or update; absent before GitLab sent edits
		System       bool   `json:"system"`
		URL          string `json:"url"`
	} `json:"object_attributes"`
	MergeRequest struct {
		IID   int64  `json:"iid"`
		Title string `json:"title"`
	} `json:"merge_request"`
}

// parseGitLab compares X-Gitlab-Token with GitLab's own token in constant time (and never
// echoes it) before reading the body, then reads push, merge request and merge request
// comment events.
func parseGitLab(r *http.Request, secret []byte) (*Event, error) {
	if _, err := checkGitLabToken(r, secret); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, &PayloadError{Provider: "gitlab", Err: err}
	}
	delivery := first(r.Header.Get("Idempotency-Key"), r.Header.Get("X-Gitlab-Event-UUID"))
	switch kind := r.Header.Get("X-Gitlab-Event"); kind {
	case "Push Hook":
		var p gitlabPush
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitlab", Err: err}
		}
		out := &Event{Provider: "gitlab", DeliveryID: delivery, Kind: EventPush, Branch: branchOf(p.Ref),
			Repo: p.Project.PathWithNamespace, User: p.UserUsername, UserID: userID(p.UserID), After: p.After}
		for _, c := range p.Commits {
			out.Commits = append(out.Commits, Commit{ID: c.ID, Message: c.Message, Author: author(c.Author.Name, c.Author.Email), Added: c.Added})
		}
		return out, nil
	case "Merge Request Hook":
		var p gitlabMerge
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitlab", Err: err}
		}
		a := p.ObjectAttributes
		if a.Action != "merge" || a.State != "merged" {
			return ignored("gitlab", delivery, "merge request "+a.Action+", not merged"), nil
		}
		return &Event{Provider: "gitlab", DeliveryID: delivery, Kind: EventMerge, Branch: a.TargetBranch,
			Repo: p.Project.PathWithNamespace, User: p.User.Username, UserID: userID(p.User.ID), PRAuthor: author(a.LastCommit.Author.Name, a.LastCommit.Author.Email),
			HeadBranch: a.SourceBranch, BaseSHA: a.DiffRefs.BaseSHA, MergeSHA: a.MergeCommitSHA}, nil
	case "Note Hook":
		var p gitlabNote
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, &PayloadError{Provider: "gitlab", Err: err}
		}
		a := p.ObjectAttributes
		switch {
		case a.NoteableType != "MergeRequest":
			return ignored("gitlab", delivery, "comment on "+first(a.NoteableType, "something")+", not a MergeRequest"), nil
		case a.Action != "" && a.Action != "create":
			// An edit would replay or retract a decision already taken: only new comments count.
			return ignored("gitlab", delivery, "comment "+a.Action+", not create"), nil
		case a.System:
			return ignored("gitlab", delivery, "system note, not a comment"), nil
		}
		return &Event{Provider: "gitlab", DeliveryID: delivery, Kind: EventComment, Repo: p.Project.PathWithNamespace,
			User: p.User.Username, UserID: userID(p.User.ID), Comment: &Comment{
				MR: strconv.FormatInt(p.MergeRequest.IID, 10), Title: p.MergeRequest.Title, Body: a.Note,
				Author: p.User.Username, AuthorID: userID(p.User.ID), URL: a.URL}}, nil
	default:
		return ignored("gitlab", delivery, "event "+kind+" is not handled"), nil
	}
}

// checkGitLabToken refuses an X-Gitlab-Token that is not GitLab's own token, compared in constant time.
func checkGitLabToken(r *http.Request, secret []byte) ([]byte, error) {
	token := r.Header.Get("X-Gitlab-Token")
	if token == "" || subtle.ConstantTimeCompare([]byte(token), secret) != 1 {
		return nil, &SignatureError{Provider: "gitlab", Reason: "X-Gitlab-Token does not match the GitLab token"}
	}
	return nil, nil
}
