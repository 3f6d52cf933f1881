package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/codec"
)

// The codec server decodes what the worker's key encoded, answers the UI's
// preflight, and stops cleanly when its context ends.
func TestCodecServerServesUntilCancelled(t *testing.T) {
	line, err := codec.Generate("k1")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, line)
	t.Setenv(codec.EnvKeyFile, "")
	keys, err := codec.FromEnv()
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"codec-server", "--listen", "127.0.0.1:0"}, Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url string
	for url == "" && sc.Scan() {
		if m := regexp.MustCompile(`Codec Server endpoint: (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	require.NotEmpty(t, url, "no URL printed; stderr: %s", errb.String())
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	sealed, err := codec.DataConverter(keys).ToPayload("acme/web")
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{sealed}})
	require.NoError(t, err)
	resp, err := http.Post(url+"/decode", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var ps commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(got, &ps))
	require.Equal(t, `"acme/web"`, string(ps.Payloads[0].Data))

	req, err := http.NewRequest(http.MethodOptions, url+"/decode", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "http://localhost:8233")
	pre, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	pre.Body.Close()
	require.Equal(t, "http://localhost:8233", pre.Header.Get("Access-Control-Allow-Origin"), "the dev UI is allowed by default")

	cancel()
	require.Equal(t, ExitOK, <-done, errb.String())
}

func TestCodecServerWithoutAKey(t *testing.T) {
	t.Setenv(codec.EnvKey, "")
	t.Setenv(codec.EnvKeyFile, "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	code, _, errs := run(t, "codec-server", "--listen", "127.0.0.1:0")
	require.Equal(t, ExitFailed, code)
	require.Contains(t, errs, "slipway codec keygen")
}
