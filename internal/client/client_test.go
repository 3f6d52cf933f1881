package client

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
)

func genKey(t *testing.T, id string) string {
	t.Helper()
	line, err := codec.Generate(id)
	require.NoError(t, err)
	return line
}

// encryptsWith reports the key ID the options' converter seals payloads with.
func encryptsWith(t *testing.T, opts ...Option) string {
	t.Helper()
	o, err := Options(opts...)
	require.NoError(t, err)
	require.NotNil(t, o.DataConverter)
	p, err := o.DataConverter.ToPayload("acme/web")
	require.NoError(t, err)
	require.Equal(t, codec.EncodingEncrypted, string(p.Metadata[codec.MetadataEncoding]))
	return string(p.Metadata[codec.MetadataKeyID])
}

func TestOptionsEncryptWithTheConfiguredKey(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(codec.EnvKeyFile, "")
	t.Setenv(codec.EnvKey, genKey(t, "fromenv"))
	require.Equal(t, "fromenv", encryptsWith(t))

	k, err := codec.Parse("test", genKey(t, "given"))
	require.NoError(t, err)
	require.Equal(t, "given", encryptsWith(t, WithKeyring(k)), "an explicit keyring wins")
}

func TestOptionsFallBackToTheDevKeyFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(codec.EnvKey, "")
	t.Setenv(codec.EnvKeyFile, "")
	_, err := Options()
	var nk *codec.NoKeyError
	require.ErrorAs(t, err, &nk, "no key anywhere: refuse rather than send plaintext")
	require.Contains(t, err.Error(), DevKeyFile())

	require.NoError(t, os.MkdirAll(filepath.Dir(DevKeyFile()), 0o755))
	require.NoError(t, os.WriteFile(DevKeyFile(), []byte(genKey(t, "dev")+"\n"), 0o600))
	require.Equal(t, "dev", encryptsWith(t))
}

func TestAuditEntryNamesTheOperation(t *testing.T) {
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	for req, want := range map[string]string{"update deploy": "deploy", "signal approval-decision": "approval-decision",
		"destroy 3-8f465cfde7": "destroy", "": ""} {
		e := auditEntry(ref, contract.AuditRecord{Request: req, Decision: contract.AuditDenied})
		require.Equal(t, want, e.Operation, req)
		require.Equal(t, "-", e.Actor, "a refused request has no verified actor")
		require.Equal(t, "acme/web", e.Instance)
	}
}

// Sealed payloads do not compress: gzip would only cost CPU on both ends.
func TestOptionsSendUncompressed(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(codec.EnvKeyFile, "")
	t.Setenv(codec.EnvKey, genKey(t, "k"))
	o, err := Options()
	require.NoError(t, err)
	require.IsType(t, &sdkclient.GrpcCompressionNone{}, o.ConnectionOptions.GrpcCompression)
}
