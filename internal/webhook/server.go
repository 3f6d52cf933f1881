package webhook

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Options configure a Server.
type Options struct {
	// Forges configures each endpoint by provider (github, gitlab, gitea; /forgejo is gitea's):
	// its own secret and the repositories it takes deliveries from. A provider without an
	// entry is not served, so no endpoint ever accepts another forge's secret.
	Forges map[string]ForgeOptions
	Branch string // pushes and merges into this branch count (default main)
	// AllowDeprovision lets a merged PR that deletes an instance folder, or a
	// [slipway][deprovision] line, deprovision it. Off by default: it is final.
	AllowDeprovision bool
	// CommitOps are the operations a [slipway][<op>] commit line may start (default
	// create, deploy and plan): archive, destroy and deprovision only when the operator names them.
	CommitOps []lifecycle.Operation
	MaxBody   int64 // bytes; default 1 MiB
	Actor     string
	Logger    *zap.Logger // every request is logged with its delivery ID; nil: discard
	// RecordTimeout bounds recording a delivery in Temporal (default 5s): forges give a
	// hook about 10s, and an answer of 503 in time beats a timeout they may not retry.
	RecordTimeout time.Duration
	// RetryAfter is sent with a 503 (default 10s).
	RetryAfter time.Duration
	// BatchWindow (default 5ms) and BatchMax (default 64) bound a group commit: deliveries
	// arriving together are recorded in one round trip.
	BatchWindow time.Duration
	BatchMax    int
	// Delivered is told each request's forge and Outcome (slipway_webhook_deliveries_total); nil: nothing.
	Delivered func(forge, outcome string)
}

// ForgeOptions are one forge endpoint's secret and repository allow-list.
type ForgeOptions struct {
	// Secret is the GitHub or Gitea/Forgejo HMAC key, or the GitLab token; required.
	Secret []byte
	// Repos are the repositories (OWNER/NAME; GitLab: the project path) whose deliveries
	// count; any other repository's delivery starts nothing. Required: the GitOps repository.
	Repos []string
}

// Providers are the forge endpoints a server can serve, with the setting that configures each.
var Providers = []string{"github", "gitlab", "gitea"}

// DefaultCommitOps may start from a commit line without the operator's say: none is destructive.
var DefaultCommitOps = []lifecycle.Operation{lifecycle.OpProvision, lifecycle.OpDeploy, lifecycle.OpPlan}

// maxBatchBytes keeps a batch's workflow input well under Temporal's 2 MB payload limit.
const maxBatchBytes = 1 << 20

// Server is the webhook HTTP handler: /github, /gitlab, /gitea, /forgejo.
type Server struct {
	o     Options
	batch *Batcher
	stop  context.CancelFunc
	seen  *seenSet
	repos map[string]map[string]bool // provider → allowed repositories, lower-case
	ops   map[lifecycle.Operation]bool
}

