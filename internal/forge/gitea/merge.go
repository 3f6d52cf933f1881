package gitea

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

const (
	// mergePoll is the pause between merge attempts while Gitea's background check runs.
	mergePoll = 200 * time.Millisecond
	// conflictSettle is how long a PR that touches files the base also changed may stay
	// unmergeable before it counts as a conflict (Gitea's check is usually done in well under this).
	conflictSettle = 3 * time.Second
)

// conflictLine is git's "CONFLICT (content): Merge conflict in PATH" as Gitea passes it on.
var conflictLine = regexp.MustCompile(`CONFLICT \([^)]*\): Merge conflict in (\S+)`)

// Merge merges an open PR with a merge commit, pinned to mr.HeadSHA; merging a merged PR
// returns it unchanged.
func (f *Forge) Merge(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	pr, err := f.findPR(ctx, mr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	want := mr.HeadSHA
	if want == "" {
		want = pr.Head.Sha
	}
	// A merge cut off by a lost request can be in git but not in Gitea's record of the PR.
	if !pr.HasMerged && pr.State != sdk.StateClosed && pr.Head.Sha == want {
		if sha, err := f.mergeCommitOf(ctx, want); err != nil || sha != "" {
			if err != nil {
				return forge.MergeRequest{}, err
			}
			return f.mergedInGit(ctx, pr, sha)
		}
	}
	waitUntil := time.Now().Add(f.cfg.checkWait)
	var unmergeableSince time.Time
	for {
		switch {
		case pr.HasMerged:
			return f.toMR(ctx, pr)
		case pr.State == sdk.StateClosed:
			return forge.MergeRequest{}, &ClosedError{Branch: headBranch(pr), ID: strconv.FormatInt(pr.Index, 10)}
		case pr.Head.Sha != want:
			return forge.MergeRequest{}, &forge.HeadChangedError{Branch: pr.Head.Ref, Want: want, Got: pr.Head.Sha}
		}
		status, msg, body, err := f.postMerge(ctx, pr.Index, want)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		switch {
		case status == http.StatusOK:
			// Re-read below: the merge commit SHA is only on the PR.
		case status == http.StatusConflict && strings.Contains(msg, "head out of date"):
			// Re-read below: the head check at the top names the new head.
		case status == http.StatusConflict && strings.Contains(msg, "out of date"):
			return forge.MergeRequest{}, fmt.Errorf("gitea: merge %s: %s: %w", pr.Head.Ref, msg, forge.ErrBaseMoved)
		case status == http.StatusConflict:
			return forge.MergeRequest{}, f.conflict(ctx, pr, string(body))
		case status == http.StatusMethodNotAllowed && strings.Contains(msg, "try again later"):
			// Checking or conflicting: Gitea's API does not say which, so look at the files.
			if unmergeableSince.IsZero() {
				unmergeableSince = time.Now()
			}
			paths, err := f.overlap(ctx, pr)
			if err != nil {
				return forge.MergeRequest{}, err
			}
			if len(paths) > 0 && time.Since(unmergeableSince) >= conflictSettle {
				return forge.MergeRequest{}, &forge.ConflictError{Branch: pr.Head.Ref, Paths: paths}
			}
			if time.Now().After(waitUntil) {
				return forge.MergeRequest{}, &NotMergeableError{Branch: pr.Head.Ref, Reason: msg}
			}
			select {
			case <-ctx.Done():
				return forge.MergeRequest{}, ctx.Err()
			case <-time.After(mergePoll):
			}
		case status == http.StatusMethodNotAllowed && strings.Contains(msg, "already merged"), status == http.StatusNotFound:
			// Re-read below: merged or closed meanwhile.
		default:
			return forge.MergeRequest{}, classifyStatus("merge "+pr.Head.Ref, "", status, http.Header{}, errors.New(msg))
		}
		if pr, err = f.getPR(ctx, pr.Index, pr.Head.Ref); err != nil {
			return forge.MergeRequest{}, err
		}
	}
}

// findPR looks the PR up by its number, or by branch when the ID is not one.
func (f *Forge) findPR(ctx context.Context, mr forge.MergeRequest) (*sdk.PullRequest, error) {
	if n, err := strconv.ParseInt(mr.ID, 10, 64); err == nil && n > 0 {
		return f.getPR(ctx, n, mr.Branch)
	}
	if err := forge.CheckRefName("branch", mr.Branch); err != nil {
		return nil, err
	}
	pr, resp, err := f.client(ctx).GetPullRequestByBaseHead(f.owner, f.repo, f.cfg.base, mr.Branch)
	if err != nil {
		return nil, classify("get pull request", "pull request for branch "+mr.Branch, resp, err)
	}
	return pr, nil
}

func (f *Forge) getPR(ctx context.Context, index int64, branch string) (*sdk.PullRequest, error) {
	pr, resp, err := f.client(ctx).GetPullRequest(f.owner, f.repo, index)
	if err != nil {
		return nil, classify("get pull request #"+strconv.FormatInt(index, 10),
			"pull request #"+strconv.FormatInt(index, 10)+" (branch "+branch+")", resp, err)
	}
	if pr.Head == nil {
		return nil, &APIError{Op: "get pull request", Err: fmt.Errorf("pull request #%d has no head", index)}
	}
	return pr, nil
}

// postMerge calls POST /repos/{owner}/{repo}/pulls/{index}/merge itself, because the SDK
// hides the body of a 409 (the conflict details) behind its error.
func (f *Forge) postMerge(ctx context.Context, index int64, head string) (status int, msg string, body []byte, err error) {
	no := false
	return f.postMergeBody(ctx, index, map[string]any{"Do": "merge", "head_commit_id": head, "delete_branch_after_merge": &no})
}

func (f *Forge) postMergeBody(ctx context.Context, index int64, form map[string]any) (status int, msg string, body []byte, err error) {
	payload, _ := json.Marshal(form)
	u := fmt.Sprintf("%s/api/v1/repos/%s/%s/pulls/%d/merge", f.baseURL, f.owner, f.repo, index)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return 0, "", nil, &APIError{Op: "merge", Err: err}
	}
	req.Header.Set("Authorization", "token "+f.cfg.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := f.cfg.httpClient.Do(req)
	if err != nil {
		return 0, "", nil, &APIError{Op: "merge", Err: err}
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		msg = e.Message
	} else {
		msg = strings.TrimSpace(string(body))
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusUnauthorized, http.StatusForbidden:
		return resp.StatusCode, msg, body, classifyStatus("merge", "", resp.StatusCode, resp.Header, errors.New(msg))
	}
	return resp.StatusCode, msg, body, nil
}

// conflict builds the ConflictError for a 409 merge answer: git's CONFLICT lines when Gitea
// passes them on, else the files both sides changed.
func (f *Forge) conflict(ctx context.Context, pr *sdk.PullRequest, body string) error {
	var paths []string
	for _, m := range conflictLine.FindAllStringSubmatch(body, -1) {
		paths = append(paths, m[1])
	}
	if len(paths) == 0 {
		var err error
		if paths, err = f.overlap(ctx, pr); err != nil {
			return err
		}
	}
	if len(paths) == 0 {
		// No file is changed on both sides: a concurrent merge moved the base under this
		// one. That is worth a retry, not an operator.
		return fmt.Errorf("gitea: merge %s: conflict answer with no conflicting files: %w", pr.Head.Ref, forge.ErrBaseMoved)
	}
	return &forge.ConflictError{Branch: pr.Head.Ref, Paths: paths}
}

// overlap lists the files the PR changes that the base also changed since the PR branched.
func (f *Forge) overlap(ctx context.Context, pr *sdk.PullRequest) ([]string, error) {
	mr, err := f.toMR(ctx, pr)
	if err != nil {
		return nil, err
	}
	baseHead, err := f.Head(ctx)
	if err != nil {
		return nil, err
	}
	if baseHead == mr.BaseSHA {
		return nil, nil
	}
	c := f.client(ctx)
	var changed []string
	for page := 1; page > 0; {
		files, resp, err := c.ListPullRequestFiles(f.owner, f.repo, pr.Index,
			sdk.ListPullRequestFilesOptions{ListOptions: sdk.ListOptions{Page: page, PageSize: listPageSize}})
		if err != nil {
			return nil, classify("list pull request files", "", resp, err)
		}
		for _, file := range files {
			changed = append(changed, file.Filename)
		}
		page = resp.NextPage
	}
	var both []string
	for _, p := range changed {
		before, err := f.blobAt(ctx, mr.BaseSHA, p)
		if err != nil {
			return nil, err
		}
		now, err := f.blobAt(ctx, baseHead, p)
		if err != nil {
			return nil, err
		}
		if before != now {
			both = append(both, p)
		}
	}
	return both, nil
}

// blobAt is the blob SHA of file p at rev, "" when it does not exist there.
func (f *Forge) blobAt(ctx context.Context, rev, p string) (string, error) {
	content, resp, err := f.client(ctx).GetContents(f.owner, f.repo, rev, p)
	if err != nil {
		if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusNotFound {
			return "", nil
		}
		return "", classify("get "+p+" at "+rev, "", resp, err)
	}
	return content.SHA, nil
}
