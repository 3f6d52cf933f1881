package notify

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// SinkKind is where a sink sends events.
type SinkKind string

const (
	SinkWebhook SinkKind = "webhook" // a signed JSON POST
	SinkSlack   SinkKind = "slack"   // a Slack incoming webhook
	SinkForge   SinkKind = "forge"   // a commit status and an MR comment via forge.Reporter
)

var sinkKinds = []SinkKind{SinkWebhook, SinkSlack, SinkForge}

// Sink is one configured destination. Only Name and Kind are exported; the rest comes from the
// config file. A Sink holds its webhook secret: it prints, formats and marshals redacted, and
// must not travel as a Temporal argument (pass Name and use Config.Sink on the worker).
type Sink struct {
	Name string
	Kind SinkKind

	url       string
	secretEnv string
	secret    secret
	tenants   []string
	events    []Kind
}

// Wants reports whether the sink takes ev: its tenant filter (empty: every tenant) and its
// kind filter (empty: every kind). An event with no tenant (a rollout across tenants) goes
// only to global sinks.
func (s Sink) Wants(ev Event) bool {
	if len(s.tenants) > 0 && !slices.Contains(s.tenants, ev.tenant()) {
		return false
	}
	return len(s.events) == 0 || slices.Contains(s.events, ev.Kind)
}

// String describes the sink without its secret or any credential in its URL.
func (s Sink) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s sink %q", s.Kind, s.Name)
	var attrs []string
	if s.url != "" {
		attrs = append(attrs, displayURL(s.Kind, s.url))
	}
	if s.secretEnv != "" {
		attrs = append(attrs, "secret from $"+s.secretEnv)
	}
	if len(s.tenants) > 0 {
		attrs = append(attrs, "tenants "+strings.Join(s.tenants, ","))
	}
	if len(s.events) > 0 {
		ev := make([]string, len(s.events))
		for i, k := range s.events {
			ev[i] = string(k)
		}
		attrs = append(attrs, "events "+strings.Join(ev, ","))
	}
	if len(attrs) > 0 {
		b.WriteString(" (" + strings.Join(attrs, ", ") + ")")
	}
	return b.String()
}

// GoString keeps %#v redacted too.
func (s Sink) GoString() string { return "notify.Sink{" + s.String() + "}" }

// Format routes every verb (%v, %+v, %#v, %d, %x, ...) through String, so no verb can reach
// the secret field by reflection.
func (s Sink) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(s.GoString()))
		return
	}
	_, _ = f.Write([]byte(s.String()))
}

type sinkJSON struct {
	Name      string   `json:"name"`
	Kind      SinkKind `json:"kind"`
	URL       string   `json:"url,omitempty"`
	SecretEnv string   `json:"secretEnv,omitempty"`
	Tenants   []string `json:"tenants,omitempty"`
	Events    []Kind   `json:"events,omitempty"`
}

// MarshalJSON writes the sink as the config file has it, the URL redacted as in String; the
// secret is not written (secretEnv, the variable's name, is).
func (s Sink) MarshalJSON() ([]byte, error) {
	j := sinkJSON{Name: s.Name, Kind: s.Kind, SecretEnv: s.secretEnv, Tenants: s.tenants, Events: s.events}
	if s.url != "" {
		j.URL = displayURL(s.Kind, s.url)
	}
	return json.Marshal(j)
}

// displayURL is a URL as it may be shown in logs, errors and JSON: without user info, query or
// fragment, and, for Slack, without the path (a Slack webhook's path is its credential).
func displayURL(kind SinkKind, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	shown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if kind == SinkSlack && strings.Trim(u.Path, "/") != "" {
		shown.Path = "/..."
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return shown.String() + "?..."
	}
	return shown.String()
}

// secret is a webhook HMAC key; it never formats or marshals as itself.
type secret string

const redacted = "[redacted]"

func (secret) String() string               { return redacted }
func (secret) GoString() string             { return redacted }
func (secret) Format(f fmt.State, _ rune)   { _, _ = f.Write([]byte(redacted)) }
func (secret) MarshalJSON() ([]byte, error) { return json.Marshal(redacted) }
func (secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
func (s secret) bytes() []byte              { return []byte(s) }
