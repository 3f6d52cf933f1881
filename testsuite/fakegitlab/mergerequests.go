package fakegitlab

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

type mergeRequest struct {
	iid          int
	title        string
	description  string
	source       string
	target       string
	state        string // opened, merged, closed
	lastHead     string // the source branch's head when merged or closed
	mergeCommit  string
	created      time.Time
	removeSource bool
}

// head is the source branch's current head, or the head it had when merged or closed (GitLab
// keeps a closed MR's diff after its branch is deleted or reused).
func (s *Server) head(mr *mergeRequest) string {
	if mr.state != "opened" {
		return mr.lastHead
	}
	return s.branches[mr.source]
}

func (s *Server) mrJSON(mr *mergeRequest) map[string]any {
	status, detailed, conflicts := "can_be_merged", "mergeable", false
	if mr.state == "opened" && s.branches[mr.source] != "" && s.branches[mr.target] != "" {
		if _, c := s.objects.merge(s.branches[mr.target], s.branches[mr.source]); len(c) > 0 {
			status, detailed, conflicts = "cannot_be_merged", "conflict", true
		}
	}
	var mergeSHA any
	if mr.mergeCommit != "" {
		mergeSHA = mr.mergeCommit
	}
	return map[string]any{
		"id": 1000 + mr.iid, "iid": mr.iid, "project_id": 1, "title": mr.title, "description": mr.description,
		"state": mr.state, "source_branch": mr.source, "target_branch": mr.target,
		"source_project_id": 1, "target_project_id": 1, "sha": s.head(mr), "merge_commit_sha": mergeSHA,
		"merge_status": status, "detailed_merge_status": detailed, "has_conflicts": conflicts, "created_at": mr.created.Format(time.RFC3339Nano),
		"should_remove_source_branch": mr.removeSource,
		"web_url":                     fmt.Sprintf("%s/-/merge_requests/%d", s.webURL(), mr.iid),
	}
}

// listMergeRequests answers GET merge_requests with state/source_branch/target_branch
// filters, order_by created_at|updated_at and sort asc|desc (default created_at desc).
func (s *Server) listMergeRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state != "" && !slices.Contains([]string{"opened", "closed", "locked", "merged", "all"}, state) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state does not have a valid value"})
		return
	}
	var out []map[string]any
	for _, mr := range s.mrs {
		if (state != "" && state != "all" && mr.state != state) ||
			(q.Get("source_branch") != "" && mr.source != q.Get("source_branch")) ||
			(q.Get("target_branch") != "" && mr.target != q.Get("target_branch")) {
			continue
		}
		out = append(out, s.mrJSON(mr))
	}
	if q.Get("sort") != "asc" {
		slices.Reverse(out)
	}
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, page(s, w, r, out))
}

func (s *Server) findMR(w http.ResponseWriter, iid string) *mergeRequest {
	n, err := strconv.Atoi(iid)
	if err != nil || n < 1 || n > len(s.mrs) {
		writeError(w, http.StatusNotFound, "404 Not found")
		return nil
	}
	return s.mrs[n-1]
}

func (s *Server) getMergeRequest(w http.ResponseWriter, iid string) {
	if mr := s.findMR(w, iid); mr != nil {
		writeJSON(w, http.StatusOK, s.mrJSON(mr))
	}
}

