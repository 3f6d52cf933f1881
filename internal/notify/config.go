package notify

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Config is a notify config file: the sinks, in file order.
type Config struct {
	Sinks []Sink
}

var (
	envVarRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

const sinkFields = "name, kind, url, secretEnv, tenants, events"

// Load reads and parses the notify config at path (see Parse). A missing file is an error
// that wraps fs.ErrNotExist. Config errors are *ConfigError with File set.
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("notify config: %w", err)
	}
	cfg, err := Parse(data, getenv)
	var ce *ConfigError
	if errors.As(err, &ce) {
		ce.File = path
	}
	return cfg, err
}

// Parse parses a notify config strictly: unknown or repeated keys are errors. Webhook secrets
// are read now through getenv (nil means os.Getenv), so a missing secret fails at start-up,
// not at the first delivery. An empty document has no sinks. Errors are *ConfigError listing
// every problem by field path ("sinks[1].kind").
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var fe yamlfields.Errors
	root, err := yamlfields.ParseDoc(data)
	switch {
	case err != nil:
		fe.Add("yaml", "%v", err)
		return nil, newConfigError(fe)
	case root == nil:
		return &Config{}, nil
	case root.Kind != yaml.MappingNode:
		fe.Add("yaml", "the notify config must be a mapping with the key sinks; got %s (line %d)", nodeKind(root), root.Line)
		return nil, newConfigError(fe)
	}
	cfg := &Config{}
	for _, kv := range pairs(root, "", &fe) {
		switch kv.Key {
		case "sinks":
			cfg.Sinks = parseSinks(kv.Value, getenv, &fe)
		default:
			fe.Add(kv.Key, "unknown field (line %d); allowed: sinks", kv.Line)
		}
	}
	if err := newConfigError(fe); err != nil {
		return nil, err
	}
	return cfg, nil
}

func parseSinks(n *yaml.Node, getenv func(string) string, fe *yamlfields.Errors) []Sink {
	if yamlfields.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		fe.Add("sinks", "must be a list of sinks, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var out []Sink
	names := map[string]int{}
	for i, item := range n.Content {
		field := fmt.Sprintf("sinks[%d]", i)
		s, ok := parseSink(yamlfields.Deref(item), field, getenv, fe)
		if !ok {
			continue
		}
		if s.Name != "" {
			if first, dup := names[s.Name]; dup {
				fe.Add(field+".name", "%q is already the name of sinks[%d]; names must be unique", s.Name, first)
			} else {
				names[s.Name] = i
			}
		}
		out = append(out, s)
	}
	return out
}

// parseSink reads one sink; ok is false when it is not even a mapping.
func parseSink(n *yaml.Node, field string, getenv func(string) string, fe *yamlfields.Errors) (Sink, bool) {
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with keys %s, got %s (line %d)", sinkFields, nodeKind(n), n.Line)
		return Sink{}, false
	}
	var s Sink
	bad := map[string]bool{} // fields already reported, so "is required" does not pile on
	set := map[string]bool{}
	for _, kv := range pairs(n, field+".", fe) {
		f := field + "." + kv.Key
		set[kv.Key] = true
		v, isStr := yamlfields.String(kv.Value)
		switch kv.Key {
		case "name", "kind", "url", "secretEnv":
			if !isStr {
				fe.Add(f, "must be a string, got %s (line %d)", nodeKind(kv.Value), kv.Value.Line)
				bad[kv.Key] = true
				continue
			}
		}
		switch kv.Key {
		case "name":
			s.Name = v
			if v != "" && !names.IsLabel(v) {
				fe.Add(f, "%q %s", v, names.LabelRule)
			}
		case "kind":
			if v != "" && !contains(sinkKinds, SinkKind(v)) {
				fe.Add(f, "unknown value %q; allowed: %s", v, joinKinds(sinkKinds))
				bad["kind"] = true
				continue
			}
			s.Kind = SinkKind(v)
		case "url":
			s.url = v
		case "secretEnv":
			s.secretEnv = v
		case "tenants":
			s.tenants = parseTenants(kv.Value, f, fe)
		case "events":
			s.events = parseEvents(kv.Value, f, fe)
		default:
			fe.Add(f, "unknown field (line %d); allowed: %s", kv.Line, sinkFields)
		}
	}
	if s.Name == "" && !bad["name"] {
		fe.Add(field+".name", "is required")
	}
	if s.Kind == "" && !bad["kind"] {
		fe.Add(field+".kind", "is required; allowed: %s", joinKinds(sinkKinds))
	}

	// url: webhook and slack need one, forge must not have one.
	switch {
	case bad["url"]:
	case s.Kind == SinkForge && set["url"]:
		fe.Add(field+".url", "is not allowed for kind forge (it reports through the forge's own API)")
	case s.url == "" && (s.Kind == SinkWebhook || s.Kind == SinkSlack):
		fe.Add(field+".url", "is required for kind %s", s.Kind)
	case s.url != "":
		checkURL(s.Kind, s.url, field+".url", fe)
	}

	// secretEnv: webhook needs one whose variable is set; slack and forge must not have one.
	f := field + ".secretEnv"
	switch {
	case bad["secretEnv"]:
	case (s.Kind == SinkSlack || s.Kind == SinkForge) && set["secretEnv"]:
		fe.Add(f, "is not allowed for kind %s (only webhook sinks sign their deliveries)", s.Kind)
	case s.secretEnv == "" && s.Kind == SinkWebhook:
		fe.Add(f, "is required for kind webhook: the name of the environment variable that holds the HMAC secret")
	case s.secretEnv == "":
	case !envVarRE.MatchString(s.secretEnv):
		fe.Add(f, "%q is not an environment variable name", s.secretEnv)
	case s.Kind == SinkWebhook:
		v := getenv(s.secretEnv)
		if v == "" {
			fe.Add(f, "environment variable %s is unset or empty; it must hold the webhook's HMAC secret", s.secretEnv)
		}
		s.secret = secret(v)
	}
	return s, true
}

