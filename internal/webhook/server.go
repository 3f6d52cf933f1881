package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

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
	// RecordTimeout bounds recording a delivery in Temporal (default 5s): forges give a
	// hook about 10s, and an answer of 503 in time beats a timeout they may not retry.
	RecordTimeout time.Duration
	// RetryAfter is sent with a 503 (default 10s).
	RetryAfter time.Duration
	// BatchWindow (default 5ms) and BatchMax (default 64) bound a group commit: deliveries
	// arriving together are recorded in one round trip.
	BatchWindow time.Duration
	BatchMax    int
}

// maxBatchBytes keeps a batch's workflow input well under Temporal's 2 MB payload limit.
const maxBatchBytes = 1 << 20

// Server is the webhook HTTP handler: /github, /gitlab, /gitea, /forgejo.
type Server struct {
	o     Options
	batch *Batcher
	stop  context.CancelFunc
	seen  *seenSet
}

// New refuses to build a server without a secret: unsigned webhooks start nothing. Close
// stops its batcher.
func New(o Options, rec BatchRecorder) (*Server, error) {
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
	if o.RecordTimeout <= 0 {
		o.RecordTimeout = 5 * time.Second
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = 10 * time.Second
	}
	if o.BatchWindow <= 0 {
		o.BatchWindow = 5 * time.Millisecond
	}
	if o.BatchMax <= 0 {
		o.BatchMax = 64
	}
	ctx, stop := context.WithCancel(context.Background())
	b := NewBatcher(ctx, rec, o.BatchWindow, o.BatchMax, maxBatchBytes, o.RecordTimeout)
	return &Server{o: o, batch: b, stop: stop, seen: newSeenSet(100_000)}, nil
}

// Close stops batching; call it once the HTTP server has drained.
func (s *Server) Close() { s.stop() }

type parser func(*http.Request, []byte) (*Event, error)

var parsers = map[string]parser{"/github": parseGitHub, "/gitlab": parseGitLab, "/gitea": parseGitea, "/forgejo": parseGitea}

// ServeHTTP answers 202 once the delivery is recorded in Temporal, without waiting for any
// instance; 200 for a delivery this process recorded before; 204 for an event that asks for nothing; 401
// for a bad signature; 400 or 422 for a body or commands that cannot be carried out; and 503
// with Retry-After when Temporal could not record it, so the forge's redelivery works.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lw := &loggedWriter{ResponseWriter: w, code: http.StatusOK}
	w = lw
	var delivery string
	began := time.Now()
	defer func() {
		s.o.Logger.Info("webhook", zap.String("path", r.URL.Path), zap.String("delivery", delivery),
			zap.String("remote", r.RemoteAddr), zap.Int("status", lw.code), zap.Duration("took", time.Since(began)))
	}()
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
	key := ev.Provider + "/" + ev.DeliveryID
	if s.seen.has(key) {
		writeJSON(w, http.StatusOK, Response{Delivery: ev.DeliveryID, Duplicate: true, Workflow: workflows.DeliveryWorkflowID(ev.Provider, ev.DeliveryID)})
		return
	}
	d, resp := s.plan(ev)
	switch {
	case resp.Ignored != "":
		w.Header().Set("X-Slipway-Ignored", resp.Ignored)
		w.WriteHeader(http.StatusNoContent)
		return
	case d == nil:
		writeJSON(w, http.StatusUnprocessableEntity, resp)
		return
	}
	s.record(r.Context(), w, key, *d, resp)
}

// record makes the delivery durable, then answers; it marks the delivery seen only once
// Temporal holds it, so a delivery answered 503 is carried out when it is redelivered. A
// redelivery this process has not seen is recorded again and found a duplicate by its record.
func (s *Server) record(ctx context.Context, w http.ResponseWriter, key string, d steps.Delivery, resp Response) {
	ctx, cancel := context.WithTimeout(ctx, s.o.RecordTimeout)
	defer cancel()
	_, err := s.batch.RecordDelivery(ctx, d)
	resp.Workflow = workflows.DeliveryWorkflowID(d.Provider, d.ID)
	if err != nil {
		s.o.Logger.Warn("webhook delivery not recorded; answered 503 so the forge redelivers it",
			zap.String("delivery", key), zap.Error(err))
		w.Header().Set("Retry-After", strconv.Itoa(int(s.o.RetryAfter.Seconds())))
		writeJSON(w, http.StatusServiceUnavailable, Response{Delivery: d.ID,
			Error: "could not confirm the delivery is recorded in Temporal (" + err.Error() + "): redeliver it; if it was recorded after all, the redelivery is answered as a duplicate and starts nothing twice"})
		return
	}
	s.seen.add(key)
	resp.Accepted = true
	writeJSON(w, http.StatusAccepted, resp)
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

// seenSet remembers recorded deliveries so that redeliveries skip a round trip; it is only
// an optimisation: the delivery's workflow ID is what deduplicates, across restarts and replicas.
type seenSet struct {
	mu    sync.Mutex
	keys  map[string]bool
	order []string
	max   int
}

func newSeenSet(max int) *seenSet { return &seenSet{keys: map[string]bool{}, max: max} }

func (s *seenSet) has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[key]
}

func (s *seenSet) add(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys[key] {
		return
	}
	s.keys[key] = true
	s.order = append(s.order, key)
	if len(s.order) > s.max {
		delete(s.keys, s.order[0])
		s.order = s.order[1:]
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
