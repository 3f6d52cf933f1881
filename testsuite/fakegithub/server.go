// Package fakegithub is a fake GitHub REST API for tests: an in-memory server that
// answers the documented endpoints slipway's GitHub forge uses (git data, pulls, merge,
// close, compare) with GitHub's status codes, JSON error bodies, Link pagination, bearer-token
// auth and rate-limit responses. It is a fake, not GitHub: only what the forge needs exists.
package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const docsURL = "https://docs.github.com/rest"

// Server is a running fake GitHub. URL is its API base URL (use it as the client's base
// URL); Token is the only bearer token it accepts.
type Server struct {
	URL   string
	Token string

	mu        sync.Mutex
	repos     map[string]*repo    // "owner/name"
	users     map[string]*account // by login (permission.go)
	calls     map[string]int      // by route pattern, e.g. "POST /repos/{owner}/{repo}/git/trees"
	rateLimit int                 // answer this many next requests with a primary rate limit
	secondary int                 // answer this many next requests with a secondary rate limit (429)
	retryAt   time.Duration       // Retry-After of the secondary limit
	mergeFail []int               // statuses the next merges answer with, regardless of state

	apps          map[int64]*app       // GitHub Apps by ID (app.go)
	installations map[int64]int64      // installation ID → app ID
	installTokens map[string]time.Time // installation token → expiry
	tokenTTL      time.Duration        // lifetime of new installation tokens; 0 is the default
}

// New starts a fake GitHub on loopback; it stops when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{Token: "fake-token-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		repos: map[string]*repo{}, calls: map[string]int{}}
	mux := http.NewServeMux()
	s.routes(mux)
	ts := httptest.NewServer(s.guard(mux))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/"
	return s
}

func (s *Server) routes(mux *http.ServeMux) {
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request, rp *repo)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls[pattern]++
			rp := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
			if rp == nil {
				writeError(w, http.StatusNotFound, "Not Found")
				return
			}
			h(w, r, rp)
		})
	}
	handle("GET /repos/{owner}/{repo}", s.getRepo)
	handle("GET /repos/{owner}/{repo}/git/ref/{ref...}", s.getRef)
	handle("POST /repos/{owner}/{repo}/git/refs", s.createRef)
	handle("PATCH /repos/{owner}/{repo}/git/refs/{ref...}", s.updateRef)
	handle("DELETE /repos/{owner}/{repo}/git/refs/{ref...}", s.deleteRef)
	handle("GET /repos/{owner}/{repo}/git/commits/{sha}", s.getCommit)
	handle("POST /repos/{owner}/{repo}/git/commits", s.createCommit)
	handle("GET /repos/{owner}/{repo}/git/trees/{sha}", s.getTree)
	handle("POST /repos/{owner}/{repo}/git/trees", s.createTree)
	handle("GET /repos/{owner}/{repo}/git/blobs/{sha}", s.getBlob)
	handle("POST /repos/{owner}/{repo}/git/blobs", s.createBlob)
	handle("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	handle("POST /repos/{owner}/{repo}/pulls", s.createPull)
	handle("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	handle("PATCH /repos/{owner}/{repo}/pulls/{number}", s.updatePull)
	handle("PUT /repos/{owner}/{repo}/pulls/{number}/merge", s.mergePull)
	handle("GET /repos/{owner}/{repo}/compare/{basehead}", s.compare)
	handle("POST /repos/{owner}/{repo}/statuses/{sha}", s.createStatus)
	handle("GET /repos/{owner}/{repo}/issues/{number}/comments", s.listComments)
	handle("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	handle("GET /repos/{owner}/{repo}/collaborators/{username}/permission", s.getPermission)
	mux.HandleFunc("POST /app/installations/{installation_id}/access_tokens", s.createInstallationToken)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found")
	})
}

// guard applies what GitHub checks before routing: the token (the app's JWT on /app/, which
// its handler verifies), then rate limits.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/app/") {
			next.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		if !s.validToken(bearer(r.Header.Get("Authorization"))) {
			s.mu.Unlock()
			writeError(w, http.StatusUnauthorized, "Bad credentials")
			return
		}
		primary, secondary, wait := s.rateLimit > 0, s.rateLimit == 0 && s.secondary > 0, s.retryAt
		if primary {
			s.rateLimit--
		} else if secondary {
			s.secondary--
		}
		s.mu.Unlock()
		switch {
		case primary:
			w.Header().Set("X-RateLimit-Limit", "5000")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Used", "5000")
			w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(RateLimitReset).Unix(), 10))
			writeErrorDoc(w, http.StatusForbidden, "API rate limit exceeded for user ID 1.",
				"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api")
		case secondary:
			w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
			writeErrorDoc(w, http.StatusTooManyRequests, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
				"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits")
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// bearer is the token of an Authorization header; GitHub takes both "Bearer" and "token".
func bearer(auth string) string {
	if tok, ok := strings.CutPrefix(auth, "Bearer "); ok {
		return tok
	}
	tok, _ := strings.CutPrefix(auth, "token ")
	return tok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeErrorDoc(w, status, message, docsURL)
}

func writeErrorDoc(w http.ResponseWriter, status int, message, doc string) {
	writeJSON(w, status, map[string]any{"message": message, "documentation_url": doc})
}

// readJSON decodes the request body; a bad body gets GitHub's 400 "Problems parsing JSON".
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Problems parsing JSON: %v", err))
		return false
	}
	return true
}
