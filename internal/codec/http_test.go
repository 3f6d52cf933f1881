package codec

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

const uiOrigin = "http://localhost:8233"

func serve(t *testing.T, token string) (*httptest.Server, *Keyring) {
	t.Helper()
	srv, k, _ := serveAccess(t, Access{Origins: []string{uiOrigin, "http://127.0.0.1:8233"}, Token: token})
	return srv, k
}

// countingCodec counts the batches it decoded, so a test sees that a refused request decoded nothing.
type countingCodec struct {
	*Codec
	decoded atomic.Int64
}

func (c *countingCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	c.decoded.Add(1)
	return c.Codec.Decode(ps)
}

// serveAccess serves the codec on a real loopback listener; a's Hosts default to the listener's own.
func serveAccess(t *testing.T, a Access) (*httptest.Server, *Keyring, *countingCodec) {
	t.Helper()
	k := keyring(t, newKey(t, "k1"))
	c := &countingCodec{Codec: New(k)}
	srv := httptest.NewUnstartedServer(nil)
	if a.Hosts == nil {
		a.Hosts = ListenerHosts(srv.Listener.Addr())
	}
	srv.Config.Handler = Handler(c, a)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, k, c
}

func post(t *testing.T, url string, body []byte, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func payloadsJSON(t *testing.T, ps ...*commonpb.Payload) []byte {
	t.Helper()
	b, err := protojson.Marshal(&commonpb.Payloads{Payloads: ps})
	require.NoError(t, err)
	return b
}

func readPayloads(t *testing.T, resp *http.Response) []*commonpb.Payload {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var raw json.RawMessage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&raw))
	var ps commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(raw, &ps))
	return ps.Payloads
}

func TestHandlerEncodeDecode(t *testing.T) {
	srv, k := serve(t, "")
	in := payload(t, "acme/web")
	enc := readPayloads(t, post(t, srv.URL+"/encode", payloadsJSON(t, in), map[string]string{"X-Namespace": "default"}))
	require.Len(t, enc, 1)
	require.Equal(t, EncodingEncrypted, string(enc[0].Metadata[MetadataEncoding]))
	_, err := New(k).Decode(enc)
	require.NoError(t, err, "the server encrypts with the keyring's key")

	dec := readPayloads(t, post(t, srv.URL+"/decode", payloadsJSON(t, enc...), nil))
	require.Equal(t, `"acme/web"`, string(dec[0].Data))
	require.Equal(t, "json/plain", string(dec[0].Metadata["encoding"]))
}

func preflight(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url+"/decode", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-namespace")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

func TestHandlerCORS(t *testing.T) {
	srv, _ := serve(t, "secret-token")
	resp := preflight(t, srv.URL, uiOrigin)
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "preflight never needs the token")
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	require.Equal(t, "true", resp.Header.Get("Access-Control-Allow-Credentials"))
	require.Equal(t, "Content-Type, X-Namespace, Authorization", resp.Header.Get("Access-Control-Allow-Headers"))
	require.Equal(t, "POST, OPTIONS", resp.Header.Get("Access-Control-Allow-Methods"))

	for _, origin := range []string{"http://evil.example", "http://localhost:8234", uiOrigin + "/"} {
		resp = preflight(t, srv.URL, origin)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, origin)
		for h := range resp.Header {
			require.NotContains(t, h, "Access-Control", "origin %s got %s", origin, h)
		}
	}

	resp = post(t, srv.URL+"/decode", payloadsJSON(t), map[string]string{"Origin": uiOrigin, "Authorization": "Bearer secret-token"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"), "the actual request carries the header too")
}

func TestHandlerToken(t *testing.T) {
	srv, _ := serve(t, "secret-token")
	body := payloadsJSON(t, payload(t, "x"))
	for name, auth := range map[string]string{"none": "", "wrong": "Bearer secret-tokeN", "not bearer": "secret-token", "prefix": "Bearer secret"} {
		resp := post(t, srv.URL+"/encode", body, map[string]string{"Authorization": auth})
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
	}
	resp := post(t, srv.URL+"/encode", body, map[string]string{"Authorization": "Bearer secret-token"})
	require.Len(t, readPayloads(t, resp), 1)
}

// plainAcme is how a decoded "acme/web" reads in a /decode answer (protojson bytes are base64).
const plainAcme = "ImFjbWUvd2ViIg=="

// sealedAcme is a /decode body whose plaintext is "acme/web".
func sealedAcme(t *testing.T, k *Keyring) []byte {
	t.Helper()
	return payloadsJSON(t, encode(t, k, payload(t, "acme/web"))...)
}

// requireRefused asserts a 403 that carries no plaintext and no CORS grant.
func requireRefused(t *testing.T, resp *http.Response, want string, msgAndArgs ...any) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, msgAndArgs...)
	require.Contains(t, string(body), want, msgAndArgs...)
	require.NotContains(t, string(body), "acme/web", msgAndArgs...)
	require.NotContains(t, string(body), plainAcme, msgAndArgs...)
	require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), msgAndArgs...)
}

