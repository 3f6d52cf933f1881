package activities

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/policy"
)

// The windows of a provision are chosen by the config it brings (the instance has no stack or
// labels yet); those of an archive by the instance's own labels. A window scoped by stack and
// label covers only an instance with both.
func TestAuthorizeChoosesWindowsByTheConfigsStackAndLabels(t *testing.T) {
	dir := t.TempDir()
	rego, err := os.ReadFile(filepath.Join("..", "internal", "policy", "default", "slipway.rego"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"), rego, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), []byte(`{"slipway": {"groups": ["platform-admins", "tenant:*"], "windows": [
	  {"name": "gold", "start": "0 0 1 1 *", "duration": "1m", "stacks": ["web"], "labels": {"tier": "gold"}}]}}`), 0o644))
	e, err := policy.Load(dir)
	require.NoError(t, err)
	a := &Activities{Policy: e}
	actor := acmeAlice
	provision := func(cfg string) policy.Input {
		return policy.Input{Actor: actor, Operation: "provision", Tenant: "acme", Name: "web",
			Request: contract.OperationRequest{ConfigYAML: cfg}}
	}

	d, err := a.Authorize(context.Background(), provision("stack: web@1.0.0\nlabels: {tier: gold}\nparameters: {}\n"))
	require.NoError(t, err)
	require.NotNil(t, d.Windows, "a first provision is held by its config's stack and labels")
	require.True(t, d.Windows.Governed)
	d, err = a.Authorize(context.Background(), provision("stack: web\nlabels: {tier: silver}\nparameters: {}\n"))
	require.NoError(t, err)
	require.Nil(t, d.Windows)

	in := policy.Input{Actor: actor, Operation: "archive", Tenant: "acme", Name: "web", Stack: policy.Stack{Name: "web"}}
	d, err = a.Authorize(context.Background(), in)
	require.NoError(t, err)
	require.Nil(t, d.Windows, "no labels: the gold window does not cover it")
	in.Labels = map[string]string{"tier": "gold"}
	d, err = a.Authorize(context.Background(), in)
	require.NoError(t, err)
	require.NotNil(t, d.Windows)
}