func parseTenants(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	var out []string
	for i, item := range listItems(n, field, "tenant names", fe) {
		f := fmt.Sprintf("%s[%d]", field, i)
		t, ok := yamlfields.String(item)
		switch {
		case !ok:
			fe.Add(f, "must be a string, got %s (line %d)", nodeKind(item), item.Line)
		case !names.IsLabel(t):
			fe.Add(f, "%q %s", t, names.LabelRule)
		case contains(out, t):
			fe.Add(f, "%q is listed twice", t)
		default:
			out = append(out, t)
		}
	}
	return out
}

func parseEvents(n *yaml.Node, field string, fe *yamlfields.Errors) []Kind {
	var out []Kind
	for i, item := range listItems(n, field, "event kinds", fe) {
		f := fmt.Sprintf("%s[%d]", field, i)
		v, ok := yamlfields.String(item)
		k := Kind(v)
		switch {
		case !ok:
			fe.Add(f, "must be a string, got %s (line %d)", nodeKind(item), item.Line)
		case !k.Valid():
			fe.Add(f, "unknown value %q; allowed: %s", v, joinKinds(kinds))
		case contains(out, k):
			fe.Add(f, "%q is listed twice", v)
		default:
			out = append(out, k)
		}
	}
	return out
}

// listItems returns a sequence's items; null is an empty list, anything else is reported.
func listItems(n *yaml.Node, field, what string, fe *yamlfields.Errors) []*yaml.Node {
	if yamlfields.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of %s, got %s (line %d)", what, nodeKind(n), n.Line)
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, item := range n.Content {
		out[i] = yamlfields.Deref(item)
	}
	return out
}

// checkURL wants an absolute https URL with a host; http is allowed only on loopback, where
// nothing crosses a network. The URL is echoed as displayURL shows it, never with credentials.
func checkURL(kind SinkKind, raw, field string, fe *yamlfields.Errors) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		fe.Add(field, "is not a valid URL: %v", err)
		return
	}
	shown := displayURL(kind, raw)
	switch {
	case u.Host == "" || u.Hostname() == "":
		u.RawQuery, u.Fragment = "", ""
		fe.Add(field, "%q must be an absolute URL with a host", u.Redacted())
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	case u.Scheme == "http":
		fe.Add(field, "%q must be https (http is allowed only on loopback)", shown)
	default:
		fe.Add(field, "%q has scheme %q; it must be https (http is allowed only on loopback)", shown, u.Scheme)
	}
}

// isLoopback: localhost, 127.0.0.0/8 or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func joinKinds[T ~string](ks []T) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = string(k)
	}
	return strings.Join(parts, ", ")
}

// Match returns the sinks that want ev (see Sink.Wants), in file order.
func (c *Config) Match(ev Event) []Sink {
	if c == nil {
		return nil
	}
	var out []Sink
	for _, s := range c.Sinks {
		if s.Wants(ev) {
			out = append(out, s)
		}
	}
	return out
}

// Sink finds a sink by name: an activity receives the name and looks the sink up, so the
// secret never enters Temporal's history.
func (c *Config) Sink(name string) (Sink, bool) {
	if c == nil {
		return Sink{}, false
	}
	for _, s := range c.Sinks {
		if s.Name == name {
			return s, true
		}
	}
	return Sink{}, false
}
