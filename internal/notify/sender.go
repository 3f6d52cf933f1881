package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/egress"
	"github.com/slipway-dev/slipway/internal/forge"
)

// AllowKnob is the operator's setting that lets sinks named by a host name reach internal
// addresses; a sink whose url is a literal IP address (or localhost) reaches it as written.
const AllowKnob = "SLIPWAY_NOTIFY_ALLOW_CIDRS"

// DefaultTimeout bounds one delivery when the Sender makes its own HTTP client.
const DefaultTimeout = 10 * time.Second

// maxErrorBody is how much of a failed response's body a DeliveryError keeps.
const maxErrorBody = 512

// Sender delivers events to sinks, one attempt per call. It is safe for concurrent use.
type Sender struct {
	client   *http.Client
	egress   egress.Policy
	now      func() time.Time
	reporter forge.Reporter
}

// Option configures a Sender.
type Option func(*Sender)

// WithHTTPClient sends with c (its transport, timeout, TLS settings). Redirects are never
// followed whatever c says: the Sender uses a copy of c with its own CheckRedirect.
func WithHTTPClient(c *http.Client) Option { return func(s *Sender) { s.client = c } }

// WithAllowed lets the Sender's own client reach these internal addresses besides each sink's
// literal IP address (SLIPWAY_NOTIFY_ALLOW_CIDRS, read with ParseAllowed).
func WithAllowed(p egress.Policy) Option { return func(s *Sender) { s.egress = p } }

// ParseAllowed reads SLIPWAY_NOTIFY_ALLOW_CIDRS: CIDRs or IP addresses, comma-separated.
func ParseAllowed(raw string) (egress.Policy, error) { return egress.Parse(AllowKnob, raw) }

// WithClock sets the clock that stamps X-Slipway-Timestamp (tests).
func WithClock(now func() time.Time) Option { return func(s *Sender) { s.now = now } }

// WithReporter sets the forge that kind forge sinks report to.
func WithReporter(r forge.Reporter) Option { return func(s *Sender) { s.reporter = r } }

// NewSender returns a Sender; without WithHTTPClient it uses a client with DefaultTimeout that
// refuses internal addresses as it dials (internal/egress), but those a sink's url names
// literally and those WithAllowed allows: a host name rebound to an internal address is refused.
func NewSender(opts ...Option) *Sender {
	s := &Sender{egress: egress.Policy{Knob: AllowKnob}}
	for _, o := range opts {
		o(s)
	}
	var c http.Client
	if s.client != nil {
		c = *s.client
	} else {
		c = *s.egress.Client(DefaultTimeout)
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.client = &c
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Deliver makes one attempt to deliver ev to sink. Retrying is the caller's (Temporal's) job:
// a nil error means delivered (or, for a forge sink, nothing to report); otherwise the error
// is a *DeliveryError whose Permanent field (IsPermanent) says whether retrying can help.
// Retries must reuse ev unchanged: ev.ID is what receivers and the forge dedupe on.
func (s *Sender) Deliver(ctx context.Context, sink Sink, ev Event) error {
	if s == nil || s.client == nil {
		s = NewSender()
	}
	switch {
	case ev.ID == "":
		return permanent(sink, "the event has no ID (receivers dedupe on it)")
	case !ev.Kind.Valid():
		return permanent(sink, fmt.Sprintf("unknown event kind %q; allowed: %s", ev.Kind, joinKinds(kinds)))
	}
	switch sink.Kind {
	case SinkWebhook:
		return s.deliverWebhook(ctx, sink, ev)
	case SinkSlack:
		return s.deliverSlack(ctx, sink, ev)
	case SinkForge:
		return s.deliverForge(ctx, sink, ev)
	}
	return permanent(sink, fmt.Sprintf("unknown sink kind %q; allowed: %s", sink.Kind, joinKinds(sinkKinds)))
}

func permanent(sink Sink, msg string) *DeliveryError {
	return &DeliveryError{Sink: sink.Name, Permanent: true, Err: errors.New(msg)}
}

// post sends body as JSON to the sink's URL and classifies the answer.
func (s *Sender) post(ctx context.Context, sink Sink, body []byte, h http.Header) error {
	if sink.url == "" {
		return permanent(sink, "the sink has no URL (sinks come from Load or Parse)")
	}
	if u, err := url.Parse(sink.url); err == nil {
		ctx = egress.WithAllowed(ctx, egress.LiteralHost(u.Hostname())...) // the operator wrote that address
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sink.url, bytes.NewReader(body))
	if err != nil {
		// The URL was checked at load, so this is a hand-built Sink; do not echo the URL.
		return permanent(sink, "cannot build the request for "+displayURL(sink.Kind, sink.url))
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "slipway-notify")
	resp, err := s.client.Do(req)
	if err != nil {
		// Network errors, timeouts and cancellations: the next attempt may well get through.
		return &DeliveryError{Sink: sink.Name, Err: redactURLError(err, sink)}
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	ok, perm := classify(resp.StatusCode)
	if ok {
		return nil
	}
	de := &DeliveryError{Sink: sink.Name, Status: resp.StatusCode, Permanent: perm,
		Body: strings.ToValidUTF8(string(head), "")}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		de.Err = errors.New("redirects are not followed; point the sink's url at the final address")
	}
	return de
}

// classify maps an HTTP status to delivered, or to a permanent or transient failure.
// 408 (timeout), 429 (rate limited) and 5xx are worth retrying. Every other status is
// permanent: 4xx says the request itself is wrong (a bad URL, a revoked hook, a wrong
// secret) and 3xx means the endpoint moved, which only a config change fixes.
func classify(status int) (delivered, permanent bool) {
	switch {
	case status >= 200 && status < 300:
		return true, false
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests, status >= 500:
		return false, false
	case status < 200:
		return false, false // an informational status as a final answer: a confused peer; try again
	}
	return false, true
}

// redactURLError rewrites the URL inside a client error as displayURL shows it: a Slack
// webhook's URL is its credential, and delivery errors end up in Temporal's history.
func redactURLError(err error, sink Sink) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: displayURL(sink.Kind, sink.url), Err: ue.Err}
	}
	return err
}
