package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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
	kindInvalidConfig   = "invalid-config"    // 422: the config is wrong (fields)
	kindBadRequest      = "bad-request"       // 400: the request itself is malformed
	kindUnavailable     = "unavailable"       // 503: Temporal cannot be reached
	kindNoWorker        = "no-worker"         // 504: no worker accepted it in time
	kindFailed          = "failed"            // 500: anything else
)

// errorBody is every error answer: {"error": message} as httpserve's own refusals, plus its kind.
type errorBody struct {
	Error  string                `json:"error"`
	Kind   string                `json:"kind,omitempty"`
	Fields []contract.FieldError `json:"fields,omitempty"`
}

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
	)
	code, kind, body := http.StatusInternalServerError, kindFailed, errorBody{Error: err.Error()}
	switch {
	case errors.As(err, &rf) && rf.Unauthenticated:
		code, kind = http.StatusUnauthorized, kindUnauthenticated
		body.Error = rf.Message
	case errors.As(err, &rf):
		code, kind = http.StatusForbidden, kindDenied
		body.Error = rf.Message
	case errors.As(err, &nf):
		code, kind = http.StatusNotFound, kindNotFound
		body.Error = nf.Instance
	case errors.As(err, &rn):
		code, kind = http.StatusNotFound, kindRolloutNotFound
		body.Error = rn.ID
	case errors.As(err, &rj) && rj.Busy:
		code, kind = http.StatusConflict, kindBusy
		body.Error = rj.Message
	case errors.As(err, &rj):
		code, kind = http.StatusConflict, kindRejected
		body.Error = rj.Message
	case errors.As(err, &ic):
		code, kind = http.StatusUnprocessableEntity, kindInvalidConfig
		body.Error, body.Fields = ic.Message, ic.Fields
	case errors.As(err, &br):
		code, kind = http.StatusBadRequest, kindBadRequest
	case errors.As(err, &un):
		code, kind = http.StatusServiceUnavailable, kindUnavailable
	case errors.As(err, &nw):
		code, kind = http.StatusGatewayTimeout, kindNoWorker
	case errors.Is(err, context.Canceled):
		code = 499 // the client left; nobody reads this
	}
	body.Kind = kind
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="slipway"`)
	}
	writeJSON(w, code, body)
	return code
}

func writeError(w http.ResponseWriter, code int, kind, msg string) {
	writeJSON(w, code, errorBody{Error: msg, Kind: kind})
}

// errorFromBody turns an error answer back into the error the direct path gives.
func errorFromBody(code int, b errorBody) error {
	kind := b.Kind
	if kind == "" {
		kind = kindFor(code) // httpserve's own refusals carry no kind
	}
	switch kind {
	case kindUnauthenticated:
		return &client.RefusedError{Message: b.Error, Unauthenticated: true}
	case kindDenied:
		return &client.RefusedError{Message: b.Error}
	case kindNotFound:
		return &client.NotFoundError{Instance: b.Error}
	case kindRolloutNotFound:
		return &client.RolloutNotFoundError{ID: b.Error}
	case kindBusy:
		return &client.RejectedError{Message: b.Error, Busy: true}
	case kindRejected:
		return &client.RejectedError{Message: b.Error}
	case kindInvalidConfig:
		return &client.InvalidConfigError{Message: b.Error, Fields: b.Fields}
	case kindBadRequest:
		return &BadRequestError{Message: b.Error}
	case kindNoWorker:
		return &NoWorkerError{Message: b.Error}
	}
	if b.Error == "" {
		b.Error = http.StatusText(code)
	}
	return fmt.Errorf("slipway server answered %d: %s", code, b.Error)
}
