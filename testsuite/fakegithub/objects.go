package fakegithub

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// A tiny content-addressed git model: object IDs are real git SHA-1s so they look and
// behave like GitHub's, but trees are only ever handled as flat path→blob maps.

type entry struct {
	name string
	mode string // "100644" blob, "040000" tree
	sha  string
}

type commit struct {
	tree    string
	parents []string
	message string
}

type store struct {
	blobs   map[string][]byte
	trees   map[string][]entry
	commits map[string]commit
	clock   int64 // commit timestamps, so equal content in two commits still gives two SHAs
}

func newStore() *store {
	return &store{blobs: map[string][]byte{}, trees: map[string][]entry{}, commits: map[string]commit{}, clock: 1700000000}
}

func hashObject(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *store) putBlob(content []byte) string {
	sha := hashObject("blob", content)
	s.blobs[sha] = append([]byte(nil), content...)
	return sha
}

func (s *store) putTree(entries []entry) string {
	// git orders tree entries as if directory names ended in "/".
	key := func(e entry) string {
		if e.mode == "040000" {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var body []byte
	for _, e := range entries {
		raw, _ := hex.DecodeString(e.sha)
		mode := strings.TrimPrefix(e.mode, "0")
		body = append(body, mode+" "+e.name+"\x00"...)
		body = append(body, raw...)
	}
	sha := hashObject("tree", body)
	s.trees[sha] = entries
	return sha
}

func (s *store) putCommit(tree string, parents []string, message string) string {
	s.clock++
	body := "tree " + tree + "\n"
	for _, p := range parents {
		body += "parent " + p + "\n"
	}
	sig := fmt.Sprintf("fake <fake@localhost> %d +0000", s.clock)
	body += "author " + sig + "\ncommitter " + sig + "\n\n" + message
	sha := hashObject("commit", []byte(body))
	s.commits[sha] = commit{tree: tree, parents: parents, message: message}
	return sha
}

// flatten lists every blob under tree as path→blob SHA.
func (s *store) flatten(tree string) map[string]string {
	out := map[string]string{}
	var walk func(sha, prefix string)
	walk = func(sha, prefix string) {
		for _, e := range s.trees[sha] {
			if e.mode == "040000" {
				walk(e.sha, prefix+e.name+"/")
			} else {
				out[prefix+e.name] = e.sha
			}
		}
	}
	walk(tree, "")
	return out
}

// build writes the nested trees for a flat path→blob map and returns the root tree SHA.
func (s *store) build(flat map[string]string) string {
	files := map[string]string{}
	dirs := map[string]map[string]string{}
	for p, sha := range flat {
		if i := strings.IndexByte(p, '/'); i >= 0 {
			if dirs[p[:i]] == nil {
				dirs[p[:i]] = map[string]string{}
			}
			dirs[p[:i]][p[i+1:]] = sha
		} else {
			files[p] = sha
		}
	}
	var entries []entry
	for name, sha := range files {
		entries = append(entries, entry{name: name, mode: "100644", sha: sha})
	}
	for name, sub := range dirs {
		entries = append(entries, entry{name: name, mode: "040000", sha: s.build(sub)})
	}
	return s.putTree(entries)
}

// ancestors returns every commit reachable from sha, including sha.
func (s *store) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	queue := []string{sha}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		queue = append(queue, s.commits[c].parents...)
	}
	return seen
}

// mergeBase finds a common ancestor of a and b, the nearest to b by breadth-first order.
func (s *store) mergeBase(a, b string) string {
	inA := s.ancestors(a)
	seen := map[string]bool{}
	queue := []string{b}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		if inA[c] {
			return c
		}
		queue = append(queue, s.commits[c].parents...)
	}
	return ""
}

// changed lists the paths whose blobs differ between two flat trees, sorted.
func changed(from, to map[string]string) []string {
	var out []string
	for p, sha := range to {
		if from[p] != sha {
			out = append(out, p)
		}
	}
	for p := range from {
		if _, ok := to[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// merge3 merges ours and theirs path by path against base; conflicts lists paths both changed differently.
func merge3(base, ours, theirs map[string]string) (merged map[string]string, conflicts []string) {
	merged = map[string]string{}
	paths := map[string]bool{}
	for _, m := range []map[string]string{base, ours, theirs} {
		for p := range m {
			paths[p] = true
		}
	}
	for p := range paths {
		b, o, t := base[p], ours[p], theirs[p]
		var pick string
		switch {
		case o == t:
			pick = o
		case o == b:
			pick = t
		case t == b:
			pick = o
		default:
			conflicts = append(conflicts, p)
			continue
		}
		if pick != "" {
			merged[p] = pick
		}
	}
	sort.Strings(conflicts)
	return merged, conflicts
}
