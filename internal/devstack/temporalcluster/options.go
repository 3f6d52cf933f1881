package temporalcluster

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/freeport"
)

const (
	// MaxPort is the highest port a node may use: the schema stores membership ports as
	// SMALLINT, and a higher one kills the server at start. Keep every port below it.
	MaxPort = 32767
	// HistoryShards is fixed for the life of the databases; every node must agree on it.
	HistoryShards = 4
	// DefaultNodes is how many nodes Start runs when Options.Nodes is 0.
	DefaultNodes = 2
	// maxNodes keeps a typo from starting dozens of servers.
	maxNodes = 9
	// DefaultNamespace is created by Start; Temporal clients use it unless told otherwise.
	DefaultNamespace = "default"
	// DefaultRetention is how long closed workflows stay in the namespace.
	DefaultRetention = 24 * time.Hour
	// clusterName is the one cluster's name in clusterMetadata.
	clusterName = "active"
)

// DB says how the nodes and Setup reach PostgreSQL.
type DB struct {
	Host               string // "" = 127.0.0.1
	Port               int    // required
	User               string // required
	Password           string // may be empty (trust authentication)
	Database           string // "" = "temporal"
	VisibilityDatabase string // "" = "temporal_visibility"
}

// Ports are every port a node listens on, all on 127.0.0.1; zero fields are picked free,
// below 32768.
type Ports struct {
	Frontend, FrontendMembership, FrontendHTTP int
	History, HistoryMembership                 int
	Matching, MatchingMembership               int
	Worker, WorkerMembership                   int
	// The internal frontend runs only with Authorization: the server's own worker service
	// calls it instead of the public frontend, whose authorizer would refuse it.
	InternalFrontend, InternalFrontendMembership int
}

// NodeOptions configure one server process running all four services.
type NodeOptions struct {
	Name   string // "" = "node"; names the log and errors
	Dir    string // required: config/, dynamicconfig.yaml and temporal.log live here
	DB     DB
	BinDir string // "" = FindBinaries("")
	Ports  Ports
	// ClusterAddress is the cluster's frontend recorded in the cluster metadata; every node
	// of a cluster must give the same one. "" = this node's frontend.
	ClusterAddress string
	// DynamicConfig adds to or overrides the fast defaults (see config.go).
	DynamicConfig map[string]any
	LogLevel      string // debug, info (""), warn or error
	// Authorization turns on the frontend's JWT authorizer; nil = every caller may do anything.
	Authorization *Authorization
}

// Options configure Setup and Start.
type Options struct {
	DB     DB
	Dir    string // required by Start: one directory per node is made under it
	Nodes  int    // 0 = DefaultNodes
	BinDir string // "" = FindBinaries("")
	// FrontendAddress is the loopback host:port of the cluster's one stable frontend, which
	// forwards each connection to a live node; "" = a free port.
	FrontendAddress  string
	Namespace        string            // "" = DefaultNamespace
	Retention        time.Duration     // 0 = DefaultRetention
	SearchAttributes map[string]string // name -> type (Keyword, Text, Int, ...), registered in Namespace
	DynamicConfig    map[string]any    // for every node, as NodeOptions.DynamicConfig
	LogLevel         string            // as NodeOptions.LogLevel
	Authorization    *Authorization    // as NodeOptions.Authorization
}

// Authorization is the server's own authorization (config global.authorization): the default
// JWT claim mapper reads a bearer token's permissions claim ("default:read", "default:write",
// "temporal-system:admin", ...) and the default authorizer lets each call through only with
// the role its API needs. Tokens are checked against the identity provider's published keys.
type Authorization struct {
	// JWKSURL is the identity provider's JWKS URI (jwtKeyProvider.keySourceURIs); required.
	// The nodes fetch it when they start: the provider must be up first.
	JWKSURL string
	// PermissionsClaimName is the claim holding the permissions; "" = "permissions".
	PermissionsClaimName string
	// Audience, when set, refuses tokens issued for anything else (the aud claim).
	Audience string
	// RefreshInterval is how often the nodes fetch the keys again (key rotation); 0 = 1m.
	RefreshInterval time.Duration
}

// DefaultKeyRefresh is how often the nodes fetch the identity provider's keys again.
const DefaultKeyRefresh = time.Minute

// resolve fills defaults and rejects bad values; owner prefixes the field name.
func (a *Authorization) resolve(owner string) (*Authorization, error) {
	if a == nil {
		return nil, nil
	}
	r := *a
	field := owner + ".Authorization"
	u, err := url.Parse(r.JWKSURL)
	if r.JWKSURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &OptionError{Field: field + ".JWKSURL", Value: strconv.Quote(r.JWKSURL),
			Reason: "must be the identity provider's JWKS URI, an http(s) URL such as https://idp.example.com/jwks"}
	}
	if ip := net.ParseIP(u.Hostname()); u.Scheme == "http" && u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		// Whoever can change the keys in transit can sign any token the nodes accept.
		return nil, &OptionError{Field: field + ".JWKSURL", Value: strconv.Quote(r.JWKSURL),
			Reason: "plain http only on loopback; use https"}
	}
	if r.PermissionsClaimName == "" {
		r.PermissionsClaimName = "permissions"
	}
	if strings.ContainsAny(r.PermissionsClaimName, " \t\n") {
		return nil, &OptionError{Field: field + ".PermissionsClaimName", Value: strconv.Quote(r.PermissionsClaimName), Reason: "must be a claim name"}
	}
	if r.RefreshInterval == 0 {
		r.RefreshInterval = DefaultKeyRefresh
	}
	if r.RefreshInterval < time.Second {
		return nil, &OptionError{Field: field + ".RefreshInterval", Value: r.RefreshInterval, Reason: "must be at least 1s (0 = 1m)"}
	}
	return &r, nil
}

