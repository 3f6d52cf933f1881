package temporalcluster

import (
	"maps"
	"net"
	"strconv"

	"gopkg.in/yaml.v3"
)

// The server is started as `temporal-server --root DIR --config config --env node start`:
// it reads DIR/config/node.yaml. v1.29.1 has no flag naming a config file.
const (
	configDirName   = "config"
	configEnv       = "node"
	dynamicFileName = "dynamicconfig.yaml"
	logFileName     = "temporal.log"
)

// fastDynamicConfig is every node's dynamic config unless NodeOptions.DynamicConfig says
// otherwise. Update-with-start and updates are on by default in v1.29.
var fastDynamicConfig = map[string]any{
	// Each activity step waits for transfer-queue read tokens; 20/s per shard costs ~100 ms.
	"history.transferProcessorMaxPollRPS": 1000,
	// One partition: non-root partitions stall forwarded polls for up to 2 s.
	"matching.numTaskqueueReadPartitions":  1,
	"matching.numTaskqueueWritePartitions": 1,
	// A search attribute is usable on every node right after it is registered.
	"system.forceSearchAttributesCacheRefreshOnRead": true,
	// That refresh reads the database on every visibility call: raise the limits like the dev server does.
	"frontend.persistenceMaxQPS": 10000,
	"history.persistenceMaxQPS":  45000,
	// `slipway list` and the UI page through visibility; 10/s per namespace throttles them.
	"frontend.namespaceRPS.visibility": 100,
	// A namespace created through one node is known to the others within a second.
	"system.namespaceCacheRefreshInterval": "1s",
	// Task queue priority and fairness (contract.TaskPriority, docs/priority.md).
	"matching.useNewMatcher":  true,
	"matching.enableFairness": true,
}

// serverConfig is the subset of the server's config (common/config.Config) a node sets,
// modelled on config/development-postgres12.yaml of go.temporal.io/server v1.29.1.
type serverConfig struct {
	Log                 logConfig                `yaml:"log"`
	Persistence         persistenceConfig        `yaml:"persistence"`
	Global              globalConfig             `yaml:"global"`
	Services            map[string]serviceConfig `yaml:"services"`
	ClusterMetadata     clusterMetadata          `yaml:"clusterMetadata"`
	DCRedirectionPolicy map[string]string        `yaml:"dcRedirectionPolicy"`
	DynamicConfigClient dynamicConfigClient      `yaml:"dynamicConfigClient"`
}

type logConfig struct {
	Stdout bool   `yaml:"stdout"`
	Level  string `yaml:"level"`
}

type persistenceConfig struct {
	DefaultStore     string               `yaml:"defaultStore"`
	VisibilityStore  string               `yaml:"visibilityStore"`
	NumHistoryShards int                  `yaml:"numHistoryShards"`
	DataStores       map[string]dataStore `yaml:"datastores"`
}

type dataStore struct {
	SQL sqlStore `yaml:"sql"`
}

type sqlStore struct {
	PluginName      string `yaml:"pluginName"`
	DatabaseName    string `yaml:"databaseName"`
	ConnectAddr     string `yaml:"connectAddr"`
	ConnectProtocol string `yaml:"connectProtocol"`
	User            string `yaml:"user"`
	Password        string `yaml:"password"`
	MaxConns        int    `yaml:"maxConns"`
	MaxIdleConns    int    `yaml:"maxIdleConns"`
	MaxConnLifetime string `yaml:"maxConnLifetime"`
}

type globalConfig struct {
	Membership    membershipConfig     `yaml:"membership"`
	Authorization *authorizationConfig `yaml:"authorization,omitempty"`
}

// authorizationConfig is common/config.Authorization of v1.29.1.
type authorizationConfig struct {
	JWTKeyProvider       jwtKeyProvider `yaml:"jwtKeyProvider"`
	PermissionsClaimName string         `yaml:"permissionsClaimName"`
	Authorizer           string         `yaml:"authorizer"`
	ClaimMapper          string         `yaml:"claimMapper"`
	Audience             string         `yaml:"audience,omitempty"`
}

type jwtKeyProvider struct {
	KeySourceURIs   []string `yaml:"keySourceURIs"`
	RefreshInterval string   `yaml:"refreshInterval"`
}

type membershipConfig struct {
	MaxJoinDuration  string `yaml:"maxJoinDuration"`
	BroadcastAddress string `yaml:"broadcastAddress"`
}

type serviceConfig struct {
	RPC rpcConfig `yaml:"rpc"`
}

type rpcConfig struct {
	GRPCPort        int  `yaml:"grpcPort"`
	MembershipPort  int  `yaml:"membershipPort"`
	BindOnLocalHost bool `yaml:"bindOnLocalHost"`
	HTTPPort        int  `yaml:"httpPort,omitempty"`
}

