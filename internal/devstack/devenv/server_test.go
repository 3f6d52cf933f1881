package devenv

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/freeport"
)

var slipwayAttributes = map[string]string{"InstanceState": "Keyword", "Tenant": "Keyword", "InstanceName": "Keyword"}

// requireTemporal returns the real temporal CLI; tests here need the real server.
func requireTemporal(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real temporal dev server")
	}
	bin, err := FindTemporal()
	require.NoError(t, err)
	return bin
}

func startServer(t *testing.T, opts ServerOptions) *Server {
	t.Helper()
	s, err := StartServer(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

func requirePortFree(t *testing.T, port int) {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.NoError(t, err, "port %d still taken after Stop", port)
	require.NoError(t, l.Close())
}

func TestTwoServersSideBySide(t *testing.T) {
	bin := requireTemporal(t)
	ctx := context.Background()
	logFile := filepath.Join(t.TempDir(), "logs", "a.log")
	require.NoError(t, os.MkdirAll(filepath.Dir(logFile), 0o755))

	a := startServer(t, ServerOptions{Headless: true, SearchAttributes: slipwayAttributes, LogFile: logFile})
	require.True(t, Reachable(ctx, a.Address, 5*time.Second))
	assert.Empty(t, a.UIURL)
	assert.Zero(t, a.UIPort)
	assert.Equal(t, "127.0.0.1:"+strconv.Itoa(a.GRPCPort), a.Address)

	// The second one has a UI, so its UI port must be pinned away from a's ports too.
	dbFile := filepath.Join(t.TempDir(), "nested", "temporal.db")
	b := startServer(t, ServerOptions{Binary: bin, Namespace: "slipway", DBFile: dbFile})
	require.True(t, Reachable(ctx, b.Address, 5*time.Second))
	for _, pa := range a.Ports() {
		assert.NotContains(t, b.Ports(), pa, "servers must not share ports")
	}
	assert.Len(t, b.Ports(), 4)

	resp, err := http.Get(b.UIURL)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the UI answers at UIURL")

	// The search attributes are registered at start, as workflows need them.
	out, err := exec.Command(bin, "operator", "search-attribute", "list",
		"--address", a.Address, "--namespace", "default", "--output", "json").Output()
	require.NoError(t, err)
	var listed struct {
		CustomAttributes map[string]string `json:"customAttributes"`
	}
	require.NoError(t, json.Unmarshal(out, &listed), string(out))
	for name := range slipwayAttributes {
		assert.Contains(t, listed.CustomAttributes, name)
	}

	// The namespace asked for exists on b.
	require.NoError(t, exec.Command(bin, "operator", "namespace", "describe",
		"--address", b.Address, "--namespace", "slipway").Run())

	logged, err := os.ReadFile(logFile)
	require.NoError(t, err)
	assert.Contains(t, string(logged), "history.transferProcessorMaxPollRPS=1000", "the log records the command line")

	require.NoError(t, a.Stop())
	require.NoError(t, b.Stop())
	require.NoError(t, a.Stop(), "Stop is idempotent")
	fi, err := os.Stat(dbFile)
	require.NoError(t, err, "DBFile holds b's state, its directory created on demand")
	assert.Positive(t, fi.Size())
	for _, s := range []*Server{a, b} {
		select {
		case <-s.Done():
		default:
			t.Fatalf("server %s still running after Stop", s.Address)
		}
		for _, p := range s.Ports() {
			requirePortFree(t, p)
		}
		assert.False(t, Reachable(ctx, s.Address, time.Second))
	}
}

func TestStartServerReportsEarlyExitWithLogTail(t *testing.T) {
	bin := requireTemporal(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port

	_, err = StartServer(context.Background(), ServerOptions{Binary: bin, Headless: true, Port: port})
	var exited *ExitedError
	require.ErrorAs(t, err, &exited)
	assert.Contains(t, exited.LogTail, "can't set frontend port "+strconv.Itoa(port), "the tail shows the server's own complaint")
	t.Log(err)
	assert.Contains(t, err.Error(), "exited before it was ready")
}

func TestPortClashIsRecognised(t *testing.T) {
	assert.True(t, portClash(`msg="can't set frontend port 7233: listen tcp 127.0.0.1:7233: bind: address already in use"`))
	assert.True(t, portClash("can't use default UI port 8233 (7233 + 1000)"))
	assert.False(t, portClash("failed starting server: unable to open database file"))
}

func TestStartServerRejectsBadOptionsBeforeStarting(t *testing.T) {
	_, err := StartServer(context.Background(), ServerOptions{IP: "10.1.2.3"})
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "IP", oe.Field)
}

func TestReachableFalseWhenNothingListens(t *testing.T) {
	p, err := freeport.Get()
	require.NoError(t, err)
	assert.False(t, Reachable(context.Background(), "127.0.0.1:"+strconv.Itoa(p), time.Second))
}
