package fakegitlab

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// CommitStatus is one external commit status as the fake recorded it.
type CommitStatus struct {
	Name        string
	State       string // pending, running, success, failed, canceled, skipped
	Description string
	TargetURL   string
}

type commitStatus struct {
	CommitStatus
	id      int
	sha     string
	retried bool // a newer status of the same name replaced it
	created time.Time
}

type note struct {
	id      int
	body    string
	created time.Time
}

// reports holds commit statuses and MR notes; nil until the first.
type reports struct {
	statuses []*commitStatus
	notes    map[int][]note // MR iid → notes, oldest first
	nextID   int
}

func (s *Server) report() *reports {
	if s.reports == nil {
		s.reports = &reports{notes: map[int][]note{}}
	}
	return s.reports
}

// statusEvents names the state machine event that moves a status into each state.
var statusEvents = map[string]string{"pending": "enqueue", "running": "run", "success": "success",
	"failed": "drop", "canceled": "cancel", "skipped": "skip"}

// allowed lists which states an unfinished status may move to (GitLab's commit status machine).
var allowed = map[string][]string{
	"pending": {"running", "success", "failed", "canceled", "skipped"},
	"running": {"success", "failed", "canceled"},
}

type statusBody struct {
	State       string `json:"state"`
	Ref         string `json:"ref"`
	Name        string `json:"name"`
	Context     string `json:"context"`
	TargetURL   string `json:"target_url"`
	Description string `json:"description"`
}

// setCommitStatus answers POST statuses/:sha. As GitLab does, it moves the pending or running
// status of the same name to the new state (400 when the machine forbids it, e.g. pending
// again), or else starts a new status and marks the older ones of that name retried.
func (s *Server) setCommitStatus(w http.ResponseWriter, r *http.Request, sha string) {
	var body statusBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "400 Bad request - "+err.Error())
		return
	}
	switch {
	case body.State == "":
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state is missing"})
		return
	case statusEvents[body.State] == "":
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state does not have a valid value"})
		return
	case s.objects.commits[sha] == nil:
		writeError(w, http.StatusNotFound, "404 Commit Not Found")
		return
	}
	name := body.Name
	if name == "" {
		name = body.Context
	}
	if name == "" {
		name = "default"
	}
	rep := s.report()
	var live *commitStatus
	for _, st := range rep.statuses {
		if st.sha == sha && st.Name == name && !st.retried && allowed[st.State] != nil {
			live = st
		}
	}
	if live != nil {
		if !slices.Contains(allowed[live.State], body.State) {
			event := statusEvents[body.State]
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Cannot transition status via :%s from :%s (Reason(s): Status cannot transition via %q)",
				event, live.State, event))
			return
		}
		live.State, live.Description, live.TargetURL = body.State, body.Description, body.TargetURL
		writeJSON(w, http.StatusCreated, s.statusJSON(live, body.Ref))
		return
	}
	for _, st := range rep.statuses {
		if st.sha == sha && st.Name == name {
			st.retried = true
		}
	}
	rep.nextID++
	st := &commitStatus{CommitStatus: CommitStatus{Name: name, State: body.State, Description: body.Description,
		TargetURL: body.TargetURL}, id: rep.nextID, sha: sha, created: time.Now().UTC()}
	rep.statuses = append(rep.statuses, st)
	writeJSON(w, http.StatusCreated, s.statusJSON(st, body.Ref))
}

func (s *Server) statusJSON(st *commitStatus, ref string) map[string]any {
	nullable := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	return map[string]any{"id": st.id, "sha": st.sha, "ref": nullable(ref), "status": st.State, "name": st.Name,
		"description": st.Description, "target_url": nullable(st.TargetURL), "allow_failure": false,
		"created_at": st.created.Format(time.RFC3339Nano), "author": map[string]any{"id": 1, "username": "slipway-bot"}}
}

// listNotes answers GET merge_requests/:iid/notes: sort desc (GitLab's default) or asc, paginated.
func (s *Server) listNotes(w http.ResponseWriter, r *http.Request, iid string) {
	mr := s.findMR(w, iid)
	if mr == nil {
		return
	}
	out := []map[string]any{}
	for _, n := range s.report().notes[mr.iid] {
		out = append(out, s.noteJSON(mr, n))
	}
	if r.URL.Query().Get("sort") != "asc" {
		slices.Reverse(out)
	}
	writeJSON(w, http.StatusOK, page(s, w, r, out))
}

// createNote answers POST merge_requests/:iid/notes; an empty body is GitLab's 400.
func (s *Server) createNote(w http.ResponseWriter, r *http.Request, iid string) {
	mr := s.findMR(w, iid)
	if mr == nil {
		return
	}
	var body struct {
		Body string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "400 Bad request - "+err.Error())
		return
	}
	if body.Body == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing"})
		return
	}
	rep := s.report()
	rep.nextID++
	n := note{id: rep.nextID, body: body.Body, created: time.Now().UTC()}
	rep.notes[mr.iid] = append(rep.notes[mr.iid], n)
	writeJSON(w, http.StatusCreated, s.noteJSON(mr, n))
}

func (s *Server) noteJSON(mr *mergeRequest, n note) map[string]any {
	at := n.created.Format(time.RFC3339Nano)
	return map[string]any{"id": n.id, "type": nil, "body": n.body, "system": false, "created_at": at, "updated_at": at,
		"noteable_id": 1000 + mr.iid, "noteable_iid": mr.iid, "noteable_type": "MergeRequest",
		"resolvable": false, "confidential": false, "internal": false,
		"author": map[string]any{"id": 1, "username": "slipway-bot", "name": "slipway"}}
}

// Statuses returns what GitLab shows on commit sha: the current status of each name, in the
// order the names first appeared.
func (s *Server) Statuses(sha string) []CommitStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reports == nil {
		return nil
	}
	var out []CommitStatus
	at := map[string]int{}
	for _, st := range s.reports.statuses {
		if st.sha != sha {
			continue
		}
		if i, ok := at[st.Name]; ok {
			out[i] = st.CommitStatus // a later status of the name retried the earlier one
			continue
		}
		at[st.Name] = len(out)
		out = append(out, st.CommitStatus)
	}
	return out
}

// StatusCount returns how many statuses commit sha has, retried ones included.
func (s *Server) StatusCount(sha string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if s.reports != nil {
		for _, st := range s.reports.statuses {
			if st.sha == sha {
				n++
			}
		}
	}
	return n
}

// Notes returns the bodies of the notes on merge request iid, oldest first.
func (s *Server) Notes(iid int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reports == nil {
		return nil
	}
	var out []string
	for _, n := range s.reports.notes[iid] {
		out = append(out, n.body)
	}
	return out
}
