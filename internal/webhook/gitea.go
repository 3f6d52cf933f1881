package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
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

// parseGitea checks X-Gitea-Signature or X-Forgejo-Signature (hex HMAC-SHA256 of
// the body) in constant time, then reads push and pull_request events.
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