// New refuses to build a server without a secret and an allowed repository for every forge it
// serves: unsigned or foreign webhooks start nothing. Close stops its batcher.
func New(o Options, rec BatchRecorder) (*Server, error) {
	repos, err := checkForges(o.Forges)
	if err != nil {
		return nil, err
	}
	ops := map[lifecycle.Operation]bool{}
	if o.CommitOps == nil {
		o.CommitOps = DefaultCommitOps
	}
	for _, op := range o.CommitOps {
		if op == lifecycle.OpDeprovision && !o.AllowDeprovision {
			return nil, errors.New("webhook: commit operations: deprovision also needs AllowDeprovision (--allow-deprovision): it is final")
		}
		ops[op] = true
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
	return &Server{o: o, batch: b, stop: stop, seen: newSeenSet(100_000), repos: repos, ops: ops}, nil
}

// checkForges refuses a forge without its own secret or without a well-formed repository, and a
// GitLab token that is another forge's HMAC key: GitLab sends its token in plain text.
func checkForges(forges map[string]ForgeOptions) (map[string]map[string]bool, error) {
	if len(forges) == 0 {
		return nil, errors.New("webhook: no forge configured: give at least one of the GitHub secret, the GitLab token or the Gitea secret; unsigned deliveries are never accepted")
	}
	repos := map[string]map[string]bool{}
	for name, f := range forges {
		if !slices.Contains(Providers, name) {
			return nil, fmt.Errorf("webhook: forge %q is not one of %s", name, strings.Join(Providers, ", "))
		}
		if len(f.Secret) == 0 {
			return nil, fmt.Errorf("webhook: %s: no secret: each forge endpoint needs its own", name)
		}
		if len(f.Repos) == 0 {
			return nil, fmt.Errorf("webhook: %s: no repository allowed: name the GitOps repository (OWNER/NAME)", name)
		}
		repos[name] = map[string]bool{}
		for _, r := range f.Repos {
			if err := CheckRepo(r); err != nil {
				return nil, fmt.Errorf("webhook: %s repositories: %w", name, err)
			}
			repos[name][strings.ToLower(r)] = true
		}
	}
	if gl, ok := forges["gitlab"]; ok {
		for name, f := range forges {
			if name != "gitlab" && subtle.ConstantTimeCompare(gl.Secret, f.Secret) == 1 {
				return nil, fmt.Errorf("webhook: gitlab: the token is the %s secret: GitLab sends its token in plain text, so it must be a secret of its own", name)
			}
		}
	}
	return repos, nil
}

// repoRE is OWNER/NAME, or a GitLab project path with subgroups (group/sub/project).
var repoRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$`)

// CheckRepo says why r cannot name a repository in an allow-list.
func CheckRepo(r string) error {
	if !repoRE.MatchString(r) || strings.Contains(r, "..") {
		return fmt.Errorf("%q is not a repository: want OWNER/NAME (GitLab: GROUP[/SUBGROUP]/PROJECT)", r)
	}
	return nil
}

// Close stops batching; call it once the HTTP server has drained.
func (s *Server) Close() { s.stop() }

type parser func(*http.Request, []byte) (*Event, error)

var parsers = map[string]parser{"/github": parseGitHub, "/gitlab": parseGitLab, "/gitea": parseGitea, "/forgejo": parseGitea}

// headerChecks refuse a delivery from its headers alone: a missing or malformed signature, a wrong token.
var headerChecks = map[string]func(*http.Request, []byte) ([]byte, error){
	"/github": githubSignature, "/gitlab": checkGitLabToken, "/gitea": giteaSignature, "/forgejo": giteaSignature}

// providerOf names the forge whose options serve a path: Forgejo is Gitea's.
var providerOf = map[string]string{"/github": "github", "/gitlab": "gitlab", "/gitea": "gitea", "/forgejo": "gitea"}

// maxDeliveryID bounds the caller-chosen header that names a delivery's record.
const maxDeliveryID = 128

// Admit refuses from the headers alone what ServeHTTP would refuse before reading the body (an
// unknown or unserved path, a method other than POST, a missing or malformed signature, a wrong
// GitLab token): as an httpserve.Admitter, the server asks it before it reads the body.
func (s *Server) Admit(r *http.Request) (int, error) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	check, ok := headerChecks[path]
	fo, configured := s.o.Forges[providerOf[path]]
	switch {
	case !ok:
		return http.StatusNotFound, errors.New("unknown path: use /github, /gitlab, /gitea or /forgejo")
	case !configured:
		return http.StatusNotFound, errors.New(path + " is not served: this server has no " + providerOf[path] + " secret")
	case r.Method != http.MethodPost:
		return http.StatusMethodNotAllowed, errors.New("POST only")
	}
	if _, err := check(r, fo.Secret); err != nil {
		return http.StatusUnauthorized, err
	}
	return 0, nil
}

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
		if s.o.Delivered != nil {
			s.o.Delivered(forgeLabel(r.URL.Path), Outcome(lw.code))
		}
	}()
	path := strings.TrimSuffix(r.URL.Path, "/")
	parse, ok := parsers[path]
	fo, configured := s.o.Forges[providerOf[path]]
	switch {
	case !ok:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown path: use /github, /gitlab, /gitea or /forgejo"})
		return
	case !configured:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": path + " is not served: this server has no " + providerOf[path] + " secret"})
		return
	case r.Method != http.MethodPost:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxBody)
	ev, err := parse(r, fo.Secret)
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
	case len(ev.DeliveryID) > maxDeliveryID:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("delivery ID over %d characters", maxDeliveryID)})
		return
	}
	delivery = ev.DeliveryID
	key := ev.Provider + "/" + ev.DeliveryID
	if s.seen.has(key) {
		writeJSON(w, http.StatusOK, Response{Delivery: ev.DeliveryID, Duplicate: true, Workflow: contract.DeliveryWorkflowID(ev.Provider, ev.DeliveryID)})
		return
	}
	d, resp := s.plan(ev)
	switch {
	case resp.Ignored != "" && d == nil:
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
func (s *Server) record(ctx context.Context, w http.ResponseWriter, key string, d contract.Delivery, resp Response) {
	ctx, cancel := context.WithTimeout(ctx, s.o.RecordTimeout)
	defer cancel()
	_, err := s.batch.RecordDelivery(ctx, d)
	resp.Workflow = contract.DeliveryWorkflowID(d.Provider, d.ID)
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) {
		writeJSON(w, http.StatusRequestEntityTooLarge, Response{Delivery: d.ID, Error: err.Error()})
		return
	}
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
