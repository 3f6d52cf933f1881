package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/slipway-dev/slipway/internal/egress"
)

// AllowKnob is the operator's setting that lets http hooks reach internal addresses.
const AllowKnob = "SLIPWAY_HOOK_ALLOW_CIDRS"

// defaultClient reaches only public addresses and follows no redirect (internal/egress).
var defaultClient = egress.Policy{Knob: AllowKnob}.Client(0)

// NewClient is the http hooks' client: public addresses, plus the CIDRs the operator allows in
// SLIPWAY_HOOK_ALLOW_CIDRS (allow); no redirects, no proxy.
func NewClient(allow string) (*http.Client, error) {
	p, err := egress.Parse(AllowKnob, allow)
	if err != nil {
		return nil, err
	}
	return p.Client(0), nil
}

// maxBody bounds how much of a response is read; a longer one is no answer anyway.
const maxBody = 1 << 20

// checkURL refuses a rendered URL that is not http or https.
func checkURL(c Call) error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &InvalidSpecError{Hook: c.Spec.Name, Field: KindHTTP, Reason: "the rendered URL is not an absolute http or https URL"}
	}
	return nil
}

// target names an http hook's endpoint for messages without its query or credentials,
// which may carry tokens.
func target(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(bad URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// runHTTP makes one call of an http hook: a POST of the document; the trimmed body answers.
func (r *Runner) runHTTP(ctx context.Context, c Call, n int, out *tailBuffer) (string, error) {
	doc, err := documentFor(c, n)
	if err != nil {
		return "", fmt.Errorf("%s hook: %w", c.Spec.Name, err)
	}
	failed := func(f FailedError) error {
		f.Hook, f.Kind, f.Target, f.Call = c.Spec.Name, KindHTTP, target(c.URL), n
		return &f
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(doc))
	if err != nil {
		return "", failed(FailedError{Err: err.Error()})
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Slipway-Hook", c.Spec.Name)
	req.Header.Set("X-Slipway-Call", strconv.Itoa(n))
	client := r.HTTP
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		// A refused address or redirect is reported, never read: nothing of its answer is kept.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the full URL
		}
		return "", failed(FailedError{Err: err.Error()})
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	out.Write(body)
	if err != nil {
		return "", failed(FailedError{Err: "reading the response: " + err.Error(), Output: out.String()})
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", failed(FailedError{Status: resp.StatusCode, Output: out.String()})
	}
	return string(bytes.TrimSpace(body)), nil
}
