package fakegitlab

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path"
	"strings"
)

type commitAction struct {
	Action   string `json:"action"`
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

type createCommitBody struct {
	Branch        string         `json:"branch"`
	CommitMessage string         `json:"commit_message"`
	StartBranch   string         `json:"start_branch"`
	StartSHA      string         `json:"start_sha"`
	Actions       []commitAction `json:"actions"`
}

// createCommit answers POST repository/commits: every action lands in ONE commit; with
// start_branch/start_sha the branch is created and must not exist yet.
func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var body createCommitBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "400 Bad request - "+err.Error())
		return
	}
	switch {
	case body.Branch == "":
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "branch is missing"})
		return
	case body.CommitMessage == "":
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "commit_message is missing"})
		return
	case len(body.Actions) == 0:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "actions is missing"})
		return
	}
	start := body.StartSHA
	if start == "" && body.StartBranch != "" {
		start = s.branches[body.StartBranch]
		if start == "" {
			writeError(w, http.StatusBadRequest, "Invalid reference name: "+body.StartBranch)
			return
		}
	}
	_, exists := s.branches[body.Branch]
	switch {
	case start != "" && exists:
		writeError(w, http.StatusBadRequest, "A branch called '"+body.Branch+"' already exists. Switch to that branch in order to make changes")
		return
	case start == "" && !exists:
		writeError(w, http.StatusBadRequest, "You can only create or edit files when you are on a branch")
		return
	case start == "":
		start = s.branches[body.Branch]
	}
	parent := s.objects.commits[start]
	if parent == nil {
		writeError(w, http.StatusBadRequest, "Invalid reference name: "+start)
		return
	}
	files := map[string]string{}
	for p, id := range parent.files {
		files[p] = id
	}
	for _, a := range body.Actions {
		p := a.FilePath
		if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.Contains(p, "..") {
			writeError(w, http.StatusBadRequest, "Your changes could not be committed, because the file path is invalid: "+p)
			return
		}
		content := []byte(a.Content)
		if a.Encoding == "base64" {
			raw, err := base64.StdEncoding.DecodeString(a.Content)
			if err != nil {
				writeError(w, http.StatusBadRequest, "Your changes could not be committed, because the content of "+p+" is not valid base64")
				return
			}
			content = raw
		}
		_, has := files[p]
		switch a.Action {
		case "create":
			if has {
				writeError(w, http.StatusBadRequest, "A file with this name already exists")
				return
			}
			files[p] = s.objects.putBlob(content)
		case "update":
			if !has {
				writeError(w, http.StatusBadRequest, "A file with this name doesn't exist")
				return
			}
			files[p] = s.objects.putBlob(content)
		case "delete":
			if !has {
				writeError(w, http.StatusBadRequest, "A file with this name doesn't exist")
				return
			}
			delete(files, p)
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "actions[action] does not have a valid value"})
			return
		}
	}
	c := s.objects.putCommit(files, body.CommitMessage, parent.id)
	s.branches[body.Branch] = c.id
	writeJSON(w, http.StatusCreated, commitJSON(c))
}
