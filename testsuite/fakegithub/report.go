package fakegithub

import (
	"net/http"
	"strconv"
	"time"
)

// Status is one commit status as the fake recorded it.
type Status struct {
	State       string
	Context     string
	Description string
	TargetURL   string
}

// reports holds a repository's commit statuses and issue comments.
type reports struct {
	statuses map[string][]Status    // commit SHA → every status posted, oldest first (GitHub keeps them all)
	comments map[int][]issueComment // pull number → comments, oldest first
	nextID   int
}

type issueComment struct {
	id      int
	body    string
	created time.Time
}

func (rp *repo) report() *reports {
	if rp.reports == nil {
		rp.reports = &reports{statuses: map[string][]Status{}, comments: map[int][]issueComment{}}
	}
	return rp.reports
}

// createStatus answers POST /repos/{owner}/{repo}/statuses/{sha}: 201, 422 "No commit found
// for SHA" for a commit the repository lacks (what GitHub answers), 422 Validation Failed for a bad state.
func (s *Server) createStatus(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	sha := r.PathValue("sha")
	if rp.objects.commits[sha].tree == "" {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha)
		return
	}
	switch in.State {
	case "error", "failure", "pending", "success":
	default:
		writeValidation(w, "Status", "state", "invalid")
		return
	}
	if in.Context == "" {
		in.Context = "default" // GitHub's documented default
	}
	rep := rp.report()
	rep.nextID++
	st := Status{State: in.State, Context: in.Context, Description: in.Description, TargetURL: in.TargetURL}
	rep.statuses[sha] = append(rep.statuses[sha], st)
	now := time.Now().UTC().Format(time.RFC3339)
	writeJSON(w, http.StatusCreated, map[string]any{"id": rep.nextID, "url": s.repoURL(r, rp) + "/statuses/" + sha,
		"state": st.State, "context": st.Context, "description": st.Description, "target_url": st.TargetURL,
		"created_at": now, "updated_at": now})
}

// listComments answers GET /repos/{owner}/{repo}/issues/{number}/comments, oldest first, paginated.
func (s *Server) listComments(w http.ResponseWriter, r *http.Request, rp *repo) {
	p := s.findPull(w, r, rp)
	if p == nil {
		return
	}
	out := []map[string]any{}
	for _, c := range paginate(w, r, rp.report().comments[p.number]) {
		out = append(out, s.commentJSON(r, rp, p, c))
	}
	writeJSON(w, http.StatusOK, out)
}

// createComment answers POST /repos/{owner}/{repo}/issues/{number}/comments.
func (s *Server) createComment(w http.ResponseWriter, r *http.Request, rp *repo) {
	p := s.findPull(w, r, rp)
	if p == nil {
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	if in.Body == nil {
		writeValidation(w, "IssueComment", "body", "missing_field")
		return
	}
	rep := rp.report()
	rep.nextID++
	c := issueComment{id: rep.nextID, body: *in.Body, created: time.Now()}
	rep.comments[p.number] = append(rep.comments[p.number], c)
	writeJSON(w, http.StatusCreated, s.commentJSON(r, rp, p, c))
}

func (s *Server) commentJSON(r *http.Request, rp *repo, p *pull, c issueComment) map[string]any {
	at := c.created.UTC().Format(time.RFC3339)
	return map[string]any{"id": c.id, "body": c.body, "created_at": at, "updated_at": at,
		"url":                s.repoURL(r, rp) + "/issues/comments/" + strconv.Itoa(c.id),
		"issue_url":          s.repoURL(r, rp) + "/issues/" + strconv.Itoa(p.number),
		"html_url":           "http://" + r.Host + "/" + rp.owner + "/" + rp.name + "/pull/" + strconv.Itoa(p.number) + "#issuecomment-" + strconv.Itoa(c.id),
		"user":               map[string]any{"login": "slipway-bot", "type": "Bot"},
		"author_association": "NONE"}
}

// Statuses returns what GitHub shows on commit sha of owner/name: the latest status of each
// context, in the order the contexts first appeared.
func (s *Server) Statuses(owner, name, sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[owner+"/"+name]
	if rp == nil || rp.reports == nil {
		return nil
	}
	var out []Status
	at := map[string]int{}
	for _, st := range rp.reports.statuses[sha] {
		if i, ok := at[st.Context]; ok {
			out[i] = st
			continue
		}
		at[st.Context] = len(out)
		out = append(out, st)
	}
	return out
}

// StatusCount returns how many statuses were posted on commit sha of owner/name in all.
func (s *Server) StatusCount(owner, name, sha string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repos[owner+"/"+name]; rp != nil && rp.reports != nil {
		return len(rp.reports.statuses[sha])
	}
	return 0
}

// Comments returns the bodies of the comments on pull request number of owner/name, oldest first.
func (s *Server) Comments(owner, name string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[owner+"/"+name]
	if rp == nil || rp.reports == nil {
		return nil
	}
	var out []string
	for _, c := range rp.reports.comments[number] {
		out = append(out, c.body)
	}
	return out
}
