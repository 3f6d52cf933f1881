package fakegithub

import (
	"time"
)

// RateLimitReset is how far ahead a primary rate limit's X-RateLimit-Reset lies.
const RateLimitReset = 90 * time.Second

// AddRepo creates owner/name with branch base holding one commit (a README.md) and
// returns that commit's SHA.
func (s *Server) AddRepo(owner, name, base string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := &repo{owner: owner, name: name, base: base, objects: newStore(), refs: map[string]string{}}
	tree := rp.objects.build(map[string]string{"README.md": rp.objects.putBlob([]byte("# " + name + "\n"))})
	rp.refs[base] = rp.objects.putCommit(tree, nil, "initial commit\n")
	s.repos[owner+"/"+name] = rp
	return rp.refs[base]
}

// CommitFiles commits files onto branch of owner/name as a plain push would (nil content
// deletes the path) and returns the new commit SHA; a missing branch starts at the base.
// On the base branch it moves the base under open PRs.
func (s *Server) CommitFiles(owner, name, branch, message string, files map[string][]byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[owner+"/"+name]
	o := rp.objects
	parent := rp.refs[branch]
	if parent == "" {
		parent = rp.refs[rp.base]
	}
	flat := o.flatten(o.commits[parent].tree)
	for p, content := range files {
		if content == nil {
			delete(flat, p)
		} else {
			flat[p] = o.putBlob(content)
		}
	}
	rp.refs[branch] = o.putCommit(o.build(flat), []string{parent}, message)
	return rp.refs[branch]
}

// Ref returns the commit SHA of branch in owner/name, or "" if there is none.
func (s *Server) Ref(owner, name, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[owner+"/"+name].refs[branch]
}

// Parents returns the parent SHAs of a commit in owner/name.
func (s *Server) Parents(owner, name, sha string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.repos[owner+"/"+name].objects.commits[sha].parents...)
}

// RateLimitNext answers the next n requests with a primary rate limit: 403 with
// X-RateLimit-Remaining: 0 and X-RateLimit-Reset RateLimitReset ahead.
func (s *Server) RateLimitNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimit = n
}

// SecondaryRateLimitNext answers the next n requests with a secondary rate limit:
// 429 with Retry-After (whole seconds).
func (s *Server) SecondaryRateLimitNext(n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secondary, s.retryAt = n, retryAfter
}

// FailNextMerges makes the next merges answer with these statuses whatever the PR's
// state: 405 ("Base branch was modified") or 409 ("Head branch was modified").
func (s *Server) FailNextMerges(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mergeFail = append(s.mergeFail, statuses...)
}

// Calls counts the requests served by a route, named by its pattern, e.g.
// "POST /repos/{owner}/{repo}/git/commits".
func (s *Server) Calls(pattern string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[pattern]
}
