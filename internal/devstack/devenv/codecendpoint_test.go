package devenv

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

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
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{43}$`, c.URL, "the URL carries a 256-bit path token")

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

	body := sealedBody(t, keys)
	code, got := decodeAt(t, c.URL, "", "", body)
	require.Equal(t, http.StatusOK, code, got)
	var ps commonpb.Payloads
	require.NoError(t, protojson.Unmarshal([]byte(got), &ps))
	require.Equal(t, `"acme/web"`, string(ps.Payloads[0].Data))

	require.NoError(t, c.Stop())
	require.NoError(t, c.Stop())
	_, err = http.Post(c.URL+"/decode", "application/json", bytes.NewReader(body))
	require.Error(t, err, "stopped: nothing listens")
}

// plainAcme is how a decoded "acme/web" reads in a /decode answer (protojson bytes are base64).
const plainAcme = "ImFjbWUvd2ViIg=="

func sealedBody(t *testing.T, keys *codec.Keyring) []byte {
	t.Helper()
	sealed, err := codec.DataConverter(keys).ToPayload("acme/web")
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{sealed}})
	require.NoError(t, err)
	return body
}

// decodeAt posts body to endpoint+"/decode" over real HTTP, with host as the Host
// header and origin as Origin when they are set.
func decodeAt(t *testing.T, endpoint, host, origin string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint+"/decode", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(got)
}

// Issue 23, case 11, against slipway dev's endpoint over real HTTP: a process or page
// that knows only the port (no token), a DNS-rebinding page (a foreign Host), and a
// page of another origin are refused with 403 and get no plaintext; the UI, with the
// URL it was given and its origin, decodes.
func TestCodecEndpointRefusesCallersWithoutTheTokenHostOrOrigin(t *testing.T) {
	keys := codecTestKeys(t)
	c, err := startCodecEndpoint(keys, "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	ui := UIOrigins(41234)
	c.allow(ui)
	u, err := url.Parse(c.URL)
	require.NoError(t, err)
	base, token := "http://"+u.Host, strings.TrimPrefix(u.Path, "/")
	body := sealedBody(t, keys)

	for name, tc := range map[string]struct{ endpoint, host, origin string }{
		"no token":                  {base, "", ""},
		"no token, the UI's origin": {base, "", ui[0]},
		"a wrong token":             {base + "/" + strings.Repeat("A", len(token)), "", ""},
		"the token a byte short":    {base + "/" + token[:len(token)-1], "", ""},
		"DNS rebinding":             {c.URL, "rebind.attacker.example:" + u.Port(), "http://rebind.attacker.example:" + u.Port()},
		"DNS rebinding, no Origin":  {c.URL, "rebind.attacker.example:" + u.Port(), ""},
		"another origin":            {c.URL, "", "http://evil.example"},
		"another origin, same host": {c.URL, "", "http://127.0.0.1:" + u.Port()},
		"an opaque origin":          {c.URL, "", "null"},
	} {
		code, got := decodeAt(t, tc.endpoint, tc.host, tc.origin, body)
		assert.Equal(t, http.StatusForbidden, code, "%s: %s", name, got)
		assert.NotContains(t, got, plainAcme, name)
	}
	code, got := decodeAt(t, c.URL, "", ui[1], body)
	require.Equal(t, http.StatusOK, code, got)
	assert.Contains(t, got, plainAcme, "the UI decodes")
	code, got = decodeAt(t, c.URL, "localhost:"+u.Port(), ui[0], body)
	require.Equal(t, http.StatusOK, code, got)

	other, err := startCodecEndpoint(keys, "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Stop() })
	require.NotEqual(t, strings.TrimPrefix(c.URL, base), other.URL[strings.LastIndex(other.URL, "/"):], "each endpoint has its own token")
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
	u, err := url.Parse(c.URL)
	require.NoError(t, err)
	require.NotEqual(t, busy.Addr().String(), u.Host)
	require.True(t, strings.HasPrefix(c.URL, "http://127.0.0.1:"), c.URL)

	for _, listen := range []string{"0.0.0.0:0", ":0", "localhost:0", "example.com:80", "127.0.0.1"} {
		_, err := startCodecEndpoint(keys, listen)
		require.Error(t, err, listen)
	}
}

// A caller without the token announces a body and never sends it: it is refused at
// once, from its headers, and the endpoint never waits for the body.
func TestCodecEndpointRefusesBeforeReadingTheBody(t *testing.T) {
	c, err := startCodecEndpoint(codecTestKeys(t), "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	u, err := url.Parse(c.URL)
	require.NoError(t, err)
	for name, head := range map[string]string{
		"no token":     "POST /decode HTTP/1.1\r\nHost: " + u.Host + "\r\n",
		"foreign host": "POST " + u.Path + "/decode HTTP/1.1\r\nHost: rebind.attacker.example:" + u.Port() + "\r\n",
	} {
		conn, err := net.Dial("tcp", u.Host)
		require.NoError(t, err)
		_, err = io.WriteString(conn, head+"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err, "%s: answered without the body", name)
		resp.Body.Close()
		conn.Close()
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, name)
	}
}
