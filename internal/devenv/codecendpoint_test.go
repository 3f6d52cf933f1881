package devenv

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/codec"
)

func codecTestKeys(t *testing.T) *codec.Keyring {
	t.Helper()
	line, err := codec.Generate("k1")
	require.NoError(t, err)
	keys, err := codec.Parse("test", line)
	require.NoError(t, err)
	return keys
}

func preflight(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url+"/decode", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

// The endpoint decodes with the env's key, answers CORS only for the origins it was
// told (none until then), and stops when asked, more than once.
func TestCodecEndpointDecodesForTheAllowedUIOnly(t *testing.T) {
	keys := codecTestKeys(t)
	c, err := startCodecEndpoint(keys, "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	require.True(t, strings.HasPrefix(c.URL, "http://127.0.0.1:"), c.URL)

	ui := UIOrigins(41234)
	assert.Equal(t, []string{"http://localhost:41234", "http://127.0.0.1:41234"}, ui)
	assert.Equal(t, http.StatusForbidden, preflight(t, c.URL, ui[1]).StatusCode, "no origin is allowed before allow")
	c.allow(ui)
	assert.Equal(t, ui, c.Origins())
	for _, origin := range ui {
		resp := preflight(t, c.URL, origin)
		assert.Equal(t, http.StatusNoContent, resp.StatusCode, origin)
		assert.Equal(t, origin, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	assert.Equal(t, http.StatusForbidden, preflight(t, c.URL, "http://127.0.0.1:8233").StatusCode, "another UI")

	sealed, err := codec.DataConverter(keys).ToPayload("acme/web")
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{sealed}})
	require.NoError(t, err)
	resp, err := http.Post(c.URL+"/decode", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(got))
	var ps commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(got, &ps))
	require.Equal(t, `"acme/web"`, string(ps.Payloads[0].Data))

	require.NoError(t, c.Stop())
	require.NoError(t, c.Stop())
	_, err = http.Post(c.URL+"/decode", "application/json", bytes.NewReader(body))
	require.Error(t, err, "stopped: nothing listens")
}

// A taken port falls back to a free one on the same host; only loopback is allowed.
func TestCodecEndpointListensOnLoopbackOnly(t *testing.T) {
	keys := codecTestKeys(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	c, err := startCodecEndpoint(keys, busy.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	require.NotEqual(t, "http://"+busy.Addr().String(), c.URL)
	require.True(t, strings.HasPrefix(c.URL, "http://127.0.0.1:"), c.URL)

	for _, listen := range []string{"0.0.0.0:0", ":0", "localhost:0", "example.com:80", "127.0.0.1"} {
		_, err := startCodecEndpoint(keys, listen)
		require.Error(t, err, listen)
	}
}
