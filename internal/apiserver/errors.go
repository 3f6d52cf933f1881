package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
)

// Error kinds on the wire: the CLI turns each back into the error the direct path returns, so
// a command exits with the same code whichever way it went.
const (
	kindUnauthenticated = "unauthenticated"   // 401: no token, expired, foreign, bad signature
	kindDenied          = "denied"            // 403: the policy said no
	kindNotFound        = "not-found"         // 404: no such instance
	kindRolloutNotFound = "rollout-not-found" // 404: no such rollout
	kindRejected        = "rejected"          // 409: the state does not allow it
	kindBusy            = "busy"              // 409: another operation runs
	kindInvalidConfig   = "invalid-config"    // 400: the config is wrong (errors name the fields)
	kindBadRequest      = "bad-request"       // 400: the request itself is malformed
	kindUnavailable     = "unavailable"       // 503: Temporal cannot be reached
	kindNoWorker        = "no-worker"         // 504: no worker accepted it in time
	kindTooMany         = "too-many"          // 429: over a bound of live event streams
	kindUnmeetable      = "unmeetable"        // 422: a deadline the change windows cannot meet
	kindFailed          = "failed"            // 500: anything else
)

// problemType is the RFC 9457 type of each kind: a URN, so it names the kind and points nowhere.
const problemType = "urn:slipway:problem:"

// Problem is every error answer, an RFC 9457 problem detail (application/problem+json): its
// kind is also an extension member, and errors name the fields at fault.
type Problem struct {
	Type   string                `json:"type"`
	Title  string                `json:"title"`
	Status int                   `json:"status"`
	Detail string                `json:"detail"`
	Kind   string                `json:"kind,omitempty"`
	Errors []contract.FieldError `json:"errors,omitempty"`
}

// problem is the answer code gives, with its kind and the fields at fault.
func problem(code int, kind, detail string, fields []contract.FieldError) Problem {
	typ := "about:blank"
	if kind != "" {
		typ = problemType + kind
	}
	return Problem{Type: typ, Title: http.StatusText(code), Status: code, Detail: detail, Kind: kind, Errors: fields}
}

// fieldOf is the field a bad request names: every one starts "field: ...".
func fieldOf(msg string) []contract.FieldError {
	f, rest, ok := strings.Cut(msg, ": ")
	if !ok || !fieldRE.MatchString(f) {
		return nil
	}
	return []contract.FieldError{{Field: f, Message: rest}}
}

var fieldRE = regexp.MustCompile(`^[a-zA-Z][-a-zA-Z0-9]*(\.[a-zA-Z][a-zA-Z0-9]*|\[[0-9]+\])*$`)

// BadRequestError: the API request itself is malformed (CLI exit 2). Nothing changed.
type BadRequestError struct{ Message string }

func (e *BadRequestError) Error() string { return e.Message }

func (e *BadRequestError) Is(target error) bool { return target == errkind.Invalid }

func badRequest(format string, args ...any) error {
	return &BadRequestError{Message: fmt.Sprintf(format, args...)}
}

// NoWorkerError: no worker accepted the request in time (nothing changed).
type NoWorkerError struct{ Message string }

func (e *NoWorkerError) Error() string { return e.Message }

// kindFor names the kind of an answer that carries none (httpserve's refusals from Admit): a 401
// is always about the token; a 403 there is a foreign Host, not a policy's answer.
func kindFor(code int) string {
	if code == http.StatusUnauthorized {
		return kindUnauthenticated
	}
	return ""
}

