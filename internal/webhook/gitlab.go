package webhook

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
)

type gitlabPush struct {
	Ref     string `json:"ref"`
	Commits []struct {
		ID      string `json:"id"`
		Message string `json:"message"`
	} `json:"commits"`
}

type gitlabMerge struct {
	ObjectAttributes struct {
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

// parseGitLab compares X-Gitlab-Token with the secret in constant time (and never
// echoes it), then reads push and merge request events.
func parseGitLab(r *http.Request, secret []byte) (*Event, error) {
	token := r.Header.Get("X-Gitlab-Token")
	if token == "" || subtle.ConstantTimeCompare([]byte(token), secret) != 1 {
		return nil, &SignatureError{Provider: "gitlab", Reason: "X-Gitlab-Token does not match the shared secret"}
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
		out := &Event{Provider: "gitlab", DeliveryID: delivery, Kind: EventPush, Branch: branchOf(p.Ref)}
		for _, c := range p.Commits {
			out.Commits = append(out.Commits, Commit{ID: c.ID, Message: c.Message})
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
			HeadBranch: a.SourceBranch, BaseSHA: a.DiffRefs.BaseSHA, MergeSHA: a.MergeCommitSHA}, nil
	default:
		return ignored("gitlab", delivery, "event "+kind+" is not handled"), nil
	}
}
