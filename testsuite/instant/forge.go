package instant

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Forge is an instant GitOps repository held in memory: main is a sequence of commits, each
// replacing one directory, so any revision can be read back the way a git forge reads it.
type Forge struct {
	mu      sync.Mutex
	seq     uint64
	head    string
	commits map[string]uint64       // sha -> sequence number
	dirs    map[string][]dirVersion // dir -> its versions, oldest first
	mrs     map[string]*forge.MergeRequest
	changes map[string]forge.Change // branch -> the change its MR proposes
	order   []string                // branches in the order their MRs were opened
	url     string                  // one per repository: readers may keep what a commit holds by URL and SHA
}

type dirVersion struct {
	seq   uint64
	files map[string][]byte // nil: the directory was removed
}

var _ forge.Forge = (*Forge)(nil)

// NewForge returns a repository whose first commit holds seed, keyed by repo-relative path.
func NewForge(seed map[string][]byte) *Forge {
	f := &Forge{commits: map[string]uint64{}, dirs: map[string][]dirVersion{},
		mrs: map[string]*forge.MergeRequest{}, changes: map[string]forge.Change{},
		url: fmt.Sprintf("instant://gitops/%d", forges.Add(1))}
	f.head = f.commitLocked(nil)
	for path, data := range seed {
		dir, name := splitDir(path)
		v := f.latestLocked(dir, f.seq)
		if v == nil {
			f.dirs[dir] = append(f.dirs[dir], dirVersion{seq: f.seq, files: map[string][]byte{}})
			v = f.dirs[dir][len(f.dirs[dir])-1].files
		}
		v[name] = data
	}
	return f
}

// splitDir puts a seed file in its stack directory (stacks/NAME) or instance directory
// (instances/TENANT/NAME), so ReadDir of that directory finds it.
func splitDir(path string) (dir, rest string) {
	n := 2
	if strings.HasPrefix(path, "instances/") {
		n = 3
	}
	parts := strings.SplitN(path, "/", n+1)
	if len(parts) <= n {
		return strings.Join(parts[:len(parts)-1], "/"), parts[len(parts)-1]
	}
	return strings.Join(parts[:n], "/"), parts[n]
}

// SeedRevision is the SHA of every instant forge's first commit, the one holding its seed.
func SeedRevision() string { return sha("commit", "1") }

func (f *Forge) Name() string    { return "instant" }
func (f *Forge) RepoURL() string { return f.url }

// forges numbers the repositories of a process.
var forges atomic.Uint64

func (f *Forge) Head(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.head, nil
}

func (f *Forge) ReadDir(_ context.Context, rev, dir string) (map[string][]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at := f.seq
	if rev != "" {
		seq, ok := f.commits[rev]
		if !ok {
			if files, ok := f.branchFilesLocked(rev, dir); ok {
				return files, nil
			}
			return nil, fmt.Errorf("instant forge: unknown revision %q", rev)
		}
		at = seq
	}
	dir = strings.Trim(dir, "/")
	out := map[string][]byte{}
	for d := range f.dirs {
		rel, ok := strings.CutPrefix(d, dir)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		for name, data := range f.latestLocked(d, at) {
			out[strings.TrimPrefix(rel+"/"+name, "/")] = data
		}
	}
	return out, nil
}

func (f *Forge) Open(_ context.Context, c forge.Change) (forge.MergeRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	head := sha("branch", c.Branch)
	if mr, ok := f.mrs[c.Branch]; ok {
		if mr.State != forge.StateClosed {
			return *mr, nil
		}
		// A closed MR's branch opens anew: a new head, and last in the order.
		head = sha("branch", c.Branch+"\x00"+mr.HeadSHA)
		f.order = slices.DeleteFunc(f.order, func(b string) bool { return b == c.Branch })
	}
	if equalFiles(f.latestLocked(strings.Trim(c.Dir, "/"), f.seq), c.Files) {
		return forge.MergeRequest{Branch: c.Branch, Title: c.Title, State: forge.StateMerged,
			BaseSHA: f.head, HeadSHA: f.head, NoChanges: true}, nil
	}
	mr := &forge.MergeRequest{ID: c.Branch, Branch: c.Branch, Title: c.Title, State: forge.StateOpen,
		BaseSHA: f.head, HeadSHA: head}
	f.mrs[c.Branch], f.changes[c.Branch] = mr, c
	f.order = append(f.order, c.Branch)
	return *mr, nil
}