// writeErr answers err with its status code and kind and returns the code.
func (s *Server) writeErr(w http.ResponseWriter, err error) int {
	var (
		rf *client.RefusedError
		nf *client.NotFoundError
		rn *client.RolloutNotFoundError
		rj *client.RejectedError
		ic *client.InvalidConfigError
		br *BadRequestError
		un *client.UnavailableError
		nw *NoWorkerError
		tm *TooManyError
		dm *client.DeadlineMissedError
	)
	code, kind, body := http.StatusInternalServerError, kindFailed, Problem{Detail: err.Error()}
	switch {
	case errors.As(err, &rf) && rf.Unauthenticated:
		code, kind = http.StatusUnauthorized, kindUnauthenticated
		body.Detail = rf.Message
	case errors.As(err, &rf):
		code, kind = http.StatusForbidden, kindDenied
		body.Detail = rf.Message
	case errors.As(err, &nf):
		code, kind = http.StatusNotFound, kindNotFound
		body.Detail = nf.Instance
	case errors.As(err, &rn):
		code, kind = http.StatusNotFound, kindRolloutNotFound
		body.Detail = rn.ID
	case errors.As(err, &rj) && rj.Busy:
		code, kind = http.StatusConflict, kindBusy
		body.Detail = rj.Message
	case errors.As(err, &rj):
		code, kind = http.StatusConflict, kindRejected
		body.Detail = rj.Message
	case errors.As(err, &ic):
		code, kind = http.StatusBadRequest, kindInvalidConfig
		body.Detail, body.Errors = ic.Message, ic.Fields
	case errors.As(err, &br):
		code, kind = http.StatusBadRequest, kindBadRequest
		body.Errors = fieldOf(br.Message)
	case errors.As(err, &un):
		code, kind = http.StatusServiceUnavailable, kindUnavailable
	case errors.As(err, &nw):
		code, kind = http.StatusGatewayTimeout, kindNoWorker
	case errors.As(err, &tm):
		code, kind = http.StatusTooManyRequests, kindTooMany
		body.Errors = fieldOf(tm.Message)
	case errors.As(err, &dm):
		code, kind = http.StatusUnprocessableEntity, kindUnmeetable
	case errors.Is(err, context.Canceled):
		code = 499 // the client left; nobody reads this
	}
	writeProblem(w, problem(code, kind, body.Detail, body.Errors))
	return code
}

// writeProblem is the one writer of every error answer, the handlers' and httpserve's refusals.
func writeProblem(w http.ResponseWriter, p Problem) {
	if p.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="slipway"`)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// Refuse writes httpserve's own refusals (a foreign Host, no token, a body too large, busy) as problem details.
func (s *Server) Refuse(w http.ResponseWriter, code int, msg string) {
	var fields []contract.FieldError
	if code == http.StatusRequestEntityTooLarge {
		fields = []contract.FieldError{{Field: "body", Message: msg}}
	}
	writeProblem(w, problem(code, kindFor(code), msg, fields))
}

// errorFromBody turns an error answer back into the error the direct path gives.
func errorFromBody(code int, b Problem) error {
	kind := b.Kind
	if kind == "" {
		kind = kindFor(code) // a proxy's answers carry no kind
	}
	switch kind {
	case kindUnauthenticated:
		return &client.RefusedError{Message: b.Detail, Unauthenticated: true}
	case kindDenied:
		return &client.RefusedError{Message: b.Detail}
	case kindNotFound:
		return &client.NotFoundError{Instance: b.Detail}
	case kindRolloutNotFound:
		return &client.RolloutNotFoundError{ID: b.Detail}
	case kindBusy:
		return &client.RejectedError{Message: b.Detail, Busy: true}
	case kindRejected:
		return &client.RejectedError{Message: b.Detail}
	case kindInvalidConfig:
		return &client.InvalidConfigError{Message: b.Detail, Fields: b.Errors}
	case kindBadRequest:
		return &BadRequestError{Message: b.Detail}
	case kindNoWorker:
		return &NoWorkerError{Message: b.Detail}
	case kindTooMany:
		return &TooManyError{Message: b.Detail}
	case kindUnmeetable:
		return &client.DeadlineMissedError{Message: b.Detail}
	}
	if b.Detail == "" {
		b.Detail = http.StatusText(code)
	}
	return fmt.Errorf("slipway server answered %d: %s", code, b.Detail)
}
