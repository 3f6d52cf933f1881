package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// otherHost is a second worker's activities: its own empty disk, the same GitOps repo,
// PostgreSQL and (unless keys says otherwise) payload key.
func otherHost(t *testing.T, e *testsuite.Env, conn string, keys *codec.Keyring) *activities.Activities {
	t.Helper()
	acts, err := workerapp.NewActivities(workerapp.Config{TaskQueue: e.TaskQueue, GitOpsRepo: e.GitOpsRepo, StateDir: t.TempDir(),
		TFPGConn: conn, StorePGConn: conn, Keys: keys, Deployer: "none"})
	require.NoError(t, err)
	return acts
}

// Workers are stateless: a plan made on worker A is applied by worker B, which never saw the
// instance; a first deploy racing on both gives one set of secrets; a plan the keyring cannot
// open fails the step naming the key, and nothing is applied.
func TestStatelessWorkersShareOneStore(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "slipway")
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn })
	e.MustCLI(0, "create", "sl/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	ref := contract.Ref{Tenant: "sl", Name: "web"}
	head, err := e.Activities.Forge.Head(ctx)
	require.NoError(t, err)
	a, b := e.Activities, otherHost(t, e, conn, e.Keyring(t))

	in := contract.TerraformInput{Ref: ref, OpID: "1-stateless", Revision: head}
	require.NoError(t, a.TerraformInit(ctx, in))
	plan, err := a.TerraformPlan(ctx, in)
	require.NoError(t, err)
	require.Positive(t, plan.Summary.Add)
	out, err := b.TerraformApply(ctx, contract.ApplyInput{Ref: ref, Plan: plan})
	require.NoError(t, err, "B applies A's plan from the shared store")
	assert.False(t, out.AlreadyApplied)
	assert.Len(t, out.Resources, plan.Summary.Add)
	again, err := a.TerraformApply(ctx, contract.ApplyInput{Ref: ref, Plan: plan})
	require.NoError(t, err)
	assert.True(t, again.AlreadyApplied, "a retry on A never applies twice")
	fresh, err := otherHost(t, e, conn, e.Keyring(t)).TerraformApply(ctx, contract.ApplyInput{Ref: ref, Plan: plan})
	require.NoError(t, err, "a retry on a host that never saw the instance reads the state it did not apply")
	assert.True(t, fresh.AlreadyApplied)
	assert.Equal(t, out.Resources, fresh.Resources)
	assert.Equal(t, out.Serial, fresh.Serial)

	// The compensation of a failed apply lands on yet another fresh host: it still lists the state.
	left, err := otherHost(t, e, conn, e.Keyring(t)).CollectLeftovers(ctx, contract.LeftoverInput{Ref: ref,
		Operation: "deploy", OpID: in.OpID, FailedStep: contract.TFApply, Revision: head})
	require.NoError(t, err)
	var kinds []string
	for _, l := range left {
		kinds = append(kinds, l.Kind)
		if l.Kind == "terraform-state" {
			assert.Contains(t, l.Detail, fmt.Sprintf("partial apply: %d resource(s) in state", plan.Summary.Add))
		}
	}
	assert.Equal(t, []string{"terraform-state"}, kinds)

	// Racing first deploys: each secret is created once, and both workers read the same values.
	var wg sync.WaitGroup
	outs := make([]contract.SecretsOutput, 2)
	errs := make([]error, 2)
	for i, acts := range []*activities.Activities{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = acts.BootstrapSecrets(ctx, contract.SecretsInput{Ref: ref, Revision: head})
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.NotEmpty(t, outs[0].Names)
	assert.ElementsMatch(t, outs[0].Names, append(append([]string{}, outs[0].Created...), outs[1].Created...),
		"every secret created exactly once between the two")
	fromA, err := a.Secrets.Get(ctx, ref.Tenant, ref.Name)
	require.NoError(t, err)
	fromB, err := b.Secrets.Get(ctx, ref.Tenant, ref.Name)
	require.NoError(t, err)
	assert.Equal(t, fromA, fromB)

	// A worker whose keyring lacks the key refuses, naming it; the state is untouched.
	line, err := codec.Generate("stranger")
	require.NoError(t, err)
	strangerKeys, err := codec.Parse("test", line)
	require.NoError(t, err)
	stranger := otherHost(t, e, conn, strangerKeys)
	plan2, err := a.TerraformPlan(ctx, contract.TerraformInput{Ref: ref, OpID: "2-stateless", Revision: head})
	require.NoError(t, err)
	_, err = stranger.TerraformApply(ctx, contract.ApplyInput{Ref: ref, Plan: plan2})
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, contract.ErrUnreadable, ae.Type())
	assert.True(t, ae.NonRetryable())
	assert.Contains(t, err.Error(), e.Keyring(t).ActiveID())
	_, err = stranger.Secrets.Get(ctx, ref.Tenant, ref.Name)
	assert.ErrorContains(t, err, e.Keyring(t).ActiveID())
	assert.Len(t, e.Resources(ref), plan.Summary.Add, "nothing applied by the stranger")
}
