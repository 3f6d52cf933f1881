package notify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// FieldError names one bad field of a notify config, e.g. "sinks[1].kind".
// Its fields are Field and Message, as JSON "field" and "message".
type FieldError = yamlfields.FieldError

// ConfigError is everything wrong with a notify config, in document order. File is set by Load.
type ConfigError struct {
	File   string       `json:"file,omitempty"`
	Errors []FieldError `json:"errors"`
}

func (e *ConfigError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, f := range e.Errors {
		parts[i] = f.String()
	}
	prefix := "invalid notify config"
	if e.File != "" {
		prefix += " " + e.File
	}
	return prefix + ": " + strings.Join(parts, "; ")
}

// Field returns the first error about field, for callers and tests that look for one.
func (e *ConfigError) Field(field string) (FieldError, bool) {
	for _, f := range e.Errors {
		if f.Field == field {
			return f, true
		}
	}
	return FieldError{}, false
}

// newConfigError returns nil when nothing was collected.
func newConfigError(fe yamlfields.Errors) error {
	if len(fe) == 0 {
		return nil
	}
	errs := make([]FieldError, len(fe))
	for i, e := range fe {
		errs[i] = FieldError(e)
	}
	return &ConfigError{Errors: errs}
}

// DeliveryError is one failed delivery attempt. Status is the HTTP status, 0 when there was
// no response (network error, bad event, forge error). Permanent means retrying the same
// delivery cannot succeed; otherwise it is transient and worth retrying.
type DeliveryError struct {
	Sink      string `json:"sink"`
	Status    int    `json:"status,omitempty"`
	Permanent bool   `json:"permanent"`
	Body      string `json:"body,omitempty"` // the first 512 bytes of the response body
	Err       error  `json:"-"`              // the cause when there was no response; URLs are redacted
}

func (e *DeliveryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "notify sink %s: ", e.Sink)
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if e.Err != nil {
			b.WriteString(": " + e.Err.Error())
		}
		if body := strings.TrimSpace(e.Body); body != "" {
			b.WriteString(": " + body)
		}
	} else if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("delivery failed")
	}
	if e.Permanent {
		b.WriteString(" (permanent)")
	} else {
		b.WriteString(" (transient)")
	}
	return b.String()
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is (or wraps) a *DeliveryError that retrying cannot fix.
// Any other error, including nil, is not permanent.
func IsPermanent(err error) bool {
	var de *DeliveryError
	return errors.As(err, &de) && de.Permanent
}

// IsTransient reports whether err is a failed delivery worth retrying: a transient
// *DeliveryError, or any other non-nil error.
func IsTransient(err error) bool { return err != nil && !IsPermanent(err) }

// VerifyError is a webhook delivery a receiver must refuse. Header names the header at fault
// ("" for the body or the secret); Reason says what is wrong with it, Detail adds specifics.
type VerifyError struct {
	Header string `json:"header,omitempty"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

func (e *VerifyError) Error() string {
	msg := "notify: refused delivery: "
	if e.Header != "" {
		msg += e.Header + ": "
	}
	msg += e.Reason
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Is lets errors.Is(err, ErrStale) and friends match by header and reason, whatever the detail.
func (e *VerifyError) Is(target error) bool {
	t, ok := target.(*VerifyError)
	return ok && t.Header == e.Header && t.Reason == e.Reason
}

// Verify's refusals that callers may want to tell apart.
var (
	ErrMissingSignature = &VerifyError{Header: HeaderSignature, Reason: "missing"}
	ErrBadSignature     = &VerifyError{Header: HeaderSignature, Reason: "does not match the body"}
	ErrMissingTimestamp = &VerifyError{Header: HeaderTimestamp, Reason: "missing"}
	ErrStale            = &VerifyError{Header: HeaderTimestamp, Reason: "outside the tolerance"}
)
