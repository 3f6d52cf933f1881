package fakegitlab

import (
	"net/http"
	"path"
	"sort"
	"strings"
)

type treeEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// listTree answers GET repository/tree (path, ref, recursive, pagination).
func (s *Server) listTree(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ref := q.Get("ref")
	if ref == "" {
		ref = s.cfg.base
	}
	c := s.resolve(ref)
	dir := strings.Trim(q.Get("path"), "/")
	if c == nil || (dir != "" && !c.isDir(dir)) {
		writeError(w, http.StatusNotFound, "404 Tree Not Found")
		return
	}
	node := buildTree(c.under(dir))
	for _, part := range strings.Split(dir, "/") {
		if part != "" {
			node = node.dirs[part]
		}
	}
	var entries []treeEntry
	var walk func(n *treeNode, prefix string)
	walk = func(n *treeNode, prefix string) {
		for name, sub := range n.dirs {
			p := path.Join(prefix, name)
			entries = append(entries, treeEntry{ID: sub.id(), Name: name, Type: "tree", Path: p, Mode: "040000"})
			if q.Get("recursive") == "true" {
				walk(sub, p)
			}
		}
		for name, blob := range n.files {
			entries = append(entries, treeEntry{ID: blob, Name: name, Type: "blob", Path: path.Join(prefix, name), Mode: "100644"})
		}
	}
	walk(node, dir)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	if entries == nil {
		entries = []treeEntry{}
	}
	writeJSON(w, http.StatusOK, page(s, w, r, entries))
}
