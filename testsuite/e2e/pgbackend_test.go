package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// With SLIPWAY_TF_PG_CONN the terraform state lives in real PostgreSQL, one schema per instance.
func TestDeployAndDestroyWithPostgresState(t *testing.T) {
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "tfstate")
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn })
	require.Equal(t, "pg", e.Activities.Terraform.Backend())
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	ref := contract.Ref{Tenant: "pg", Name: "web"}

	e.MustCLI(0, "create", "pg/web", "-f", file, "--wait")
	e.MustCLI(0, "deploy", "pg/web", "--wait")
	require.Equal(t, lifecycle.Deployed, e.Status("pg/web").State)
	require.NotEmpty(t, e.Resources(ref))
	states := pg.Query(t, "tfstate", "select count(*) from slipway_pg_web.states")
	require.Equal(t, "1", states, "the state row is in the instance's schema")

	e.MustCLI(0, "destroy", "pg/web", "--wait")
	require.Empty(t, e.Resources(ref))
	require.Equal(t, lifecycle.Destroyed, e.Status("pg/web").State)
}
