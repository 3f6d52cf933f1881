package devenv

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"

	"github.com/slipway-dev/slipway/internal/store"
)

func TestCheckEngine(t *testing.T) {
	cases := []struct {
		engine string
		nodes  int
		want   string // "" = accepted
	}{
		{"", 0, ""},
		{EngineDev, 0, ""},
		{EnginePostgres, 0, ""},
		{EnginePostgres, 3, ""},
		{EnginePostgres, -1, "EnvOptions.TemporalNodes = -1"},
		{EnginePostgres, 10, "EnvOptions.TemporalNodes = 10"},
		{"cassandra", 0, `EnvOptions.Temporal = "cassandra"`},
	}
	for _, tc := range cases {
		err := CheckEngine(tc.engine, tc.nodes)
		if tc.want == "" {
			assert.NoError(t, err, "%q %d", tc.engine, tc.nodes)
		} else {
			assert.ErrorContains(t, err, tc.want)
		}
	}
}

// The postgres engine keeps its PostgreSQL data in the state dir: what a workflow left
// there is still there after a restart.
func TestPostgresEngineKeepsItsDataAcrossRestarts(t *testing.T) {
	if _, err := temporalcluster.FindBinaries(""); err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_TEMPORAL_CLUSTER") == "1" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
	// Not t.TempDir: as root the postgres OS user must traverse to the state dir.
	base, err := os.MkdirTemp("", "slipway-devenv-pg-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(base, 0o755))
	t.Cleanup(func() { os.RemoveAll(base) })
	state := filepath.Join(base, "state")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := EnvOptions{StateDir: state, Temporal: EnginePostgres, Deployer: "none", NoWorker: true}

	e, err := Start(ctx, opts)
	require.NoError(t, err)
	require.NotNil(t, e.Cluster)
	assert.Nil(t, e.Server, "no dev server")
	assert.Equal(t, e.Cluster.Cluster.Frontend(), e.Address)
	assert.Equal(t, filepath.Join(state, "postgres"), e.Cluster.Postgres.DataDir)
	assert.Len(t, e.Cluster.Cluster.Nodes(), 1, "one node by default")
	assert.Equal(t, "pg", e.Activities.Terraform.Backend(), "terraform state in the engine's PostgreSQL")
	_, shared := e.Activities.Secrets.(*store.PG)
	assert.True(t, shared, "plans and secrets in the shared store, as in production")
	_, err = e.Client.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "kept", TaskQueue: "nobody-polls"}, "Nothing")
	require.NoError(t, err)
	e.Stop()
	assert.False(t, e.Cluster.Postgres.Running())

	opts.TemporalNodes = 2
	e, err = Start(ctx, opts)
	require.NoError(t, err)
	defer e.Stop()
	assert.Len(t, e.Cluster.Cluster.Nodes(), 2)
	assert.Equal(t, "pg", e.Activities.Terraform.Backend(), "the slipway database is found again")
	desc, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, "kept", "")
	require.NoError(t, err, "the workflow started before the restart")
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
	require.NoError(t, e.Client.Temporal.TerminateWorkflow(ctx, "kept", "", "test over"))
}
