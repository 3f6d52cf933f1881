package webhook

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func TestParseCommandsFindsEveryLine(t *testing.T) {
	cmds, errs := ParseCommands("add two shops\n\n[slipway][create] acme/shop\n  [Slipway][DEPLOY]   globex/web  \n[slipway][frobnicate] acme/x\n[slipway][deploy] Acme/x\nnot a command [slipway][deploy] a/b\n")
	require.Equal(t, []Command{
		{Op: lifecycle.OpProvision, Ref: contract.Ref{Tenant: "acme", Name: "shop"}},
		{Op: lifecycle.OpDeploy, Ref: contract.Ref{Tenant: "globex", Name: "web"}},
	}, cmds)
	require.Len(t, errs, 2)
	require.ErrorContains(t, errs[0], "line 5")
	require.ErrorContains(t, errs[0], "frobnicate")
	require.ErrorContains(t, errs[1], `tenant "Acme"`)
}

func FuzzParseCommands(f *testing.F) {
	f.Add("[slipway][deploy] acme/web\n[slipway][create] a/b")
	f.Add("[slipway][] /\n[slipway][deploy]")
	f.Add("[SLIPWAY][Archive] a-b/c-d\r\n")
	f.Fuzz(func(t *testing.T, msg string) {
		cmds, errs := ParseCommands(msg)
		for _, c := range cmds {
			if c.Op == "" || c.Ref.Tenant == "" || c.Ref.Name == "" {
				t.Fatalf("incomplete command %+v from %q", c, msg)
			}
		}
		for _, err := range errs {
			if err == nil || err.Error() == "" {
				t.Fatalf("empty error from %q", msg)
			}
		}
	})
}
