package fakegithub

import (
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"
)

// repo is one in-memory repository: objects plus branch refs.
type repo struct {
	owner, name string
	base        string
	objects     *store
	refs        map[string]string // branch name → commit SHA
	pulls       []*pull
	reports     *reports // commit statuses and comments (report.go); nil until the first
	// collaborators are the logins granted access and their permission (permission.go).
	collaborators map[string]string
}

func (s *Server) repoURL(r *http.Request, rp *repo) string {
	return "http://" + r.Host + "/repos/" + rp.owner + "/" + rp.name
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request, rp *repo) {
	writeJSON(w, http.StatusOK, map[string]any{
		"name": rp.name, "full_name": rp.owner + "/" + rp.name, "default_branch": rp.base,
		"clone_url": "http://" + r.Host + "/" + rp.owner + "/" + rp.name + ".git",
		"html_url":  "http://" + r.Host + "/" + rp.owner + "/" + rp.name,
	})
}

func (s *Server) refJSON(r *http.Request, rp *repo, branch string) map[string]any {
	return map[string]any{"ref": "refs/heads/" + branch, "url": s.repoURL(r, rp) + "/git/refs/heads/" + branch,
		"object": map[string]any{"type": "commit", "sha": rp.refs[branch]}}
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	branch, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
	if !ok || rp.refs[branch] == "" {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.refJSON(r, rp, branch))
}

func (s *Server) createRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct{ Ref, SHA string }
	if !readJSON(w, r, &in) {
		return
	}
	branch, ok := strings.CutPrefix(in.Ref, "refs/heads/")
	switch {
	case !ok || branch == "" || strings.Count(in.Ref, "/") < 2:
		writeError(w, http.StatusUnprocessableEntity, "Reference name is invalid")
	case rp.objects.commits[in.SHA].tree == "":
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
	case rp.refs[branch] != "":
		writeError(w, http.StatusUnprocessableEntity, "Reference already exists")
	default:
		rp.refs[branch] = in.SHA
		writeJSON(w, http.StatusCreated, s.refJSON(r, rp, branch))
	}
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct {
		SHA   string
		Force bool
	}
	if !readJSON(w, r, &in) {
		return
	}
	branch, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
	switch {
	case !ok || rp.refs[branch] == "":
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
	case rp.objects.commits[in.SHA].tree == "":
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
	case !in.Force && !rp.objects.ancestors(in.SHA)[rp.refs[branch]]:
		writeError(w, http.StatusUnprocessableEntity, "Update is not a fast forward")
	default:
		rp.refs[branch] = in.SHA
		writeJSON(w, http.StatusOK, s.refJSON(r, rp, branch))
	}
}