// Issue 23, case 11: a DNS-rebinding page. Its own name resolves to the endpoint's
// address, so the browser sends the request with the page's name as Host and the
// page's origin; the endpoint answers only to its own addresses and decodes nothing.
func TestHandlerRefusesAForeignHost(t *testing.T) {
	srv, k, c := serveAccess(t, Access{Origins: []string{uiOrigin}})
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	for _, tc := range []struct{ host, origin string }{
		{"rebind.attacker.example:" + port, "http://rebind.attacker.example:" + port},
		{"rebind.attacker.example:" + port, ""},
		{"rebind.attacker.example", uiOrigin},
		{"127.0.0.1.attacker.example:" + port, ""},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/decode", bytes.NewReader(sealedAcme(t, k)))
		require.NoError(t, err)
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		requireRefused(t, resp, "host not allowed", "Host %q Origin %q", tc.host, tc.origin)
		resp.Body.Close()
	}
	require.Zero(t, c.decoded.Load(), "nothing was decoded")

	for _, host := range []string{"127.0.0.1:" + port, "LOCALHOST:" + port, "localhost.:" + port} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/decode", bytes.NewReader(sealedAcme(t, k)))
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Origin", uiOrigin)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		ps := readPayloads(t, resp)
		resp.Body.Close()
		require.Equal(t, `"acme/web"`, string(ps[0].Data), host)
	}
	require.Equal(t, int64(3), c.decoded.Load())
}

// A page from an origin that is not allowed gets a 403 before anything is decoded,
// whether it sends a preflight, a CORS request, or a "simple" request that needs no
// preflight (the browser would send it and only hide the answer from the page).
func TestHandlerRefusesOriginsNotAllowed(t *testing.T) {
	srv, k, c := serveAccess(t, Access{Origins: []string{uiOrigin}})
	for _, origin := range []string{"http://evil.example", "null", "http://localhost:8234", uiOrigin + "/", "HTTP://LOCALHOST:8233"} {
		for _, contentType := range []string{"application/json", "text/plain"} {
			resp := post(t, srv.URL+"/decode", sealedAcme(t, k), map[string]string{"Origin": origin, "Content-Type": contentType})
			requireRefused(t, resp, "origin not allowed", "%s %s", origin, contentType)
		}
		requireRefused(t, preflight(t, srv.URL, origin), "", origin)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/decode", bytes.NewReader(sealedAcme(t, k)))
	require.NoError(t, err)
	req.Header.Add("Origin", uiOrigin)
	req.Header.Add("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	requireRefused(t, resp, "origin not allowed", "two Origin headers")
	resp.Body.Close()
	require.Zero(t, c.decoded.Load(), "nothing was decoded")

	resp = post(t, srv.URL+"/decode", sealedAcme(t, k), map[string]string{"Origin": uiOrigin})
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	require.Equal(t, `"acme/web"`, string(readPayloads(t, resp)[0].Data), "the allowed UI still decodes")
	resp = post(t, srv.URL+"/decode", sealedAcme(t, k), nil)
	require.Equal(t, `"acme/web"`, string(readPayloads(t, resp)[0].Data), "a client that is no browser sends no Origin")
}

// With a path token, only a caller that knows the URL reaches the codec: without
// the token, with a wrong one, or with it anywhere but first, the answer is 403.
func TestHandlerPathToken(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	srv, k, c := serveAccess(t, Access{Origins: []string{uiOrigin}, PathToken: token})
	for _, path := range []string{"/decode", "/" + token[:31] + "/decode", "/" + token + "x/decode", "/x/" + token + "/decode", "//decode", "/" + strings.ToUpper(token) + "/decode"} {
		resp := post(t, srv.URL+path, sealedAcme(t, k), map[string]string{"Origin": uiOrigin})
		requireRefused(t, resp, "missing or wrong codec token", path)
	}
	requireRefused(t, preflight(t, srv.URL, uiOrigin), "missing or wrong codec token", "a preflight without the token")
	require.Zero(t, c.decoded.Load(), "nothing was decoded")

	resp := preflight(t, srv.URL+"/"+token, uiOrigin)
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	resp = post(t, srv.URL+"/"+token+"/decode", sealedAcme(t, k), map[string]string{"Origin": uiOrigin})
	require.Equal(t, `"acme/web"`, string(readPayloads(t, resp)[0].Data))
}

func TestHostName(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8081": "127.0.0.1", "LocalHost": "localhost", "[::1]:80": "::1", "::1": "::1",
		"codec.example.": "codec.example", "Codec.Example:443": "codec.example", "": "",
	} {
		require.Equal(t, want, hostName(in), in)
	}
}

func TestListenerHosts(t *testing.T) {
	require.Equal(t, []string{"127.0.0.2", "localhost"}, ListenerHosts(&net.TCPAddr{IP: net.ParseIP("127.0.0.2"), Port: 1}))
	require.Equal(t, []string{"::1", "localhost"}, ListenerHosts(&net.TCPAddr{IP: net.IPv6loopback, Port: 1}))
	require.Equal(t, []string{"192.0.2.7"}, ListenerHosts(&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 1}))
	all := ListenerHosts(&net.TCPAddr{IP: net.IPv4zero, Port: 1})
	require.Contains(t, all, "127.0.0.1", "every interface's address")
	require.Contains(t, all, "localhost")
}
