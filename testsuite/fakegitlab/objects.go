package fakegitlab

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// commit is one commit; files flattens its tree (path → blob ID) so merges stay simple.
type commit struct {
	id      string
	tree    string
	parents []string
	message string
	created time.Time
	files   map[string]string
}

func (c *commit) title() string { return strings.SplitN(c.message, "\n", 2)[0] }

// store holds git objects keyed by their real git IDs.
type store struct {
	blobs   map[string][]byte
	commits map[string]*commit
}

func newStore() *store {
	return &store{blobs: map[string][]byte{}, commits: map[string]*commit{}}
}

func hashObject(kind string, body []byte) (string, []byte) {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum), sum
}

func (s *store) putBlob(content []byte) string {
	id, _ := hashObject("blob", content)
	s.blobs[id] = append([]byte(nil), content...)
	return id
}

// treeNode is a directory built from a flat file map, for hashing and listing.
type treeNode struct {
	files map[string]string // name → blob ID
	dirs  map[string]*treeNode
}

func buildTree(files map[string]string) *treeNode {
	root := &treeNode{files: map[string]string{}, dirs: map[string]*treeNode{}}
	for p, blob := range files {
		n := root
		parts := strings.Split(p, "/")
		for _, dir := range parts[:len(parts)-1] {
			next, ok := n.dirs[dir]
			if !ok {
				next = &treeNode{files: map[string]string{}, dirs: map[string]*treeNode{}}
				n.dirs[dir] = next
			}
			n = next
		}
		n.files[parts[len(parts)-1]] = blob
	}
	return root
}

// id hashes the node exactly as git hashes a tree object.
func (n *treeNode) id() string {
	type entry struct{ mode, name, sortKey, id string }
	var entries []entry
	for name, blob := range n.files {
		entries = append(entries, entry{"100644", name, name, blob})
	}
	for name, sub := range n.dirs {
		entries = append(entries, entry{"40000", name, name + "/", sub.id()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].sortKey < entries[j].sortKey })
	var body []byte
	for _, e := range entries {
		raw, _ := hex.DecodeString(e.id)
		body = append(body, e.mode+" "+e.name+"\x00"...)
		body = append(body, raw...)
	}
	id, _ := hashObject("tree", body)
	return id
}

// putCommit stores a commit of files with the given parents and returns it.
func (s *store) putCommit(files map[string]string, message string, parents ...string) *commit {
	tree := buildTree(files).id()
	at := time.Now().UTC().Truncate(time.Second)
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	sig := fmt.Sprintf("Fake GitLab <fake@gitlab.invalid> %d +0000", at.Unix())
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", sig, sig, message)
	id, _ := hashObject("commit", []byte(b.String()))
	c := &commit{id: id, tree: tree, parents: parents, message: message, created: at, files: files}
	if old, ok := s.commits[id]; ok {
		return old
	}
	s.commits[id] = c
	return c
}

// under returns the files of c below dir ("" = all), keyed by full path.
func (c *commit) under(dir string) map[string]string {
	out := map[string]string{}
	for p, id := range c.files {
		if dir == "" || strings.HasPrefix(p, dir+"/") {
			out[p] = id
		}
	}
	return out
}

// isDir reports whether dir is a directory in c.
func (c *commit) isDir(dir string) bool {
	for p := range c.files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// ancestors returns every commit reachable from id, including id.
func (s *store) ancestors(id string) map[string]bool {
	seen := map[string]bool{}
	queue := []string{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if c, ok := s.commits[cur]; ok {
			queue = append(queue, c.parents...)
		}
	}
	return seen
}

// mergeBase returns a best common ancestor of a and b (breadth-first from b).
func (s *store) mergeBase(a, b string) string {
	fromA := s.ancestors(a)
	seen := map[string]bool{}
	queue := []string{b}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if fromA[cur] {
			return cur
		}
		if c, ok := s.commits[cur]; ok {
			queue = append(queue, c.parents...)
		}
	}
	return ""
}

// merge three-way merges theirs into ours path by path; conflicts lists paths changed
// differently on both sides.
func (s *store) merge(ours, theirs string) (files map[string]string, conflicts []string) {
	base := map[string]string{}
	if mb := s.mergeBase(ours, theirs); mb != "" {
		base = s.commits[mb].files
	}
	o, t := s.commits[ours].files, s.commits[theirs].files
	files = map[string]string{}
	paths := map[string]bool{}
	for _, m := range []map[string]string{base, o, t} {
		for p := range m {
			paths[p] = true
		}
	}
	for p := range paths {
		b, oID, tID := base[p], o[p], t[p]
		switch {
		case oID == tID:
			if oID != "" {
				files[p] = oID
			}
		case oID == b:
			if tID != "" {
				files[p] = tID
			}
		case tID == b:
			if oID != "" {
				files[p] = oID
			}
		default:
			conflicts = append(conflicts, p)
		}
	}
	// A file on one side where the other has a directory is a conflict too.
	for p := range files {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := files[d]; ok {
				conflicts = append(conflicts, d)
			}
		}
	}
	sort.Strings(conflicts)
	return files, conflicts
}
