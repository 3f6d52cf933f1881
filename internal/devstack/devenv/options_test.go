package devenv

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeExecutable writes an executable file so option checks have a real binary path.
func fakeExecutable(t *testing.T, dir, name string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	return p
}

func TestResolveRejectsBadOptionsNamingTheField(t *testing.T) {
	bin := fakeExecutable(t, t.TempDir(), "temporal")
	cases := []struct {
		name  string
		opts  ServerOptions
		field string
	}{
		{"public IP", ServerOptions{IP: "0.0.0.0"}, "IP"},
		{"host name", ServerOptions{IP: "example.com"}, "IP"},
		{"negative port", ServerOptions{Port: -1}, "Port"},
		{"port too big", ServerOptions{Port: 70000}, "Port"},
		{"UI port too big", ServerOptions{UIPort: 65536}, "UIPort"},
		{"UI port equals gRPC port", ServerOptions{Port: 7233, UIPort: 7233}, "UIPort"},
		{"namespace with space", ServerOptions{Namespace: "my ns"}, "Namespace"},
		{"search attribute name", ServerOptions{SearchAttributes: map[string]string{"bad-name": "Keyword"}}, `SearchAttributes["bad-name"]`},
		{"search attribute type", ServerOptions{SearchAttributes: map[string]string{"Tenant": "String"}}, `SearchAttributes["Tenant"]`},
		{"binary missing", ServerOptions{Binary: filepath.Join(t.TempDir(), "nope")}, "Binary"},
		{"codec endpoint without scheme", ServerOptions{CodecEndpoint: "127.0.0.1:8081"}, "CodecEndpoint"},
		{"codec endpoint not http", ServerOptions{CodecEndpoint: "ftp://127.0.0.1:8081"}, "CodecEndpoint"},
		{"codec endpoint without host", ServerOptions{CodecEndpoint: "http:///decode"}, "CodecEndpoint"},
		{"codec endpoint with query", ServerOptions{CodecEndpoint: "http://127.0.0.1:8081?x=1"}, "CodecEndpoint"},
		{"codec endpoint with user", ServerOptions{CodecEndpoint: "https://u:p@codec.example"}, "CodecEndpoint"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Binary == "" {
				tc.opts.Binary = bin
			}
			_, err := tc.opts.resolve()
			var oe *OptionError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tc.field, oe.Field)
			assert.Contains(t, err.Error(), "ServerOptions."+tc.field)
		})
	}
}

func TestResolveFillsDefaults(t *testing.T) {
	bin := fakeExecutable(t, t.TempDir(), "temporal")
	t.Setenv("SLIPWAY_TEMPORAL", bin)
	o, err := ServerOptions{}.resolve()
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", o.IP)
	assert.Equal(t, "default", o.Namespace)
	assert.Equal(t, bin, o.Binary)

	o, err = ServerOptions{IP: "localhost"}.resolve()
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", o.IP, "start-dev needs an IP address")
}

func TestArgsPinEveryPortAndUseFastSettings(t *testing.T) {
	o := ServerOptions{
		IP: "127.0.0.1", Namespace: "slipway", DBFile: "/tmp/x.db",
		SearchAttributes: map[string]string{"Tenant": "Keyword", "InstanceState": "Keyword"},
	}
	line := strings.Join(o.args(serverPorts{GRPC: 1001, UI: 1002, HTTP: 1003, Metrics: 1004}), " ")
	for _, want := range []string{
		"server start-dev", "--ip 127.0.0.1", "--port 1001", "--ui-port 1002", "--ui-ip 127.0.0.1",
		"--http-port 1003", "--metrics-port 1004", "--db-filename /tmp/x.db", "--namespace slipway",
		"--search-attribute InstanceState=Keyword --search-attribute Tenant=Keyword",
		"--dynamic-config-value history.transferProcessorMaxPollRPS=1000",
		"--dynamic-config-value matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value matching.numTaskqueueWritePartitions=1",
		"--dynamic-config-value matching.enableFairness=true",
	} {
		assert.Contains(t, line, want)
	}
	assert.NotContains(t, line, "--headless")

	o = ServerOptions{IP: "127.0.0.1", Namespace: "default", Headless: true}
	line = strings.Join(o.args(serverPorts{GRPC: 1001, HTTP: 1003, Metrics: 1004}), " ")
	assert.Contains(t, line, "--headless")
	assert.NotContains(t, line, "--ui-port")
	assert.NotContains(t, line, "--namespace", "default is always created; passing it twice is noise")
	assert.NotContains(t, line, "--db-filename")
}

// A UI started with a codec endpoint decodes through it; a headless server has no UI to tell.
func TestArgsPassTheCodecEndpointToTheUI(t *testing.T) {
	bin := fakeExecutable(t, t.TempDir(), "temporal")
	for _, endpoint := range []string{"http://127.0.0.1:8081", "https://codec.example.com/api/v1"} {
		o, err := ServerOptions{Binary: bin, CodecEndpoint: endpoint}.resolve()
		require.NoError(t, err, endpoint)
		a := o.args(serverPorts{GRPC: 1001, UI: 1002, HTTP: 1003, Metrics: 1004})
		i := slices.Index(a, "--ui-codec-endpoint")
		require.GreaterOrEqual(t, i, 0, "%v", a)
		assert.Equal(t, endpoint, a[i+1])
	}

	o := ServerOptions{IP: "127.0.0.1", Namespace: "default"}
	assert.NotContains(t, o.args(serverPorts{GRPC: 1001, UI: 1002, HTTP: 1003, Metrics: 1004}), "--ui-codec-endpoint")
	o = ServerOptions{IP: "127.0.0.1", Namespace: "default", Headless: true, CodecEndpoint: "http://127.0.0.1:8081"}
	assert.NotContains(t, o.args(serverPorts{GRPC: 1001, HTTP: 1003, Metrics: 1004}), "--ui-codec-endpoint")
}

func TestPickPortsFillsOnlyUnsetPorts(t *testing.T) {
	p, err := ServerOptions{Port: 40001}.pickPorts()
	require.NoError(t, err)
	assert.Equal(t, 40001, p.GRPC)
	assert.NotZero(t, p.UI)
	assert.NotZero(t, p.HTTP)
	assert.NotZero(t, p.Metrics)
	assert.Len(t, map[int]bool{p.GRPC: true, p.UI: true, p.HTTP: true, p.Metrics: true}, 4)

	p, err = ServerOptions{Headless: true, UIPort: 40002}.pickPorts()
	require.NoError(t, err)
	assert.Zero(t, p.UI, "headless servers open no UI port")
	assert.NotZero(t, p.GRPC)
}
