// Package apiserver is `slipway server`: the HTTP API people's CLI requests go through. Each
// request carries the person's OpenID Connect ID token; the server verifies it and sends the
// request through internal/client with the person as the attested actor (identity.With), so the
// workers' policy decides on who really asked. People never hold slipway's key: this server is
// the one door from a person to a mutation.
package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/tracing"
	"github.com/slipway-dev/slipway/internal/windows"
)

// Verifier checks a person's bearer token (identity.Verifier over the OIDC provider's keys).
type Verifier interface {
	Verify(ctx context.Context, rawIDToken string) (identity.Actor, error)
}

// Check is a request the server answers itself, without a workflow to decide it (reading
// secrets, drift sweeps and schedules, rollouts): it asks the policy first.
type Check struct {
	Actor     identity.Actor
	Operation string
	Tenant    string
	Name      string
	State     string
	NextState string
	Stack     string
	// Waits says the request can wait for an approval (a pipeline): an allow that needs one is an allow.
	Waits bool
	// Request is the request's own arguments (the policy's input.request): an operation's or a
	// decision's request, a rollout's spec, a drift check's scope.
	Request any
	// Instances are the instances (TENANT/NAME) the request touches, when it names them.
	Instances []string
}

// Authorize is the policy's decision on a Check: allowed, or why not, with the policy's hash.
type Authorize func(ctx context.Context, c Check) (allowed bool, reason, policyHash string, err error)

// SecretsReader reads an instance's bootstrapped secrets from the workers' store.
type SecretsReader func(ctx context.Context, tenant, name string) (map[string]string, error)

// Options configure a Server.
type Options struct {
	Verifier  Verifier
	Client    *client.Client
	Authorize Authorize
	// Windows are the change windows of the policy bundle (the workers'): a stack deadline's waves
	// are planned inside them.
	Windows windows.Set
	// Secrets is where the server reads secrets from; nil answers 501.
	Secrets SecretsReader
	// Hosts are the names and addresses the server answers to in the Host header (port ignored):
	// any other is a DNS-rebinding page or a request meant elsewhere.
	Hosts []string
	// AcceptTimeout bounds how long a request waits for a worker to accept it.
	AcceptTimeout time.Duration
	Logger        *zap.Logger
	// UI serves the tenant's page at /ui/ with these sign-in settings; nil serves none.
	UI *UI
	// Audit records the server's own decisions in the durable audit log (every one but an allowed
	// plain read); nil records them in the server's log only. A decision it cannot record is refused.
	Audit func(ctx context.Context, e contract.AuditEntry) error
}

// Server is the API's http.Handler; it is an httpserve.Admitter, so a request without a valid
// token or for a foreign Host is refused before its body is read.
type Server struct {
	o     Options
	hosts []string
	mux   *http.ServeMux
	log   *zap.Logger
	// traced is mux continuing the caller's trace (the CLI's request span) in a server span.
	traced http.Handler
	// streams counts the live event streams, to bound them.
	streams streams
	// patterns are the routes served, as "METHOD /path", for the OpenAPI description's test.
	patterns []string
}

