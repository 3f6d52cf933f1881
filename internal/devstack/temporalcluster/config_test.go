package temporalcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func renderedNode(t *testing.T, edit func(*NodeOptions)) map[string]any {
	t.Helper()
	o := NodeOptions{Name: "node-1", Dir: "/srv/n1", DB: DB{Host: "127.0.0.1", Port: 5433, User: "temporal",
		Password: `p@ss: "word"`, Database: "temporal", VisibilityDatabase: "temporal_visibility"},
		Ports:    Ports{21000, 21001, 21002, 21003, 21004, 21005, 21006, 21007, 21008, 21009, 21010},
		LogLevel: "info"}
	if edit != nil {
		edit(&o)
	}
	data, err := renderConfig(o, "/srv/n1/dynamicconfig.yaml")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(data, &doc))
	return doc
}

// at walks a decoded YAML document along a dotted path.
func at(t *testing.T, doc map[string]any, path string) any {
	t.Helper()
	var cur any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		require.True(t, ok, "%s: %q is not a map", path, k)
		cur, ok = m[k]
		require.True(t, ok, "%s: no %q", path, k)
	}
	return cur
}

func TestRenderConfig(t *testing.T) {
	doc := renderedNode(t, nil)
	cases := []struct {
		path string
		want any
	}{
		{"persistence.numHistoryShards", 4},
		{"persistence.defaultStore", "default"},
		{"persistence.visibilityStore", "visibility"},
		{"persistence.datastores.default.sql.pluginName", "postgres12"},
		{"persistence.datastores.default.sql.databaseName", "temporal"},
		{"persistence.datastores.default.sql.connectAddr", "127.0.0.1:5433"},
		{"persistence.datastores.default.sql.user", "temporal"},
		{"persistence.datastores.default.sql.password", `p@ss: "word"`},
		{"persistence.datastores.visibility.sql.pluginName", "postgres12"},
		{"persistence.datastores.visibility.sql.databaseName", "temporal_visibility"},
		{"global.membership.broadcastAddress", "127.0.0.1"},
		{"services.frontend.rpc.grpcPort", 21000},
		{"services.frontend.rpc.membershipPort", 21001},
		{"services.frontend.rpc.httpPort", 21002},
		{"services.frontend.rpc.bindOnLocalHost", true},
		{"services.history.rpc.grpcPort", 21003},
		{"services.history.rpc.membershipPort", 21004},
		{"services.matching.rpc.grpcPort", 21005},
		{"services.matching.rpc.membershipPort", 21006},
		{"services.worker.rpc.grpcPort", 21007},
		{"services.worker.rpc.membershipPort", 21008},
		{"clusterMetadata.currentClusterName", "active"},
		{"clusterMetadata.masterClusterName", "active"},
		{"clusterMetadata.enableGlobalNamespace", false},
		{"clusterMetadata.clusterInformation.active.enabled", true},
		{"clusterMetadata.clusterInformation.active.rpcAddress", "127.0.0.1:21000"},
		{"dynamicConfigClient.filepath", "/srv/n1/dynamicconfig.yaml"},
		{"log.stdout", true},
		{"log.level", "info"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.want, at(t, doc, tc.path))
		})
	}
	services := at(t, doc, "services").(map[string]any)
	assert.Len(t, services, 4, "all four services in one process")
	_, hasHTTP := at(t, doc, "services.history.rpc").(map[string]any)["httpPort"]
	assert.False(t, hasHTTP, "only the frontend serves HTTP")
	_, hasAuthz := at(t, doc, "global").(map[string]any)["authorization"]
	assert.False(t, hasAuthz, "no authorization unless asked for")
}

func TestRenderConfigWithAuthorization(t *testing.T) {
	doc := renderedNode(t, func(o *NodeOptions) {
		o.Authorization = &Authorization{JWKSURL: "http://127.0.0.1:9000/jwks", PermissionsClaimName: "permissions",
			Audience: "temporal", RefreshInterval: time.Minute}
	})
	cases := []struct {
		path string
		want any
	}{
		{"global.authorization.jwtKeyProvider.keySourceURIs", []any{"http://127.0.0.1:9000/jwks"}},
		{"global.authorization.jwtKeyProvider.refreshInterval", "1m0s"},
		{"global.authorization.permissionsClaimName", "permissions"},
		{"global.authorization.authorizer", "default"},
		{"global.authorization.claimMapper", "default"},
		{"global.authorization.audience", "temporal"},
		{"services.internal-frontend.rpc.grpcPort", 21009},
		{"services.internal-frontend.rpc.membershipPort", 21010},
		{"services.internal-frontend.rpc.bindOnLocalHost", true},
		// The public frontend stays the cluster's address; the internal one is for the server itself.
		{"clusterMetadata.clusterInformation.active.rpcAddress", "127.0.0.1:21000"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.want, at(t, doc, tc.path))
		})
	}
	_, hasPublicClient := doc["publicClient"]
	assert.False(t, hasPublicClient, "the server refuses publicClient beside an internal-frontend")
}

