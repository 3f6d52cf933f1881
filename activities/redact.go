package activities

import (
	"errors"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
)

// redactor replaces secret values in text that leaves an activity (results,
// errors, leftovers): anything a deployer echoes back goes into history.
type redactor struct{ values []string }

const redacted = "[redacted]"

func newRedactor(secrets map[string]string) redactor {
	r := redactor{}
	for _, v := range secrets {
		if v != "" {
			r.values = append(r.values, v)
		}
	}
	return r
}

func (r redactor) text(s string) string {
	for _, v := range r.values {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return s
}

func (r redactor) status(st contract.AppStatus) contract.AppStatus {
	st.Message = r.text(st.Message)
	res := make([]contract.Resource, len(st.Resources))
	for i, x := range st.Resources {
		x.Message = r.text(x.Message)
		res[i] = x
	}
	if st.Resources != nil {
		st.Resources = res
	}
	return st
}

// error rebuilds err with a redacted message and no cause chain, so the original
// text cannot reach history through the failure's causes either.
func (r redactor) error(err error) error {
	if err == nil || len(r.values) == 0 {
		return err
	}
	msg := r.text(err.Error())
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		msg = r.text(appErr.Message())
		if appErr.NonRetryable() {
			return temporal.NewNonRetryableApplicationError(msg, appErr.Type(), nil)
		}
		return temporal.NewApplicationError(msg, appErr.Type())
	}
	return errors.New(msg)
}
