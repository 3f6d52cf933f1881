package codec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

const uiOrigin = "http://localhost:8233"

func serve(t *testing.T, token string) (*httptest.Server, *Keyring) {
	t.Helper()
	k := keyring(t, newKey(t, "k1"))
	srv := httptest.NewServer(Handler(New(k), []string{uiOrigin, "http://127.0.0.1:8233"}, token))
	t.Cleanup(srv.Close)
	return srv, k
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
	resp.Body.Close()
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
