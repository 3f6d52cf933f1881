package e2e

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/testsuite"
)

// Expiry on the real dev server: an instance of a stack with expiry {max: 1h, warn: [20s, 10s]}
// whose file says expires: 45s is warned through the signed webhook (a loopback receiver verifies
// each delivery), extended once (an extension past the maximum is refused, exit 2), and archived
// at the new end with no request, as the person who set it.
func TestAnExpiringInstanceIsWarnedExtendedAndArchived(t *testing.T) {
	rc := &receiver{secret: []byte("expiry-hook-secret")}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	t.Setenv("SLIPWAY_E2E_HOOK_SECRET", string(rc.secret))
	file := filepath.Join(t.TempDir(), "notify.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf("sinks:\n  - name: ops\n    kind: webhook\n    url: %s/hook\n    secretEnv: SLIPWAY_E2E_HOOK_SECRET\n    events: [Expiring]\n", srv.URL)), 0o600))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NotifyFile = file })
	files := map[string][]byte{}
	for p, d := range seedExample(t) {
		p = strings.Replace(p, "stacks/example/", "stacks/preview/", 1)
		if strings.HasSuffix(p, "schema.yaml") {
			d = append(append([]byte(nil), d...), "\nexpiry: {max: 1h, action: archive, warn: [20s, 10s]}\n"...)
		}
		files[p] = d
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "the preview stack", files)

	over := e.MustCLI(2, "create", "exp/over", "-f", writeFile(t, "stack: preview\nparameters:\n  greeting: hi\nexpires: 2h\n"))
	require.Contains(t, over.Stderr, "expires: 2h0m0s from now is over the stack's maximum 1h0m0s (schema.expiry.max)")

	// The end is 45 s from the create's validation: a busy machine's create and deploy end well before it.
	set := time.Now()
	e.MustCLI(0, "create", "exp/pr", "-f", writeFile(t, "stack: preview\nparameters:\n  greeting: hi\nexpires: 45s\n"), "--wait")
	created := time.Now()
	e.MustCLI(0, "deploy", "exp/pr", "--wait")
	st := e.Status("exp/pr")
	require.NotNil(t, st.Expiry, "expired %s after the create began", time.Since(set))
	require.False(t, st.Expiry.At.Before(set.Add(45*time.Second)), "45 s from the create's validation")
	require.False(t, st.Expiry.At.After(created.Add(45*time.Second)), "45 s from the create's validation")
	require.Equal(t, "archive", st.Expiry.Action)
	require.Contains(t, e.MustCLI(0, "list", "--expiring", "1m").Stdout, "exp/pr")
	require.NotContains(t, e.MustCLI(0, "list", "--expiring", "1s").Stdout, "exp/pr")

	require.Contains(t, e.MustCLI(2, "extend", "exp/pr", "--by", "2h").Stderr, "over the stack's maximum of 1h0m0s from now (schema.expiry.max)")
	e.MustCLI(0, "extend", "exp/pr", "--by", "10s", "--reason", "one more look")
	end := e.Status("exp/pr").Expiry.At
	require.WithinDuration(t, st.Expiry.At.Add(10*time.Second), end, 0, "extended by 10 s")

	require.Eventually(t, func() bool { return e.Status("exp/pr").State == lifecycle.Archived }, 90*time.Second, 250*time.Millisecond)
	require.False(t, time.Now().Before(end), "archived at the end, not before")
	st = e.Status("exp/pr")
	require.Nil(t, st.Expiry)
	require.Equal(t, lifecycle.OpArchive, st.Operation.Kind)
	require.Contains(t, st.Operation.Note, "expiry set by ")
	require.NotEmpty(t, st.History)
	require.Equal(t, st.History[len(st.History)-1].Actor, st.Operation.Actor, "the archive is the person's who set the expiry")

	rc.mu.Lock()
	defer rc.mu.Unlock()
	var warned []string
	for _, ev := range rc.got {
		if ev.Kind == notify.KindExpiring && ev.Instance == "exp/pr" {
			warned = append(warned, ev.Message)
		}
	}
	require.GreaterOrEqual(t, len(warned), 2, "both warnings before the new end arrived signed: %q (refused: %q)", warned, rc.refused)
	require.Empty(t, rc.refused)
}
