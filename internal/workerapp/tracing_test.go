package workerapp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
)

// Tracing off (the default), a worker has the attestation verifier and the retry notice; on, the
// tracing interceptor comes first, so even a refused request has its span.
func TestTracingInterceptorOnlyWhenOn(t *testing.T) {
	line, err := codec.Generate("t")
	require.NoError(t, err)
	keys, err := codec.Parse("test", line)
	require.NoError(t, err)
	key, err := attest.Generate()
	require.NoError(t, err)
	ring, err := attest.Parse("test", key)
	require.NoError(t, err)
	off, err := Interceptors(Config{Keys: keys, Attest: ring})
	require.NoError(t, err)
	require.Len(t, off, 3)
	require.Contains(t, fmt.Sprintf("%T", off[1]), "noticeRetries", "every worker tells instances of their retrying steps")
	require.Contains(t, fmt.Sprintf("%T", off[2]), "stepStarts", "every worker sends the start signals of the steps it begins")
	on, err := Interceptors(Config{Keys: keys, Attest: ring, Tracing: true})
	require.NoError(t, err)
	require.Len(t, on, 4)
	require.Contains(t, fmt.Sprintf("%T", on[0]), "tracing", "the tracing interceptor is first")
	require.Equal(t, fmt.Sprintf("%T", off[0]), fmt.Sprintf("%T", on[1]), "the verifier after it")
}
