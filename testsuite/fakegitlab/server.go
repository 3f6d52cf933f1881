package fakegitlab

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a running fake GitLab with one project. Close it when done.
type Server struct {
	URL     string // base URL for the client, e.g. http://127.0.0.1:1234 (the API is under /api/v4)
	Token   string // the only PRIVATE-TOKEN accepted
	Project string // the project's path_with_namespace, e.g. "slipway/gitops"

	http *httptest.Server
	cfg  config

	mu          sync.Mutex
	objects     *store
	branches    map[string]string // name → commit ID
	mrs         []*mergeRequest   // index iid-1
	limited     int               // next requests answered with 429
	retryAfter  time.Duration
	requests    []string
	mergeMethod string
	reports     *reports           // commit statuses and MR notes (report.go); nil until the first
	users       map[string]*member // by username (members.go)
}

// Option configures a Server.
type Option func(*config)

type config struct {
	token       string
	project     string
	base        string
	maxPerPage  int
	mergeMethod string
}

// WithToken sets the accepted PRIVATE-TOKEN (default "fake-gitlab-token").
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithProject sets the project's path_with_namespace (default "slipway/gitops").
func WithProject(path string) Option { return func(c *config) { c.project = path } }

// WithDefaultBranch sets the seeded default branch (default "main").
func WithDefaultBranch(name string) Option { return func(c *config) { c.base = name } }

// WithMaxPerPage caps per_page (GitLab's cap is 100), so tests can force pagination.
func WithMaxPerPage(n int) Option { return func(c *config) { c.maxPerPage = n } }

// WithMergeMethod sets the project's merge_method: "merge" (default), "rebase_merge" or "ff".
func WithMergeMethod(m string) Option { return func(c *config) { c.mergeMethod = m } }

// New starts a fake GitLab on loopback with one project whose default branch holds a README.
func New(opts ...Option) *Server {
	cfg := config{token: "fake-gitlab-token", project: "slipway/gitops", base: "main", maxPerPage: 100, mergeMethod: "merge"}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{Token: cfg.token, Project: cfg.project, cfg: cfg, objects: newStore(),
		branches: map[string]string{}, mergeMethod: cfg.mergeMethod}
	readme := s.objects.putBlob([]byte("# GitOps repository (fake GitLab)\n"))
	root := s.objects.putCommit(map[string]string{"README.md": readme}, "Initial commit\n")
	s.branches[cfg.base] = root.id
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// RateLimit makes the next n requests fail with 429 and Retry-After set to after.
func (s *Server) RateLimit(n int, after time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited, s.retryAfter = n, after
}

// Requests returns every request served so far as "METHOD /path?query" (escaped path).
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// BranchHead returns a branch's commit ID, or "" when it does not exist.
func (s *Server) BranchHead(branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.branches[branch]
}

// Push commits files (full repo paths; nil content deletes) on top of branch (a missing
// branch starts from the default branch), as a developer pushing outside slipway would,
// and returns the new commit ID.
func (s *Server) Push(branch, message string, files map[string][]byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	parent := s.objects.commits[s.branches[branch]]
	if parent == nil {
		parent = s.objects.commits[s.branches[s.cfg.base]]
	}
	next := map[string]string{}
	if parent != nil {
		for p, id := range parent.files {
			next[p] = id
		}
	}
	for p, content := range files {
		if content == nil {
			delete(next, p)
			continue
		}
		next[p] = s.objects.putBlob(content)
	}
	var parents []string
	if parent != nil {
		parents = []string{parent.id}
	}
	c := s.objects.putCommit(next, message+"\n", parents...)
	s.branches[branch] = c.id
	return c.id
}

// serve authenticates, rate-limits and routes one request. The project path arrives
// URL-encoded ("group%2Fname"), so routing uses the escaped path.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	if s.limited > 0 {
		s.limited--
		secs := int(s.retryAfter.Round(time.Second) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		w.Header().Set("RateLimit-Remaining", "0")
		w.Header().Set("RateLimit-Reset", strconv.FormatInt(time.Now().Add(s.retryAfter).Unix(), 10))
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte("Retry later\n"))
		return
	}
	if r.Header.Get("PRIVATE-TOKEN") != s.Token {
		writeError(w, http.StatusUnauthorized, "401 Unauthorized")
		return
	}
	if r.Method == http.MethodGet && r.URL.EscapedPath() == "/api/v4/users" {
		s.listUsers(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api/v4/projects/")
	if !ok {
		writeError(w, http.StatusNotFound, "404 Not Found")
		return
	}
	segs := strings.Split(rest, "/")
	for i, seg := range segs {
		if u, err := url.PathUnescape(seg); err == nil {
			segs[i] = u
		}
	}
	if segs[0] != s.Project && segs[0] != "1" {
		writeError(w, http.StatusNotFound, "404 Project Not Found")
		return
	}
	s.route(w, r, segs[1:])
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, segs []string) {
	is := func(method string, pattern ...string) bool {
		if r.Method != method || len(segs) != len(pattern) {
			return false
		}
		for i, p := range pattern {
			if p != "*" && p != segs[i] {
				return false
			}
		}
		return true
	}
	switch {
	case is("GET"):
		s.getProject(w)
	case is("GET", "members", "all", "*"):
		s.getMember(w, segs[2])
	case is("GET", "repository", "branches", "*"):
		s.getBranch(w, segs[2])
	case is("DELETE", "repository", "branches", "*"):
		s.deleteBranch(w, segs[2])
	case is("GET", "repository", "commits", "*"):
		s.getCommit(w, segs[2])
	case is("POST", "repository", "commits"):
		s.createCommit(w, r)
	case is("GET", "repository", "tree"):
		s.listTree(w, r)
	case is("GET", "repository", "blobs", "*", "raw"):
		s.rawBlob(w, segs[2])
	case is("GET", "repository", "compare"):
		s.compare(w, r)
	case is("GET", "merge_requests"):
		s.listMergeRequests(w, r)
	case is("POST", "merge_requests"):
		s.createMergeRequest(w, r)
	case is("GET", "merge_requests", "*"):
		s.getMergeRequest(w, segs[1])
	case is("PUT", "merge_requests", "*"):
		s.updateMergeRequest(w, r, segs[1])
	case is("PUT", "merge_requests", "*", "merge"):
		s.acceptMergeRequest(w, r, segs[1])
	case is("POST", "statuses", "*"):
		s.setCommitStatus(w, r, segs[1])
	case is("GET", "merge_requests", "*", "notes"):
		s.listNotes(w, r, segs[1])
	case is("POST", "merge_requests", "*", "notes"):
		s.createNote(w, r, segs[1])
	default:
		writeError(w, http.StatusNotFound, "404 Not Found")
	}
}

func (s *Server) webURL() string { return s.URL + "/" + s.Project }

// resolve turns a branch name or commit ID into a commit.
func (s *Server) resolve(ref string) *commit {
	if id, ok := s.branches[ref]; ok {
		return s.objects.commits[id]
	}
	return s.objects.commits[ref]
}
