package codec

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// A failure's message is sealed with the payload key, and the UI, which sends a failure's
// encoded attributes to the codec's /decode, reads it back.
func TestFailureConverterSealsTheMessage(t *testing.T) {
	srv, k := serve(t, "")
	fc := FailureConverter(DataConverter(k))
	const secret = "token=sk_live_4f9a1c7e2b"
	f := fc.ErrorToFailure(temporal.NewNonRetryableApplicationError("terraform apply: "+secret, "TerraformFailed", errors.New("cause: "+secret)))
	raw, err := proto.Marshal(f)
	require.NoError(t, err)
	require.NotContains(t, string(raw), secret, "neither the message nor the cause's is stored in the clear")
	require.Equal(t, "Encoded failure", f.GetMessage())

	dec := readPayloads(t, post(t, srv.URL+"/decode", payloadsJSON(t, f.GetEncodedAttributes()), map[string]string{"Origin": uiOrigin}))
	require.Contains(t, string(dec[0].Data), `"message":"terraform apply: `+secret+`"`)
	require.ErrorContains(t, fc.FailureToError(f), "terraform apply: "+secret, "a slipway client reads it")
}
