package httpserve

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/httpserve/httpservetest"
)

func TestTLSServesWithTheGivenCertificate(t *testing.T) {
	certFile, keyFile, roots := httpservetest.SelfSigned(t)
	s, err := New(WithTLS(certFile, keyFile))
	require.NoError(t, err)
	assert.Equal(t, "https", s.Scheme())
	r := startServer(t, s, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "secure") }))

	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := c.Get("https://" + r.addr + "/")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, "secure", string(body))
	require.NotNil(t, resp.TLS)
	assert.GreaterOrEqual(t, resp.TLS.Version, uint16(tls.VersionTLS12))

	old := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11, //nolint:gosec // the point: an old client is refused
	}}}
	_, err = old.Get("https://" + r.addr + "/")
	assert.Error(t, err, "TLS 1.1 is refused")

	plain := &http.Client{Timeout: 20 * time.Second}
	resp, err = plain.Get("http://" + r.addr + "/")
	if err == nil {
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "plain HTTP to a TLS port is not served")
	}
}

func TestTLSBadFilesAreReportedBeforeServing(t *testing.T) {
	certFile, keyFile, _ := httpservetest.SelfSigned(t)
	otherCert, _, _ := httpservetest.SelfSigned(t)
	missing := filepath.Join(t.TempDir(), "nope.pem")

	_, err := New(WithTLS(missing, keyFile))
	var fe *TLSFileError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "certificate", fe.Which)
	assert.ErrorIs(t, err, os.ErrNotExist)

	_, err = New(WithTLS(certFile, missing))
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "key", fe.Which)

	_, err = New(WithTLS(otherCert, keyFile))
	var pe *TLSPairError
	require.ErrorAs(t, err, &pe, "a key that is not the certificate's")

	_, err = New(WithTLS(keyFile, keyFile))
	require.ErrorAs(t, err, &pe, "a key given as the certificate")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.ErrorAs(t, Serve(t.Context(), ln, http.NotFoundHandler(), WithTLS(missing, keyFile)), &fe)
	_, err = net.Dial("tcp", ln.Addr().String())
	assert.Error(t, err, "Serve closes the listener it could not serve")
}