// deleteRef answers DELETE /repos/{owner}/{repo}/git/refs/heads/{branch}: 204, or 422
// "Reference does not exist" for a branch that is not there, as GitHub answers.
func (s *Server) deleteRef(w http.ResponseWriter, r *http.Request, rp *repo) {
	branch, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
	if !ok || rp.refs[branch] == "" {
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	delete(rp.refs, branch)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) commitJSON(r *http.Request, rp *repo, sha string) map[string]any {
	c := rp.objects.commits[sha]
	parents := []map[string]any{}
	for _, p := range c.parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.repoURL(r, rp) + "/git/commits/" + p})
	}
	return map[string]any{"sha": sha, "message": c.message, "url": s.repoURL(r, rp) + "/git/commits/" + sha,
		"tree": map[string]any{"sha": c.tree}, "parents": parents}
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request, rp *repo) {
	sha := r.PathValue("sha")
	if rp.objects.commits[sha].tree == "" {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.commitJSON(r, rp, sha))
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct {
		Message string
		Tree    string
		Parents []string
	}
	if !readJSON(w, r, &in) {
		return
	}
	if _, ok := rp.objects.trees[in.Tree]; !ok {
		writeError(w, http.StatusUnprocessableEntity, "Tree SHA does not exist")
		return
	}
	for _, p := range in.Parents {
		if rp.objects.commits[p].tree == "" {
			writeError(w, http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	writeJSON(w, http.StatusCreated, s.commitJSON(r, rp, rp.objects.putCommit(in.Tree, in.Parents, in.Message)))
}

func (s *Server) getTree(w http.ResponseWriter, r *http.Request, rp *repo) {
	sha := r.PathValue("sha")
	entries, ok := rp.objects.trees[sha]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	recursive := r.URL.Query().Get("recursive") != ""
	var out []map[string]any
	var walk func(entries []entry, prefix string)
	walk = func(entries []entry, prefix string) {
		for _, e := range entries {
			kind := "blob"
			if e.mode == "040000" {
				kind = "tree"
			}
			item := map[string]any{"path": prefix + e.name, "mode": e.mode, "type": kind, "sha": e.sha}
			if kind == "blob" {
				item["size"] = len(rp.objects.blobs[e.sha])
			}
			out = append(out, item)
			if kind == "tree" && recursive {
				walk(rp.objects.trees[e.sha], prefix+e.name+"/")
			}
		}
	}
	walk(entries, "")
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sha": sha, "tree": out, "truncated": false})
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string
			Mode    string
			Type    string
			SHA     *string
			Content *string
		}
	}
	if !readJSON(w, r, &in) {
		return
	}
	flat := map[string]string{}
	if in.BaseTree != "" {
		if _, ok := rp.objects.trees[in.BaseTree]; !ok {
			writeError(w, http.StatusUnprocessableEntity, "base_tree is not a valid tree oid")
			return
		}
		flat = rp.objects.flatten(in.BaseTree)
	}
	for _, e := range in.Tree {
		switch {
		case e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.HasSuffix(e.Path, "/"):
			writeError(w, http.StatusUnprocessableEntity, "tree.path contains a malformed path component")
			return
		case e.Type != "blob" || e.Mode != "100644":
			// Only regular files: the fake's model has no executables, links or submodules.
			writeError(w, http.StatusUnprocessableEntity, "fake supports only type blob with mode 100644")
			return
		case e.Content != nil:
			flat[e.Path] = rp.objects.putBlob([]byte(*e.Content))
		case e.SHA == nil:
			delete(flat, e.Path)
		case rp.objects.blobs[*e.SHA] == nil:
			writeError(w, http.StatusUnprocessableEntity, "tree.sha "+*e.SHA+" is not a valid blob")
			return
		default:
			flat[e.Path] = *e.SHA
		}
	}
	sha := rp.objects.build(flat)
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "url": s.repoURL(r, rp) + "/git/trees/" + sha})
}

func (s *Server) getBlob(w http.ResponseWriter, r *http.Request, rp *repo) {
	sha := r.PathValue("sha")
	content, ok := rp.objects.blobs[sha]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sha": sha, "size": len(content), "encoding": "base64",
		"content": base64.StdEncoding.EncodeToString(content)})
}

func (s *Server) createBlob(w http.ResponseWriter, r *http.Request, rp *repo) {
	var in struct{ Content, Encoding string }
	if !readJSON(w, r, &in) {
		return
	}
	var content []byte
	switch in.Encoding {
	case "base64":
		var err error
		if content, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
			writeError(w, http.StatusUnprocessableEntity, "content is not valid Base64")
			return
		}
	case "", "utf-8":
		if !utf8.ValidString(in.Content) {
			writeError(w, http.StatusUnprocessableEntity, "content is not valid UTF-8")
			return
		}
		content = []byte(in.Content)
	default:
		writeError(w, http.StatusUnprocessableEntity, "encoding must be utf-8 or base64")
		return
	}
	sha := rp.objects.putBlob(content)
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "url": s.repoURL(r, rp) + "/git/blobs/" + sha})
}