// New checks o and builds the server.
func New(o Options) (*Server, error) {
	switch {
	case o.Verifier == nil:
		return nil, errors.New("apiserver: no token verifier")
	case o.Client == nil:
		return nil, errors.New("apiserver: no Temporal client")
	case o.Authorize == nil:
		return nil, errors.New("apiserver: no policy")
	case len(o.Hosts) == 0:
		return nil, errors.New("apiserver: no allowed hosts")
	}
	if o.AcceptTimeout <= 0 {
		o.AcceptTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	s := &Server{o: o, mux: http.NewServeMux(), log: o.Logger}
	for _, h := range o.Hosts {
		s.hosts = append(s.hosts, hostName(h))
	}
	s.routes()
	s.traced = tracing.Handler(s.mux, "slipway server")
	return s, nil
}

// Admit refuses a foreign Host and a request with no valid bearer token, from the headers alone.
func (s *Server) Admit(r *http.Request) (int, error) {
	if !slices.Contains(s.hosts, hostName(r.Host)) {
		return http.StatusForbidden, fmt.Errorf("host not allowed: this slipway server does not answer to %s", r.Host)
	}
	if s.o.UI != nil && isUI(r) {
		return 0, nil // the page holds nothing of anyone's; it signs in itself
	}
	if _, err := s.verify(r); err != nil {
		return http.StatusUnauthorized, err
	}
	return 0, nil
}

// ServeHTTP checks the Host and the token (again, behind httpserve: Admit has no way to hand the
// actor on, and a verification costs one signature check) and serves the request as the actor.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(s.hosts, hostName(r.Host)) {
		writeProblem(w, problem(http.StatusForbidden, "", "host not allowed: this slipway server does not answer to "+r.Host, nil))
		return
	}
	if s.o.UI != nil && isUI(r) {
		s.serveUI(w, r)
		return
	}
	a, err := s.verify(r)
	if err != nil {
		writeProblem(w, problem(http.StatusUnauthorized, kindUnauthenticated, err.Error(), nil))
		return
	}
	s.traced.ServeHTTP(w, r.WithContext(identity.With(r.Context(), a)))
}

// verify returns the person the bearer token names, as the API's actor.
func (s *Server) verify(r *http.Request) (identity.Actor, error) {
	h := r.Header.Get("Authorization")
	raw, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return identity.Actor{}, errors.New("not signed in: no bearer token; run `slipway login` and send requests with --server")
	}
	a, err := s.o.Verifier.Verify(r.Context(), strings.TrimSpace(raw))
	if err != nil {
		return identity.Actor{}, fmt.Errorf("not signed in: the token was refused: %w", err)
	}
	if a.Kind != identity.Person {
		// Only people sign in here; components hold the key and talk to Temporal themselves.
		return identity.Actor{}, fmt.Errorf("not signed in: the token names a %s, not a person", a.Kind)
	}
	a.Via = "api"
	return a, nil
}

// handler is an API endpoint: it gets the verified actor on ctx and the instance, when its path names one.
type handler func(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error)

func (s *Server) handle(pattern string, h handler) {
	s.patterns = append(s.patterns, pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx := r.Context()
		a, _ := identity.From(ctx) // ServeHTTP verified it
		code, body, err := h(ctx, a, r)
		sw, streams := body.(streamer)
		switch {
		case err != nil:
			code = s.writeErr(w, err)
		case streams:
			code = sw.stream(w, r)
		default:
			writeJSON(w, code, body)
		}
		s.log.Info("api request", zap.String("actor", a.String()), zap.String("method", r.Method),
			zap.String("path", r.URL.Path), zap.Int("status", code), zap.Duration("took", time.Since(start)), zap.NamedError("error", err))
	})
}

// instanceRef reads {tenant}/{name} from the path.
func instanceRef(r *http.Request) (contract.Ref, error) {
	ref, err := contract.ParseRef(r.PathValue("tenant") + "/" + r.PathValue("name"))
	if err != nil {
		var re *contract.RefError
		if errors.As(err, &re) && re.Part != "" {
			return contract.Ref{}, badRequest("%s: %v", re.Part, err)
		}
		return contract.Ref{}, badRequest("%v", err)
	}
	return contract.Ref{Tenant: ref.Tenant, Name: ref.Name}, nil
}

// decode reads a JSON body into v, refusing unknown fields and trailing data.
func decode(r *http.Request, v any) error {
	if r.Body == nil || r.ContentLength == 0 {
		return nil
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("%s: %v", bodyField(err), err)
	}
	if dec.More() {
		return badRequest("body: more than one JSON value")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// hostName is a Host header's or a configured host's name, compared case-insensitively and
// without its port, brackets or trailing dot (as the codec endpoint compares them).
func hostName(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// bodyField is the field a body's decode error names: the mistyped one, the unknown one, else the body.
func bodyField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if u, err := strconv.Unquote(f); err == nil {
			return u
		}
	}
	return "body"
}
