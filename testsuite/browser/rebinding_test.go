package browser

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
)

// rebindName is the attacker's DNS name; chromium resolves it to loopback, as the
// attacker's DNS server does once the page is loaded (DNS rebinding).
const rebindName = "rebind.attacker.example"

// fetchResult is what the attacker's script could read of its request.
type fetchResult struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
	Error  string `json:"error"`
}

// Issue 23, case 11, in a real browser: a page whose origin is the attacker's name,
// rebound to the loopback address of slipway dev's codec endpoint, posts a sealed
// payload to the endpoint as a same-origin request, so it could read any answer.
// Even knowing the token (the UI's settings show it to whoever reaches the UI), it
// reads a 403 and no plaintext: the endpoint answers only to its own host names.
// The same page's cross-origin request to the endpoint's real address is refused
// too, and reads nothing.
func TestRebindingPageCannotDecode(t *testing.T) {
	chromiumPath := chromium(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.CodecListen, o.Deployer = "127.0.0.1:0", "none"
	})
	require.NotEmpty(t, e.CodecURL)
	u, err := url.Parse(e.CodecURL)
	require.NoError(t, err)
	sealed, err := codec.DataConverter(e.Keyring(t)).ToPayload("acme/web")
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{sealed}})
	require.NoError(t, err)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("host-resolver-rules", "MAP "+rebindName+" 127.0.0.1"))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	// The attacker's page, now served by the codec endpoint's own address under the attacker's name.
	attackerOrigin := "http://" + rebindName + ":" + u.Port()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(attackerOrigin+"/")))
	origin, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.origin`))
	require.NoError(t, err)
	require.Equal(t, attackerOrigin, origin, "the script runs in the attacker's origin")

	post := func(target string) fetchResult {
		t.Helper()
		script := `(async () => {
			try {
				const resp = await fetch(` + jsString(target) + `, {method: "POST", headers: {"Content-Type": "application/json", "X-Namespace": "default"}, body: ` + jsString(string(body)) + `});
				return {status: resp.status, body: await resp.text(), error: ""};
			} catch (err) {
				return {status: 0, body: "", error: String(err)};
			}
		})()`
		r, err := chromedp.Run(ctx, chromedp.Evaluate[fetchResult](script, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		return r
	}

	same := post(u.Path + "/decode") // same-origin: the page reads whatever comes back
	t.Logf("same-origin request through the rebound name: %d %q %s", same.Status, same.Body, same.Error)
	require.Equal(t, 403, same.Status, "the rebound request is refused, and the page can read that it was")
	require.Contains(t, same.Body, "host not allowed")
	require.NotContains(t, same.Body, plainAcme)

	cross := post(e.CodecURL + "/decode") // cross-origin, to the endpoint's real address
	t.Logf("cross-origin request from the attacker's origin: %d %q %s", cross.Status, cross.Body, cross.Error)
	require.Zero(t, cross.Status, "the browser gives the page nothing")
	require.NotContains(t, cross.Body, plainAcme)
}

// plainAcme is how a decoded "acme/web" reads in a /decode answer (protojson bytes are base64).
const plainAcme = "ImFjbWUvd2ViIg=="

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`, "<", `\u003c`)
	return `"` + r.Replace(s) + `"`
}