// The server itself loads the rendered config with authorization on: every key is one it knows.
func TestAuthorizationConfigLoadsInTheServer(t *testing.T) {
	bins, err := FindBinaries("")
	if err != nil {
		t.Skip(err.Error())
	}
	dir := t.TempDir()
	o := NodeOptions{Name: "node-1", Dir: dir, DB: DB{Host: "127.0.0.1", Port: 5433, User: "temporal",
		Database: "temporal", VisibilityDatabase: "temporal_visibility"},
		Ports:         Ports{21000, 21001, 21002, 21003, 21004, 21005, 21006, 21007, 21008, 21009, 21010},
		LogLevel:      "info",
		Authorization: &Authorization{JWKSURL: "http://127.0.0.1:9000/jwks", PermissionsClaimName: "permissions", RefreshInterval: time.Minute},
	}
	data, err := renderConfig(o, filepath.Join(dir, dynamicFileName))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, configDirName), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, configDirName, configEnv+".yaml"), data, 0o600))
	// render-config reads --config relative to its working directory, unlike start.
	cmd := exec.Command(bins.Server, "--config", configDirName, "--env", configEnv, "render-config")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var loaded map[string]any
	require.NoError(t, yaml.Unmarshal(out, &loaded), "%s", out)
	authz := at(t, loaded, "global.authorization").(map[string]any)
	assert.Equal(t, "default", authz["authorizer"])
	assert.Equal(t, "default", authz["claimMapper"], "%s", out)
	assert.Equal(t, "permissions", authz["permissionsClaimName"])
	assert.Contains(t, fmt.Sprint(authz["jwtKeyProvider"]), "http://127.0.0.1:9000/jwks")
	assert.Contains(t, fmt.Sprint(authz["jwtKeyProvider"]), "1m0s")
	_, ok := at(t, loaded, "services").(map[string]any)["internal-frontend"]
	assert.True(t, ok, "%s", out)
}

func TestRenderConfigRecordsTheSharedClusterAddress(t *testing.T) {
	doc := renderedNode(t, func(o *NodeOptions) { o.ClusterAddress = "127.0.0.1:7233" })
	assert.Equal(t, "127.0.0.1:7233", at(t, doc, "clusterMetadata.clusterInformation.active.rpcAddress"))
}

func TestRenderDynamicConfig(t *testing.T) {
	cases := []struct {
		name  string
		extra map[string]any
		want  map[string]any
	}{
		{"fast defaults", nil, map[string]any{
			"history.transferProcessorMaxPollRPS":            1000,
			"matching.numTaskqueueReadPartitions":            1,
			"matching.numTaskqueueWritePartitions":           1,
			"system.forceSearchAttributesCacheRefreshOnRead": true,
			"matching.enableFairness":                        true,
		}},
		{"extra keys override", map[string]any{"history.transferProcessorMaxPollRPS": 20, "limit.maxIDLength": 255},
			map[string]any{"history.transferProcessorMaxPollRPS": 20, "limit.maxIDLength": 255, "matching.numTaskqueueReadPartitions": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := renderDynamicConfig(tc.extra)
			require.NoError(t, err)
			var doc map[string][]map[string]any
			require.NoError(t, yaml.Unmarshal(data, &doc))
			for k, v := range tc.want {
				require.Len(t, doc[k], 1, k)
				assert.Equal(t, v, doc[k][0]["value"], k)
			}
		})
	}
	_, err := renderDynamicConfig(nil)
	require.NoError(t, err)
	assert.NotContains(t, fastDynamicConfig, "limit.maxIDLength", "overrides never leak into the defaults")
}

// The server itself checks every key and value type of the rendered dynamic config.
func TestDynamicConfigIsValidForTheServer(t *testing.T) {
	bins, err := FindBinaries("")
	if err != nil {
		t.Skip(err.Error())
	}
	data, err := renderDynamicConfig(nil)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), dynamicFileName)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	out, err := exec.Command(bins.Server, "validate-dynamic-config", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "warning", "unknown key or wrong type:\n%s", out)
	assert.NotContains(t, string(out), "error", "%s", out)
}
