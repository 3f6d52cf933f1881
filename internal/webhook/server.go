package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// Submitter sends a request to an instance (internal/client.Client does).
type Submitter interface {
	Submit(ctx context.Context, ref steps.Ref, op lifecycle.Operation, req workflows.OperationRequest, requestID string) (requestRef string, err error)
}

// Reader reads the GitOps repository at a commit (a forge.Forge does).
type Reader interface {
	ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error)
}

// Options configure a Server.
type Options struct {
	Secret []byte // shared secret: GitHub/Gitea HMAC key, GitLab token; required
	Branch string // pushes and merges into this branch count (default main)
	// AllowDeprovision lets a merged PR that deletes an instance folder, or a
	// [slipway][deprovision] line, deprovision it. Off by default: it is final.
	AllowDeprovision bool
	MaxBody          int64 // bytes; default 1 MiB
	Actor            string
	Logger           *zap.Logger // every request is logged with its delivery ID; nil: discard
}

// Server is the webhook HTTP handler: /github, /gitlab, /gitea.
type Server struct {
	o       Options
	submit  Submitter
	repo    Reader
	mu      sync.Mutex
	seen    map[string]bool // delivery IDs handled by this process
	order   []string
	maxSeen int
}

// New refuses to build a server without a secret: unsigned webhooks start nothing.
func New(o Options, submit Submitter, repo Reader) (*Server, error) {
	if len(o.Secret) == 0 {
		return nil, errors.New("webhook: no shared secret: set SLIPWAY_WEBHOOK_SECRET (or --secret-file); unsigned deliveries are never accepted")
	}
	if o.Branch == "" {
		o.Branch = "main"
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 1 << 20
	}
	if o.Actor == "" {
		o.Actor = "webhook"
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &Server{o: o, submit: submit, repo: repo, seen: map[string]bool{}, maxSeen: 100_000}, nil
}

type parser func(*http.Request, []byte) (*Event, error)

// ServeHTTP answers 202 with what it started, 204 for an event that names nothing,
// 200 for a delivery already seen, 401 for a bad signature, 400 for a malformed
// body, and 409 with the reasons when nothing could start.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lw := &loggedWriter{ResponseWriter: w, code: http.StatusOK}
	w = lw
	var delivery string
	defer func() {
		s.o.Logger.Info("webhook", zap.String("path", r.URL.Path), zap.String("delivery", delivery),
			zap.String("remote", r.RemoteAddr), zap.Int("status", lw.code))
	}()
	parsers := map[string]parser{"/github": parseGitHub, "/gitlab": parseGitLab, "/gitea": parseGitea, "/forgejo": parseGitea}
	parse, ok := parsers[strings.TrimSuffix(r.URL.Path, "/")]
	switch {
	case !ok:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown path: use /github, /gitlab, /gitea or /forgejo"})
		return
	case r.Method != http.MethodPost:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxBody)
	ev, err := parse(r, s.o.Secret)
	var sigErr *SignatureError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": fmt.Sprintf("body over %d bytes", s.o.MaxBody)})
		return
	case errors.As(err, &sigErr):
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": err.Error()})
		return
	case err != nil:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	case ev.DeliveryID == "":
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "missing delivery ID header: redeliveries could not be told apart"})
		return
	}
	delivery = ev.DeliveryID
	if !s.firstTime(ev.Provider + "/" + ev.DeliveryID) {
		writeJSON(w, http.StatusOK, Response{Delivery: ev.DeliveryID, Duplicate: true})
		return
	}
	resp := s.dispatch(r.Context(), ev)
	switch {
	case len(resp.Started) > 0:
		writeJSON(w, http.StatusAccepted, resp)
	case len(resp.Refused) > 0:
		writeJSON(w, http.StatusConflict, resp)
	default:
		w.Header().Set("X-Slipway-Ignored", resp.Ignored)
		w.WriteHeader(http.StatusNoContent)
	}
}

// loggedWriter remembers the status code for the request log.
type loggedWriter struct {
	http.ResponseWriter
	code int
}

func (l *loggedWriter) WriteHeader(code int) {
	l.code = code
	l.ResponseWriter.WriteHeader(code)
}

// firstTime records a delivery; redeliveries after a restart are still caught by
// the request IDs, which Temporal deduplicates.
func (s *Server) firstTime(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[key] {
		return false
	}
	s.seen[key] = true
	s.order = append(s.order, key)
	if len(s.order) > s.maxSeen {
		delete(s.seen, s.order[0])
		s.order = s.order[1:]
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