var (
	dbNameRE     = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)
	nodeNameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)
	namespaceRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	identifierRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	logLevels    = []string{"debug", "info", "warn", "error"}
)

// resolve fills DB defaults and rejects bad values; owner prefixes the field name.
func (d DB) resolve(owner string) (DB, error) {
	if d.Host == "" {
		d.Host = "127.0.0.1"
	}
	if strings.ContainsAny(d.Host, " /:") && net.ParseIP(d.Host) == nil {
		return d, &OptionError{Field: owner + ".DB.Host", Value: strconv.Quote(d.Host), Reason: "must be a host name or IP address"}
	}
	if d.Port < 1 || d.Port > 65535 {
		return d, &OptionError{Field: owner + ".DB.Port", Value: d.Port, Reason: "must be 1-65535 (the PostgreSQL port)"}
	}
	if d.User == "" {
		return d, &OptionError{Field: owner + ".DB.User", Value: `""`, Reason: "is required (a PostgreSQL role that may create databases)"}
	}
	if d.Database == "" {
		d.Database = "temporal"
	}
	if d.VisibilityDatabase == "" {
		d.VisibilityDatabase = "temporal_visibility"
	}
	for _, f := range []struct{ field, name string }{{"Database", d.Database}, {"VisibilityDatabase", d.VisibilityDatabase}} {
		if !dbNameRE.MatchString(f.name) {
			return d, &OptionError{Field: owner + ".DB." + f.field, Value: strconv.Quote(f.name),
				Reason: "must be a lowercase identifier (letters, digits, '_')"}
		}
	}
	if d.Database == d.VisibilityDatabase {
		return d, &OptionError{Field: owner + ".DB.VisibilityDatabase", Value: strconv.Quote(d.VisibilityDatabase),
			Reason: "must differ from Database"}
	}
	return d, nil
}

// fields lists the ports with their names, in config order.
func (p *Ports) fields() []struct {
	name string
	port *int
} {
	return []struct {
		name string
		port *int
	}{
		{"Frontend", &p.Frontend}, {"FrontendMembership", &p.FrontendMembership}, {"FrontendHTTP", &p.FrontendHTTP},
		{"History", &p.History}, {"HistoryMembership", &p.HistoryMembership},
		{"Matching", &p.Matching}, {"MatchingMembership", &p.MatchingMembership},
		{"Worker", &p.Worker}, {"WorkerMembership", &p.WorkerMembership},
		{"InternalFrontend", &p.InternalFrontend}, {"InternalFrontendMembership", &p.InternalFrontendMembership},
	}
}

// check rejects ports out of range or given twice; zero fields are left for pick.
func (p Ports) check(owner string) error {
	seen := map[int]string{}
	for _, f := range p.fields() {
		port := *f.port
		field := owner + ".Ports." + f.name
		switch {
		case port == 0:
			continue
		case port < 0 || port > 65535:
			return &OptionError{Field: field, Value: port, Reason: "must be 0 (pick a free port) or 1-32767"}
		case port > MaxPort:
			return &OptionError{Field: field, Value: port, Reason: "must be below 32768: Temporal stores " +
				"membership ports as SMALLINT and a higher one kills the server at start"}
		}
		if other, ok := seen[port]; ok {
			return &OptionError{Field: field, Value: port, Reason: "is already Ports." + other}
		}
		seen[port] = f.name
	}
	return nil
}

// auto reports whether every port is left for pick, so a clash can be retried on others.
func (p Ports) auto() bool {
	for _, f := range p.fields() {
		if *f.port != 0 {
			return false
		}
	}
	return true
}

// pick fills the zero fields with free loopback ports below 32768.
func (p Ports) pick() (Ports, error) {
	for _, f := range p.fields() {
		if *f.port != 0 {
			continue
		}
		port, err := freeport.GetBelow(MaxPort + 1)
		if err != nil {
			return p, err
		}
		*f.port = port
	}
	return p, nil
}

