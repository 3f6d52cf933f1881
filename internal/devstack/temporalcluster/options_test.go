package temporalcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRelease lays out a directory FindBinaries accepts; nothing in it runs.
func fakeRelease(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, bin := range []string{serverBin, sqlToolBin} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, bin), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	}
	for _, schema := range []string{"temporal", "visibility"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "schema", "postgresql", "v12", schema, "versioned"), 0o755))
	}
	return dir
}

func goodDB() DB { return DB{Port: 5432, User: "postgres"} }

func TestNodeOptionsAreCheckedFieldByField(t *testing.T) {
	bin := fakeRelease(t)
	good := func() NodeOptions { return NodeOptions{Dir: t.TempDir(), DB: goodDB(), BinDir: bin} }
	cases := []struct {
		name  string
		edit  func(*NodeOptions)
		field string // "" = valid
	}{
		{"defaults", func(*NodeOptions) {}, ""},
		{"all ports given", func(o *NodeOptions) {
			o.Ports = Ports{7233, 6933, 7243, 7234, 6934, 7235, 6935, 7239, 6939, 7236, 6936}
		}, ""},
		{"no dir", func(o *NodeOptions) { o.Dir = "" }, "NodeOptions.Dir"},
		{"bad name", func(o *NodeOptions) { o.Name = "node 1" }, "NodeOptions.Name"},
		{"no db port", func(o *NodeOptions) { o.DB.Port = 0 }, "NodeOptions.DB.Port"},
		{"db port too high", func(o *NodeOptions) { o.DB.Port = 70000 }, "NodeOptions.DB.Port"},
		{"no db user", func(o *NodeOptions) { o.DB.User = "" }, "NodeOptions.DB.User"},
		{"bad database", func(o *NodeOptions) { o.DB.Database = "Temporal-DB" }, "NodeOptions.DB.Database"},
		{"same databases", func(o *NodeOptions) { o.DB.VisibilityDatabase = "temporal" }, "NodeOptions.DB.VisibilityDatabase"},
		{"membership port above SMALLINT", func(o *NodeOptions) { o.Ports.HistoryMembership = 40000 }, "NodeOptions.Ports.HistoryMembership"},
		{"grpc port above SMALLINT", func(o *NodeOptions) { o.Ports.Frontend = 32768 }, "NodeOptions.Ports.Frontend"},
		{"negative port", func(o *NodeOptions) { o.Ports.Worker = -1 }, "NodeOptions.Ports.Worker"},
		{"port given twice", func(o *NodeOptions) { o.Ports.Matching, o.Ports.MatchingMembership = 20001, 20001 }, "NodeOptions.Ports.MatchingMembership"},
		{"bad cluster address", func(o *NodeOptions) { o.ClusterAddress = "nowhere" }, "NodeOptions.ClusterAddress"},
		{"bad log level", func(o *NodeOptions) { o.LogLevel = "loud" }, "NodeOptions.LogLevel"},
		{"bad dynamic config key", func(o *NodeOptions) { o.DynamicConfig = map[string]any{"a b": 1} }, "NodeOptions.DynamicConfig"},
		{"authorization", func(o *NodeOptions) { o.Authorization = &Authorization{JWKSURL: "http://127.0.0.1:9000/jwks"} }, ""},
		{"authorization without keys", func(o *NodeOptions) { o.Authorization = &Authorization{} }, "NodeOptions.Authorization.JWKSURL"},
		{"authorization keys over plain http", func(o *NodeOptions) { o.Authorization = &Authorization{JWKSURL: "http://idp.example.com/jwks"} }, "NodeOptions.Authorization.JWKSURL"},
		{"authorization keys not a URL", func(o *NodeOptions) { o.Authorization = &Authorization{JWKSURL: "/etc/jwks.json"} }, "NodeOptions.Authorization.JWKSURL"},
		{"authorization refresh too fast", func(o *NodeOptions) {
			o.Authorization = &Authorization{JWKSURL: "https://idp.example.com/jwks", RefreshInterval: time.Millisecond}
		}, "NodeOptions.Authorization.RefreshInterval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := good()
			tc.edit(&o)
			got, bins, err := o.resolve()
			if tc.field == "" {
				require.NoError(t, err)
				assert.Equal(t, "node", got.Name)
				assert.Equal(t, "127.0.0.1", got.DB.Host)
				assert.Equal(t, "temporal", got.DB.Database)
				assert.Equal(t, "temporal_visibility", got.DB.VisibilityDatabase)
				assert.Equal(t, "info", got.LogLevel)
				assert.Equal(t, filepath.Join(bin, serverBin), bins.Server)
				return
			}
			var oe *OptionError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tc.field, oe.Field)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
}

func TestOptionsAreCheckedFieldByField(t *testing.T) {
	bin := fakeRelease(t)
	good := func() Options { return Options{Dir: t.TempDir(), DB: goodDB(), BinDir: bin} }
	cases := []struct {
		name  string
		edit  func(*Options)
		field string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no dir", func(o *Options) { o.Dir = "" }, "Options.Dir"},
		{"negative nodes", func(o *Options) { o.Nodes = -1 }, "Options.Nodes"},
		{"too many nodes", func(o *Options) { o.Nodes = 50 }, "Options.Nodes"},
		{"frontend not loopback", func(o *Options) { o.FrontendAddress = "0.0.0.0:7233" }, "Options.FrontendAddress"},
		{"frontend without port", func(o *Options) { o.FrontendAddress = "127.0.0.1" }, "Options.FrontendAddress"},
		{"frontend on localhost", func(o *Options) { o.FrontendAddress = "localhost:7233" }, ""},
		{"bad namespace", func(o *Options) { o.Namespace = "my namespace" }, "Options.Namespace"},
		{"short retention", func(o *Options) { o.Retention = time.Minute }, "Options.Retention"},
		{"bad search attribute name", func(o *Options) { o.SearchAttributes = map[string]string{"a-b": "Keyword"} }, `Options.SearchAttributes["a-b"]`},
		{"bad search attribute type", func(o *Options) { o.SearchAttributes = map[string]string{"Tenant": "String"} }, `Options.SearchAttributes["Tenant"]`},
		{"db user missing", func(o *Options) { o.DB.User = "" }, "Options.DB.User"},
		{"authorization without keys", func(o *Options) { o.Authorization = &Authorization{JWKSURL: "ftp://idp/jwks"} }, "Options.Authorization.JWKSURL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := good()
			tc.edit(&o)
			got, _, err := o.resolve()
			if tc.field == "" {
				require.NoError(t, err)
				assert.Equal(t, DefaultNodes, got.Nodes)
				assert.Equal(t, DefaultNamespace, got.Namespace)
				assert.Equal(t, DefaultRetention, got.Retention)
				return
			}
			var oe *OptionError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tc.field, oe.Field)
		})
	}
}

