package fakegithub

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

type pull struct {
	number   int
	title    string
	body     string
	head     string // branch
	headSHA  string // the branch's head when the PR closed (merged or not); it follows the branch while open
	baseSHA  string // base head when opened; GitHub updates it on pushes, which slipway never makes
	closed   bool
	mergeSHA string
	created  time.Time
	mergedAt time.Time
}

func (s *Server) pullJSON(r *http.Request, rp *repo, p *pull) map[string]any {
	state, merged := "open", p.mergeSHA != ""
	if p.closed {
		state = "closed"
	}
	out := map[string]any{
		"number": p.number, "state": state, "title": p.title, "body": p.body, "merged": merged,
		"html_url":   "http://" + r.Host + "/" + rp.owner + "/" + rp.name + "/pull/" + strconv.Itoa(p.number),
		"url":        s.repoURL(r, rp) + "/pulls/" + strconv.Itoa(p.number),
		"created_at": p.created.UTC().Format(time.RFC3339),
		"head": map[string]any{"ref": p.head, "sha": rp.headOf(p), "label": rp.owner + ":" + p.head,
			"repo": map[string]any{"full_name": rp.owner + "/" + rp.name}},
		"base": map[string]any{"ref": rp.base, "sha": p.baseSHA, "label": rp.owner + ":" + rp.base,
			"repo": map[string]any{"full_name": rp.owner + "/" + rp.name}},
	}
	out["merged_at"] = nil
	if merged {
		out["merge_commit_sha"] = p.mergeSHA
		out["merged_at"] = p.mergedAt.UTC().Format(time.RFC3339)
	}
	if !p.closed {
		_, conflicts := rp.tryMerge(p)
		out["mergeable"] = len(conflicts) == 0
		out["mergeable_state"] = map[bool]string{true: "clean", false: "dirty"}[len(conflicts) == 0]
	}
	return out
}

// headOf is the PR's head commit: the branch's while open, frozen once closed, so a closed PR
// keeps its head after its branch is deleted (or reused by a newer PR).
func (rp *repo) headOf(p *pull) string {
	if p.closed {
		return p.headSHA
	}
	return rp.refs[p.head]
}

// tryMerge computes the merge of p's head into the base without moving anything.
func (rp *repo) tryMerge(p *pull) (tree string, conflicts []string) {
	o := rp.objects
	ours, theirs := rp.refs[rp.base], rp.refs[p.head]
	mb := o.mergeBase(ours, theirs)
	merged, conflicts := merge3(o.flatten(o.commits[mb].tree), o.flatten(o.commits[ours].tree), o.flatten(o.commits[theirs].tree))
	if len(conflicts) > 0 {
		return "", conflicts
	}
	return o.build(merged), nil
}

func (s *Server) findPull(w http.ResponseWriter, r *http.Request, rp *repo) *pull {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err == nil && n >= 1 && n <= len(rp.pulls) {
		return rp.pulls[n-1]
	}
	writeError(w, http.StatusNotFound, "Not Found")
	return nil
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, rp *repo) {
	if p := s.findPull(w, r, rp); p != nil {
		writeJSON(w, http.StatusOK, s.pullJSON(r, rp, p))
	}
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request, rp *repo) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var match []*pull
	for _, p := range rp.pulls {
		switch {
		case state == "open" && p.closed, state == "closed" && !p.closed:
		case q.Get("head") != "" && q.Get("head") != rp.owner+":"+p.head:
		case q.Get("base") != "" && q.Get("base") != rp.base:
		default:
			match = append(match, p)
		}
	}
	if q.Get("direction") != "asc" { // GitHub's default for sort=created is newest first
		for i, j := 0, len(match)-1; i < j; i, j = i+1, j-1 {
			match[i], match[j] = match[j], match[i]
		}
	}
	out := []map[string]any{}
	for _, p := range paginate(w, r, match) {
		out = append(out, s.pullJSON(r, rp, p))
	}
	writeJSON(w, http.StatusOK, out)
}

// paginate cuts items to the requested page and sets GitHub's Link header.
func paginate[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 30
	}
	per = min(per, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	last := max(1, (len(items)+per-1)/per)
	link := func(n int, rel string) string {
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(per))
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"), link(1, "first"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := min((page-1)*per, len(items))
	return items[start:min(start+per, len(items))]
}

func (s *Server) createPull(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct{ Title, Head, Base, Body string }
	if !readJSON(w, r, &in) {
		return
	}
	head := strings.TrimPrefix(in.Head, rp.owner+":")
	switch {
	case in.Title == "":
		writeValidation(w, "PullRequest", "title", "missing_field")
	case in.Base != rp.base:
		writeValidation(w, "PullRequest", "base", "invalid")
	case rp.refs[head] == "":
		writeValidation(w, "PullRequest", "head", "invalid")
	case rp.objects.ancestors(rp.refs[rp.base])[rp.refs[head]]:
		writeErrorDoc(w, http.StatusUnprocessableEntity, "Validation Failed: No commits between "+in.Base+" and "+head, docsURL)
	default:
		for _, p := range rp.pulls {
			if p.head == head && !p.closed {
				writeErrorDoc(w, http.StatusUnprocessableEntity, "Validation Failed: A pull request already exists for "+rp.owner+":"+head+".", docsURL)
				return
			}
		}
		p := &pull{number: len(rp.pulls) + 1, title: in.Title, body: in.Body, head: head,
			baseSHA: rp.refs[rp.base], created: time.Now()}
		rp.pulls = append(rp.pulls, p)
		writeJSON(w, http.StatusCreated, s.pullJSON(r, rp, p))
	}
}

