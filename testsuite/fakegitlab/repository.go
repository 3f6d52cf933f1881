package fakegitlab

import (
	"net/http"
	"time"
)

func (s *Server) getProject(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id": 1, "name": s.Project, "path_with_namespace": s.Project,
		"default_branch": s.cfg.base, "merge_method": s.mergeMethod,
		"http_url_to_repo": s.webURL() + ".git", "web_url": s.webURL(),
	})
}

func (s *Server) getBranch(w http.ResponseWriter, name string) {
	id, ok := s.branches[name]
	if !ok {
		writeError(w, http.StatusNotFound, "404 Branch Not Found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name": name, "commit": commitJSON(s.objects.commits[id]), "default": name == s.cfg.base,
		"merged": false, "protected": name == s.cfg.base, "web_url": s.webURL() + "/-/tree/" + name,
	})
}

// deleteBranch answers DELETE repository/branches/:branch: 204; 404 "Branch Not Found" for a
// branch that is not there; 405 for the default branch, which GitLab never deletes.
func (s *Server) deleteBranch(w http.ResponseWriter, name string) {
	if _, ok := s.branches[name]; !ok {
		writeError(w, http.StatusNotFound, "404 Branch Not Found")
		return
	}
	if name == s.cfg.base {
		writeError(w, http.StatusMethodNotAllowed, "Cannot remove HEAD branch")
		return
	}
	delete(s.branches, name)
	w.WriteHeader(http.StatusNoContent)
}

func commitJSON(c *commit) map[string]any {
	parents := c.parents
	if parents == nil {
		parents = []string{}
	}
	return map[string]any{
		"id": c.id, "short_id": c.id[:8], "title": c.title(), "message": c.message,
		"parent_ids": parents, "created_at": c.created.Format(time.RFC3339),
		"authored_date": c.created.Format(time.RFC3339), "committed_date": c.created.Format(time.RFC3339),
		"author_name": "Fake GitLab", "author_email": "fake@gitlab.invalid",
	}
}

func (s *Server) getCommit(w http.ResponseWriter, ref string) {
	c := s.resolve(ref)
	if c == nil {
		writeError(w, http.StatusNotFound, "404 Commit Not Found")
		return
	}
	writeJSON(w, http.StatusOK, commitJSON(c))
}

func (s *Server) rawBlob(w http.ResponseWriter, id string) {
	b, ok := s.objects.blobs[id]
	if !ok {
		writeError(w, http.StatusNotFound, "404 Blob Not Found")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// compare diffs from..to; unless straight=true the diff starts at their merge base,
// as `git diff from...to` does.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from, to := s.resolve(q.Get("from")), s.resolve(q.Get("to"))
	if from == nil || to == nil {
		writeError(w, http.StatusNotFound, "404 Ref Not Found")
		return
	}
	base := from
	if q.Get("straight") != "true" {
		if mb := s.objects.mergeBase(from.id, to.id); mb != "" {
			base = s.objects.commits[mb]
		}
	}
	diffs := []map[string]any{}
	for p, old := range base.files {
		if cur, ok := to.files[p]; !ok || cur != old {
			diffs = append(diffs, map[string]any{"old_path": p, "new_path": p, "deleted_file": !ok,
				"new_file": false, "renamed_file": false, "a_mode": "100644", "b_mode": "100644"})
		}
	}
	for p := range to.files {
		if _, ok := base.files[p]; !ok {
			diffs = append(diffs, map[string]any{"old_path": p, "new_path": p, "new_file": true,
				"deleted_file": false, "renamed_file": false, "a_mode": "0", "b_mode": "100644"})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"commit": commitJSON(to), "commits": []any{},
		"diffs": diffs, "compare_same_ref": from.id == to.id, "compare_timeout": false})
}