func TestBadOptionsStartNothing(t *testing.T) {
	// Rejected before any lookup or process: no release is needed to see the field named.
	dir := t.TempDir()
	_, err := StartNode(context.Background(), NodeOptions{Dir: dir, DB: goodDB(), Ports: Ports{HistoryMembership: 50000}})
	require.ErrorContains(t, err, "NodeOptions.Ports.HistoryMembership = 50000: must be below 32768")
	_, err = Start(context.Background(), Options{Dir: dir, DB: goodDB(), Nodes: -2})
	require.ErrorContains(t, err, "Options.Nodes = -2")
	err = Setup(context.Background(), Options{DB: DB{User: "postgres"}})
	require.ErrorContains(t, err, "Options.DB.Port = 0")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was written")
}

func TestMissingBinaryNamesTheToolAndHowToBuildIt(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(EnvServerDir, empty)
	_, err := FindBinaries("")
	var missing *MissingBinaryError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, serverBin, missing.Tool)
	assert.Equal(t, filepath.Join(empty, serverBin), missing.Path)
	assert.Contains(t, err.Error(), "scripts/tools.sh temporal-server")
	assert.Contains(t, err.Error(), "$"+EnvServerDir)

	require.NoError(t, os.WriteFile(filepath.Join(empty, serverBin), []byte("#!/bin/sh\n"), 0o755))
	_, err = FindBinaries("")
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, sqlToolBin, missing.Tool)

	// Start reports it before touching the database.
	_, err = Start(context.Background(), Options{Dir: t.TempDir(), DB: goodDB()})
	require.True(t, errors.As(err, &missing), "%v", err)
}

func TestPickedPortsAreFreeDistinctAndBelowSmallint(t *testing.T) {
	p, err := Ports{Frontend: 20000}.pick()
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, f := range p.fields() {
		assert.NotZero(t, *f.port, f.name)
		assert.LessOrEqual(t, *f.port, MaxPort, f.name)
		assert.False(t, seen[*f.port], "%s repeats %d", f.name, *f.port)
		seen[*f.port] = true
	}
	assert.Equal(t, 20000, p.Frontend, "given ports are kept")
	require.NoError(t, p.check("NodeOptions"))
	assert.False(t, p.auto())
	assert.True(t, Ports{}.auto())
}