type createMRBody struct {
	SourceBranch       string `json:"source_branch"`
	TargetBranch       string `json:"target_branch"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	RemoveSourceBranch bool   `json:"remove_source_branch"`
}

// createMergeRequest answers POST merge_requests; a second open MR for one source branch is 409.
func (s *Server) createMergeRequest(w http.ResponseWriter, r *http.Request) {
	var body createMRBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "400 Bad request - "+err.Error())
		return
	}
	for field, v := range map[string]string{"source_branch": body.SourceBranch, "target_branch": body.TargetBranch, "title": body.Title} {
		if v == "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": field + " is missing"})
			return
		}
	}
	for _, mr := range s.mrs {
		if mr.state == "opened" && mr.source == body.SourceBranch && mr.target == body.TargetBranch {
			writeError(w, http.StatusConflict, []string{fmt.Sprintf("Another open merge request already exists for this source branch: !%d", mr.iid)})
			return
		}
	}
	if _, ok := s.branches[body.SourceBranch]; !ok {
		writeError(w, http.StatusUnprocessableEntity, []string{"Source branch \"" + body.SourceBranch + "\" does not exist"})
		return
	}
	if _, ok := s.branches[body.TargetBranch]; !ok {
		writeError(w, http.StatusUnprocessableEntity, []string{"Target branch \"" + body.TargetBranch + "\" does not exist"})
		return
	}
	mr := &mergeRequest{iid: len(s.mrs) + 1, title: body.Title, description: body.Description, source: body.SourceBranch,
		target: body.TargetBranch, state: "opened", created: time.Now().UTC(), removeSource: body.RemoveSourceBranch}
	s.mrs = append(s.mrs, mr)
	writeJSON(w, http.StatusCreated, s.mrJSON(mr))
}

type acceptBody struct {
	SHA                      string `json:"sha"`
	MergeCommitMessage       string `json:"merge_commit_message"`
	ShouldRemoveSourceBranch *bool  `json:"should_remove_source_branch"`
	Squash                   bool   `json:"squash"`
}

// acceptMergeRequest answers PUT merge_requests/:iid/merge in GitLab's order of checks:
// not open → 405, conflicts → 422 "Branch cannot be merged", sha mismatch → 409.
func (s *Server) acceptMergeRequest(w http.ResponseWriter, r *http.Request, iid string) {
	mr := s.findMR(w, iid)
	if mr == nil {
		return
	}
	var body acceptBody
	if r.ContentLength != 0 {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "400 Bad request - "+err.Error())
			return
		}
	}
	source, target := s.branches[mr.source], s.branches[mr.target]
	if mr.state != "opened" || source == "" || target == "" {
		writeError(w, http.StatusMethodNotAllowed, "405 Method Not Allowed")
		return
	}
	files, conflicts := s.objects.merge(target, source)
	if len(conflicts) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "Branch cannot be merged")
		return
	}
	if body.SHA != "" && body.SHA != source {
		writeError(w, http.StatusConflict, "SHA does not match HEAD of source branch: "+source)
		return
	}
	var merged *commit
	switch s.mergeMethod {
	case "ff":
		if s.objects.mergeBase(target, source) != target {
			writeError(w, http.StatusUnprocessableEntity, "Branch cannot be merged")
			return
		}
		merged = s.objects.commits[source]
	default:
		msg := body.MergeCommitMessage
		if msg == "" {
			msg = fmt.Sprintf("Merge branch '%s' into '%s'\n\n%s\n\nSee merge request %s!%d", mr.source, mr.target, mr.title, s.Project, mr.iid)
		}
		merged = s.objects.putCommit(files, msg, target, source)
	}
	s.branches[mr.target] = merged.id
	mr.state, mr.lastHead, mr.mergeCommit = "merged", source, merged.id
	if body.ShouldRemoveSourceBranch != nil && *body.ShouldRemoveSourceBranch || body.ShouldRemoveSourceBranch == nil && mr.removeSource {
		delete(s.branches, mr.source)
	}
	writeJSON(w, http.StatusOK, s.mrJSON(mr))
}

type updateMRBody struct {
	Title       *string `json:"title"`
	Description *string `json:"description"`
	StateEvent  *string `json:"state_event"`
}

// updateMergeRequest answers PUT merge_requests/:iid for title, description and
// state_event=close; reopen is not modelled (400, like an unknown value). GitLab's close
// transition only leaves opened (or locked): closing a closed MR is a no-op, and so is closing
// a merged one, which the source (MergeRequests::CloseService; the API re-validates before
// answering) returns as 200 with the MR still "merged" rather than an error.
func (s *Server) updateMergeRequest(w http.ResponseWriter, r *http.Request, iid string) {
	mr := s.findMR(w, iid)
	if mr == nil {
		return
	}
	var body updateMRBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "400 Bad request - "+err.Error())
		return
	}
	if body.StateEvent != nil && *body.StateEvent != "close" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state_event does not have a valid value"})
		return
	}
	if body.Title == nil && body.Description == nil && body.StateEvent == nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "title, description, state_event are missing, at least one parameter must be provided"})
		return
	}
	if body.Title != nil {
		mr.title = *body.Title
	}
	if body.Description != nil {
		mr.description = *body.Description
	}
	if body.StateEvent != nil && mr.state == "opened" {
		mr.state, mr.lastHead = "closed", s.branches[mr.source]
	}
	writeJSON(w, http.StatusOK, s.mrJSON(mr))
}