type clusterMetadata struct {
	EnableGlobalNamespace    bool                   `yaml:"enableGlobalNamespace"`
	FailoverVersionIncrement int                    `yaml:"failoverVersionIncrement"`
	MasterClusterName        string                 `yaml:"masterClusterName"`
	CurrentClusterName       string                 `yaml:"currentClusterName"`
	ClusterInformation       map[string]clusterInfo `yaml:"clusterInformation"`
}

type clusterInfo struct {
	Enabled                bool   `yaml:"enabled"`
	InitialFailoverVersion int    `yaml:"initialFailoverVersion"`
	RPCName                string `yaml:"rpcName"`
	RPCAddress             string `yaml:"rpcAddress"`
}

type dynamicConfigClient struct {
	Filepath     string `yaml:"filepath"`
	PollInterval string `yaml:"pollInterval"`
}

// loopback is the only address nodes bind and announce.
const loopback = "127.0.0.1"

// renderConfig is the node's server config; dynamicPath must be absolute because the
// server resolves it against its working directory.
func renderConfig(o NodeOptions, dynamicPath string) ([]byte, error) {
	store := func(db string, conns int) dataStore {
		return dataStore{SQL: sqlStore{
			PluginName: "postgres12", DatabaseName: db,
			ConnectAddr: net.JoinHostPort(o.DB.Host, strconv.Itoa(o.DB.Port)), ConnectProtocol: "tcp",
			User: o.DB.User, Password: o.DB.Password,
			MaxConns: conns, MaxIdleConns: conns, MaxConnLifetime: "1h",
		}}
	}
	svc := func(grpc, membership, http int) serviceConfig {
		return serviceConfig{RPC: rpcConfig{GRPCPort: grpc, MembershipPort: membership, BindOnLocalHost: true, HTTPPort: http}}
	}
	clusterAddr := o.ClusterAddress
	if clusterAddr == "" {
		clusterAddr = net.JoinHostPort(loopback, strconv.Itoa(o.Ports.Frontend))
	}
	cfg := serverConfig{
		Log: logConfig{Stdout: true, Level: o.LogLevel},
		Persistence: persistenceConfig{
			DefaultStore: "default", VisibilityStore: "visibility", NumHistoryShards: HistoryShards,
			DataStores: map[string]dataStore{
				"default":    store(o.DB.Database, 20),
				"visibility": store(o.DB.VisibilityDatabase, 10),
			},
		},
		Global: globalConfig{Membership: membershipConfig{MaxJoinDuration: "30s", BroadcastAddress: loopback}},
		Services: map[string]serviceConfig{
			"frontend": svc(o.Ports.Frontend, o.Ports.FrontendMembership, o.Ports.FrontendHTTP),
			"history":  svc(o.Ports.History, o.Ports.HistoryMembership, 0),
			"matching": svc(o.Ports.Matching, o.Ports.MatchingMembership, 0),
			"worker":   svc(o.Ports.Worker, o.Ports.WorkerMembership, 0),
		},
		ClusterMetadata: clusterMetadata{
			FailoverVersionIncrement: 10, MasterClusterName: clusterName, CurrentClusterName: clusterName,
			ClusterInformation: map[string]clusterInfo{
				clusterName: {Enabled: true, InitialFailoverVersion: 1, RPCName: "frontend", RPCAddress: clusterAddr},
			},
		},
		DCRedirectionPolicy: map[string]string{"policy": "noop"},
		DynamicConfigClient: dynamicConfigClient{Filepath: dynamicPath, PollInterval: "10s"},
	}
	if a := o.Authorization; a != nil {
		cfg.Global.Authorization = &authorizationConfig{
			JWTKeyProvider:       jwtKeyProvider{KeySourceURIs: []string{a.JWKSURL}, RefreshInterval: a.RefreshInterval.String()},
			PermissionsClaimName: a.PermissionsClaimName, Authorizer: "default", ClaimMapper: "default", Audience: a.Audience,
		}
		// With an internal-frontend in the config, the server's worker service (schedules, batch
		// operations, namespace deletion) calls it instead of the public frontend. It maps every
		// caller to system admin, so only the server's own services may reach it: loopback here,
		// internode mTLS in production.
		cfg.Services["internal-frontend"] = svc(o.Ports.InternalFrontend, o.Ports.InternalFrontendMembership, 0)
	}
	return yaml.Marshal(cfg)
}

// dynamicValue is one constrained value of a dynamic config key; none here is constrained.
type dynamicValue struct {
	Value any `yaml:"value"`
}

// renderDynamicConfig is the fast defaults overlaid with extra, in the file client's format.
func renderDynamicConfig(extra map[string]any) ([]byte, error) {
	all := maps.Clone(fastDynamicConfig)
	maps.Copy(all, extra)
	doc := make(map[string][]dynamicValue, len(all))
	for k, v := range all {
		doc[k] = []dynamicValue{{Value: v}}
	}
	return yaml.Marshal(doc)
}