func writeValidation(w http.ResponseWriter, resource, field, code string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "documentation_url": docsURL,
		"errors": []map[string]any{{"resource": resource, "field": field, "code": code}}})
}

func (s *Server) mergePull(w http.ResponseWriter, r *http.Request, rp *repo) {
	p := s.findPull(w, r, rp)
	if p == nil {
		return
	}
	var in struct {
		SHA           string
		MergeMethod   string `json:"merge_method"`
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	if len(s.mergeFail) > 0 {
		status := s.mergeFail[0]
		s.mergeFail = s.mergeFail[1:]
		msg := map[int]string{http.StatusMethodNotAllowed: "Base branch was modified. Review and try the merge again.",
			http.StatusConflict: "Head branch was modified. Review and try the merge again."}[status]
		writeError(w, status, msg)
		return
	}
	if in.MergeMethod != "" && in.MergeMethod != "merge" {
		writeError(w, http.StatusMethodNotAllowed, "fake supports only merge_method merge")
		return
	}
	if p.closed {
		writeError(w, http.StatusMethodNotAllowed, "Pull Request is not mergeable")
		return
	}
	if in.SHA != "" && in.SHA != rp.refs[p.head] {
		writeError(w, http.StatusConflict, "Head branch was modified. Review and try the merge again.")
		return
	}
	tree, conflicts := rp.tryMerge(p)
	if len(conflicts) > 0 {
		writeError(w, http.StatusMethodNotAllowed, "Pull Request is not mergeable")
		return
	}
	title := in.CommitTitle
	if title == "" {
		title = fmt.Sprintf("Merge pull request #%d from %s/%s", p.number, rp.owner, p.head)
	}
	msg := title + "\n\n" + in.CommitMessage
	p.mergeSHA = rp.objects.putCommit(tree, []string{rp.refs[rp.base], rp.refs[p.head]}, msg)
	rp.refs[rp.base] = p.mergeSHA
	p.closed, p.headSHA, p.mergedAt = true, rp.refs[p.head], time.Now()
	writeJSON(w, http.StatusOK, map[string]any{"sha": p.mergeSHA, "merged": true, "message": "Pull Request successfully merged"})
}

// updatePull answers PATCH /repos/{owner}/{repo}/pulls/{number} for what slipway sends: title,
// body and state. Closing a closed PR changes nothing (200). A merged PR's state cannot change:
// 422 Validation Failed, as for the other fields GitHub refuses. Reopening is not modelled.
func (s *Server) updatePull(w http.ResponseWriter, r *http.Request, rp *repo) {
	p := s.findPull(w, r, rp)
	if p == nil {
		return
	}
	var in struct {
		Title, Body, State *string
	}
	if !readJSON(w, r, &in) {
		return
	}
	switch {
	case in.State != nil && *in.State != "open" && *in.State != "closed":
		writeValidation(w, "PullRequest", "state", "invalid")
		return
	case in.State != nil && p.mergeSHA != "":
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "documentation_url": docsURL,
			"errors": []map[string]any{{"resource": "PullRequest", "field": "state", "code": "custom",
				"message": "state cannot be changed. The pull request has already been merged."}}})
		return
	case in.State != nil && *in.State == "open" && p.closed:
		writeError(w, http.StatusUnprocessableEntity, "fake does not model reopening a pull request")
		return
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	if in.State != nil && *in.State == "closed" && !p.closed {
		p.closed, p.headSHA = true, rp.refs[p.head]
	}
	writeJSON(w, http.StatusOK, s.pullJSON(r, rp, p))
}

// compare answers /compare/BASE...HEAD: the merge base and the files HEAD changed since it.
func (s *Server) compare(w http.ResponseWriter, r *http.Request, rp *repo) {
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	resolve := func(rev string) string {
		if sha := rp.refs[rev]; sha != "" {
			return sha
		}
		if rp.objects.commits[rev].tree != "" {
			return rev
		}
		return ""
	}
	base, head = resolve(base), resolve(head)
	if !ok || base == "" || head == "" {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	o := rp.objects
	mb := o.mergeBase(base, head)
	files := []map[string]any{}
	from, to := o.flatten(o.commits[mb].tree), o.flatten(o.commits[head].tree)
	for _, p := range changed(from, to) {
		status := "modified"
		if from[p] == "" {
			status = "added"
		} else if to[p] == "" {
			status = "removed"
		}
		files = append(files, map[string]any{"filename": p, "status": status, "sha": to[p]})
	}
	writeJSON(w, http.StatusOK, map[string]any{"merge_base_commit": s.commitJSON(r, rp, mb),
		"base_commit": s.commitJSON(r, rp, base), "files": files})
}