// Close closes an open MR; a merged one is a *forge.MergedError, as on a real forge.
func (f *Forge) Close(_ context.Context, in forge.MergeRequest) (forge.MergeRequest, error) {
	if in.NoChanges {
		return in, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	mr, ok := f.mrs[in.Branch]
	if !ok {
		return forge.MergeRequest{}, fmt.Errorf("instant forge: no merge request for branch %q", in.Branch)
	}
	if mr.State == forge.StateMerged {
		return forge.MergeRequest{}, &forge.MergedError{MR: *mr}
	}
	mr.State = forge.StateClosed
	return *mr, nil
}

func (f *Forge) Merge(_ context.Context, in forge.MergeRequest) (forge.MergeRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	mr, ok := f.mrs[in.Branch]
	if !ok {
		return forge.MergeRequest{}, fmt.Errorf("instant forge: no merge request for branch %q", in.Branch)
	}
	switch mr.State {
	case forge.StateMerged:
		return *mr, nil
	case forge.StateClosed:
		return forge.MergeRequest{}, &forge.InvalidError{Field: "mr", Value: in.Branch, Problem: "is closed without being merged"}
	}
	c := f.changes[in.Branch]
	var files map[string][]byte
	if len(c.Files) > 0 {
		files = maps.Clone(c.Files)
	}
	dir := strings.Trim(c.Dir, "/")
	f.head = f.commitLocked(func(seq uint64) { f.dirs[dir] = append(f.dirs[dir], dirVersion{seq: seq, files: files}) })
	mr.State, mr.MergeSHA = forge.StateMerged, f.head
	return *mr, nil
}

func (f *Forge) Get(_ context.Context, branch string) (forge.MergeRequest, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	mr, ok := f.mrs[branch]
	if !ok {
		return forge.MergeRequest{}, false, nil
	}
	return *mr, true, nil
}

func (f *Forge) ListOpen(_ context.Context, prefix string) ([]forge.MergeRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []forge.MergeRequest
	for _, b := range f.order {
		if mr := f.mrs[b]; mr.State == forge.StateOpen && strings.HasPrefix(b, prefix) {
			out = append(out, *mr)
		}
	}
	return out, nil
}

// commitLocked adds a commit on main, lets write record its change, and returns its SHA.
func (f *Forge) commitLocked(write func(seq uint64)) string {
	f.seq++
	if write != nil {
		write(f.seq)
	}
	s := sha("commit", fmt.Sprint(f.seq))
	f.commits[s] = f.seq
	return s
}

// latestLocked is dir's content at sequence number at; nil when it did not exist.
func (f *Forge) latestLocked(dir string, at uint64) map[string][]byte {
	vs := f.dirs[dir]
	i := sort.Search(len(vs), func(i int) bool { return vs[i].seq > at })
	if i == 0 {
		return nil
	}
	return vs[i-1].files
}

func equalFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// sha makes a git-shaped commit ID; kind keeps branch heads apart from commits on main.
func sha(kind, s string) string {
	sum := sha1.Sum([]byte(kind + "\x00" + s))
	return hex.EncodeToString(sum[:])
}

// branchFilesLocked reads dir at an MR's head, as a git forge reads a branch's commit: the
// files its change proposes, when dir is the directory it changes.
func (f *Forge) branchFilesLocked(rev, dir string) (map[string][]byte, bool) {
	for b, mr := range f.mrs {
		if c := f.changes[b]; mr.HeadSHA == rev && strings.Trim(c.Dir, "/") == strings.Trim(dir, "/") {
			files := maps.Clone(c.Files)
			if files == nil {
				files = map[string][]byte{}
			}
			return files, true
		}
	}
	return nil, false
}