// resolve fills defaults and rejects bad values before anything starts.
func (o NodeOptions) resolve() (NodeOptions, Binaries, error) {
	const owner = "NodeOptions"
	if o.Name == "" {
		o.Name = "node"
	}
	if !nodeNameRE.MatchString(o.Name) {
		return o, Binaries{}, &OptionError{Field: owner + ".Name", Value: strconv.Quote(o.Name),
			Reason: "must start with a letter or digit and hold only letters, digits, '.', '_' and '-'"}
	}
	if o.Dir == "" {
		return o, Binaries{}, &OptionError{Field: owner + ".Dir", Value: `""`, Reason: "is required (config and log go there)"}
	}
	var err error
	if o.DB, err = o.DB.resolve(owner); err != nil {
		return o, Binaries{}, err
	}
	if err := o.Ports.check(owner); err != nil {
		return o, Binaries{}, err
	}
	if o.ClusterAddress != "" {
		if _, _, err := net.SplitHostPort(o.ClusterAddress); err != nil {
			return o, Binaries{}, &OptionError{Field: owner + ".ClusterAddress", Value: strconv.Quote(o.ClusterAddress), Reason: "must be host:port"}
		}
	}
	if o.LogLevel, err = resolveLogLevel(owner, o.LogLevel); err != nil {
		return o, Binaries{}, err
	}
	if err := checkDynamicConfig(owner, o.DynamicConfig); err != nil {
		return o, Binaries{}, err
	}
	if o.Authorization, err = o.Authorization.resolve(owner); err != nil {
		return o, Binaries{}, err
	}
	bins, err := FindBinaries(o.BinDir)
	if err != nil {
		return o, Binaries{}, err
	}
	return o, bins, nil
}

// resolve fills defaults and rejects bad values before anything starts.
func (o Options) resolve() (Options, Binaries, error) {
	const owner = "Options"
	if o.Dir == "" {
		return o, Binaries{}, &OptionError{Field: owner + ".Dir", Value: `""`, Reason: "is required (each node's config and log go there)"}
	}
	if o.Nodes == 0 {
		o.Nodes = DefaultNodes
	}
	if o.Nodes < 1 || o.Nodes > maxNodes {
		return o, Binaries{}, &OptionError{Field: owner + ".Nodes", Value: o.Nodes, Reason: fmt.Sprintf("must be 1-%d (0 = %d)", maxNodes, DefaultNodes)}
	}
	if o.FrontendAddress != "" {
		host, port, err := net.SplitHostPort(o.FrontendAddress)
		ip := net.ParseIP(host)
		if host == "localhost" {
			ip = net.IPv4(127, 0, 0, 1)
		}
		if n, perr := strconv.Atoi(port); err != nil || ip == nil || !ip.IsLoopback() || perr != nil || n < 0 || n > 65535 {
			return o, Binaries{}, &OptionError{Field: owner + ".FrontendAddress", Value: strconv.Quote(o.FrontendAddress),
				Reason: "must be a loopback host:port such as 127.0.0.1:7233"}
		}
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if !namespaceRE.MatchString(o.Namespace) {
		return o, Binaries{}, &OptionError{Field: owner + ".Namespace", Value: strconv.Quote(o.Namespace),
			Reason: "must start with a letter or digit and hold only letters, digits, '.', '_' and '-'"}
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
	}
	if o.Retention < time.Hour {
		return o, Binaries{}, &OptionError{Field: owner + ".Retention", Value: o.Retention, Reason: "must be at least 1h (0 = 24h)"}
	}
	for name, typ := range o.SearchAttributes {
		field := owner + ".SearchAttributes[" + strconv.Quote(name) + "]"
		if !identifierRE.MatchString(name) {
			return o, Binaries{}, &OptionError{Field: field, Value: strconv.Quote(name), Reason: "name must be an identifier (letters, digits, '_')"}
		}
		if _, ok := searchAttributeTypes[typ]; !ok {
			return o, Binaries{}, &OptionError{Field: field, Value: strconv.Quote(typ), Reason: "type must be one of " + strings.Join(searchAttributeTypeNames(), ", ")}
		}
	}
	var err error
	if o.LogLevel, err = resolveLogLevel(owner, o.LogLevel); err != nil {
		return o, Binaries{}, err
	}
	if err := checkDynamicConfig(owner, o.DynamicConfig); err != nil {
		return o, Binaries{}, err
	}
	if o.DB, err = o.DB.resolve(owner); err != nil {
		return o, Binaries{}, err
	}
	if o.Authorization, err = o.Authorization.resolve(owner); err != nil {
		return o, Binaries{}, err
	}
	bins, err := FindBinaries(o.BinDir)
	if err != nil {
		return o, Binaries{}, err
	}
	return o, bins, nil
}

func resolveLogLevel(owner, level string) (string, error) {
	if level == "" {
		return "info", nil
	}
	if !slices.Contains(logLevels, level) {
		return level, &OptionError{Field: owner + ".LogLevel", Value: strconv.Quote(level), Reason: "must be one of " + strings.Join(logLevels, ", ")}
	}
	return level, nil
}

func checkDynamicConfig(owner string, dc map[string]any) error {
	for k := range dc {
		if k == "" || strings.ContainsAny(k, " \t\n:") {
			return &OptionError{Field: owner + ".DynamicConfig", Value: strconv.Quote(k), Reason: "keys are dotted names such as history.transferProcessorMaxPollRPS"}
		}
	}
	return nil
}
