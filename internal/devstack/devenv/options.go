package devenv

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"

	"github.com/slipway-dev/slipway/internal/devstack/freeport"
)

// ServerOptions configures StartServer. The zero value is a usable in-memory
// server with a UI, on free loopback ports.
type ServerOptions struct {
	Binary           string            // temporal CLI; "" = FindTemporal()
	IP               string            // bind address; "" = 127.0.0.1; must be loopback
	Port             int               // frontend gRPC; 0 = pick a free port
	UIPort           int               // Web UI; 0 = pick a free port; ignored when Headless
	Headless         bool              // no Web UI (tests)
	DBFile           string            // SQLite file; "" = in-memory
	Namespace        string            // "" = "default" (always created as well)
	SearchAttributes map[string]string // name → type, e.g. {"Tenant": "Keyword"}
	LogFile          string            // server output is appended here; "" = discarded
	// CodecEndpoint is the codec server the UI decodes payloads through
	// (--ui-codec-endpoint): an http(s) URL, "" = none; ignored when Headless.
	CodecEndpoint string
}

// fastDynamicConfig makes an activity step cost ~20 ms instead of ~100 ms on the
// dev server's single history shard (see docs/design.md); one partition avoids 2 s stalls.
var fastDynamicConfig = []string{
	"history.transferProcessorMaxPollRPS=1000",
	"matching.numTaskqueueReadPartitions=1",
	"matching.numTaskqueueWritePartitions=1",
	// Priority and fairness (contract.TaskPriority): a person's request ahead of a rollout's, tenants
	// sharing the queue by weight. Temporal 1.29 has both behind these (docs/priority.md).
	"matching.useNewMatcher=true",
	"matching.enableFairness=true",
}

// searchAttributeTypes are the types `temporal server start-dev --search-attribute` accepts.
var searchAttributeTypes = []string{"Text", "Keyword", "Int", "Double", "Bool", "Datetime", "KeywordList"}

var (
	identifierRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	namespaceRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// serverPorts are every port start-dev opens that a flag can pin.
type serverPorts struct {
	GRPC, UI, HTTP, Metrics int
}

// resolve fills defaults and rejects bad values, naming the field.
func (o ServerOptions) resolve() (ServerOptions, error) {
	if o.IP == "" || o.IP == "localhost" {
		o.IP = "127.0.0.1" // start-dev needs an IP, and "localhost" may resolve to ::1
	}
	if ip := net.ParseIP(o.IP); ip == nil || !ip.IsLoopback() {
		return o, &OptionError{Field: "IP", Value: o.IP, Reason: "must be a loopback IP address such as 127.0.0.1"}
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, &OptionError{Field: "Port", Value: o.Port, Reason: "must be 0 (pick a free port) or 1-65535"}
	}
	if o.UIPort < 0 || o.UIPort > 65535 {
		return o, &OptionError{Field: "UIPort", Value: o.UIPort, Reason: "must be 0 (pick a free port) or 1-65535"}
	}
	if !o.Headless && o.UIPort != 0 && o.UIPort == o.Port {
		return o, &OptionError{Field: "UIPort", Value: o.UIPort, Reason: "must differ from Port"}
	}
	if o.CodecEndpoint != "" {
		if err := checkEndpoint(o.CodecEndpoint); err != nil {
			return o, &OptionError{Field: "CodecEndpoint", Value: strconv.Quote(o.CodecEndpoint), Reason: err.Error()}
		}
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if !namespaceRE.MatchString(o.Namespace) {
		return o, &OptionError{Field: "Namespace", Value: strconv.Quote(o.Namespace),
			Reason: "must start with a letter or digit and hold only letters, digits, '.', '_' and '-'"}
	}
	for name, typ := range o.SearchAttributes {
		field := "SearchAttributes[" + strconv.Quote(name) + "]"
		if !identifierRE.MatchString(name) {
			return o, &OptionError{Field: field, Value: strconv.Quote(name), Reason: "name must be an identifier (letters, digits, '_')"}
		}
		if !slices.Contains(searchAttributeTypes, typ) {
			return o, &OptionError{Field: field, Value: strconv.Quote(typ), Reason: "type must be one of Text, Keyword, Int, Double, Bool, Datetime, KeywordList"}
		}
	}
	if o.Binary == "" {
		bin, err := FindTemporal()
		if err != nil {
			return o, err
		}
		o.Binary = bin
	} else if !isExecutable(o.Binary) {
		return o, &OptionError{Field: "Binary", Value: o.Binary, Reason: "is not an executable file"}
	}
	return o, nil
}

// autoPorts reports whether every port is picked here, so a clash can be retried.
func (o ServerOptions) autoPorts() bool {
	return o.Port == 0 && (o.Headless || o.UIPort == 0)
}

// pickPorts pins every port start-dev would otherwise choose itself (UI = gRPC+1000,
// HTTP and metrics random), so two servers side by side never collide.
func (o ServerOptions) pickPorts() (serverPorts, error) {
	p := serverPorts{GRPC: o.Port, UI: o.UIPort}
	want := []*int{&p.GRPC, &p.HTTP, &p.Metrics}
	if !o.Headless {
		want = append(want, &p.UI)
	} else {
		p.UI = 0
	}
	for _, port := range want {
		if *port != 0 {
			continue
		}
		free, err := freeport.Get()
		if err != nil {
			return p, err
		}
		*port = free
	}
	return p, nil
}

// sqlitePragmas: a write-ahead log synced at checkpoints, not at every commit, halves a start's
// latency; commits survive a killed server, and only an OS crash can lose the last ones.
var sqlitePragmas = []string{"journal_mode=wal", "synchronous=normal"}

// args is the start-dev command line for resolved options and picked ports.
func (o ServerOptions) args(p serverPorts) []string {
	a := []string{"server", "start-dev",
		"--ip", o.IP,
		"--port", strconv.Itoa(p.GRPC),
		"--http-port", strconv.Itoa(p.HTTP),
		"--metrics-port", strconv.Itoa(p.Metrics),
		"--color", "never",
	}
	if o.Headless {
		a = append(a, "--headless")
	} else {
		a = append(a, "--ui-ip", o.IP, "--ui-port", strconv.Itoa(p.UI))
		if o.CodecEndpoint != "" {
			a = append(a, "--ui-codec-endpoint", o.CodecEndpoint)
		}
	}
	if o.DBFile != "" {
		a = append(a, "--db-filename", o.DBFile)
		for _, p := range sqlitePragmas {
			a = append(a, "--sqlite-pragma", p)
		}
	}
	if o.Namespace != "default" {
		a = append(a, "--namespace", o.Namespace)
	}
	names := make([]string, 0, len(o.SearchAttributes))
	for name := range o.SearchAttributes {
		names = append(names, name)
	}
	slices.Sort(names) // a stable command line is easier to read in logs
	for _, name := range names {
		a = append(a, "--search-attribute", name+"="+o.SearchAttributes[name])
	}
	for _, kv := range fastDynamicConfig {
		a = append(a, "--dynamic-config-value", kv)
	}
	return a
}

// checkEndpoint accepts a codec endpoint the UI can call: http(s)://host[:port][/path].
// The UI appends /decode and /encode to it, so it takes no query or fragment.
func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must be an http:// or https:// URL")
	case u.Host == "":
		return errors.New("has no host")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return errors.New("must hold no user, query or fragment: the UI appends /decode to it")
	}
	return nil
}
