package temporalcluster

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// hold is the test's one activity: the first run reports that it started and waits for
// the test to let it go, so the test can kill a node while it runs.
type hold struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHold() *hold { return &hold{started: make(chan struct{}), release: make(chan struct{})} }

func (h *hold) Greet(ctx context.Context, name string) (string, error) {
	h.once.Do(func() { close(h.started) })
	select {
	case <-h.release:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return fmt.Sprintf("hello %s (attempt %d)", name, activity.GetInfo(ctx).Attempt), nil
}

func greetWorkflow(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: time.Second},
	})
	var out string
	err := workflow.ExecuteActivity(ctx, "Greet", name).Get(ctx, &out)
	return out, err
}

// membershipPorts are the membership ports that heartbeat now, from the cluster's own table.
func membershipPorts(t *testing.T, pg *postgres.Server) string {
	return pg.Query(t, "temporal", `SELECT coalesce(string_agg(DISTINCT rpc_port::text, ',' ORDER BY rpc_port::text), '')
		FROM cluster_membership WHERE last_heartbeat > (now() AT TIME ZONE 'utc') - interval '10 seconds'`)
}

func nodeMembershipPorts(n *temporalcluster.Node) []int {
	p := n.Ports()
	return []int{p.FrontendMembership, p.HistoryMembership, p.MatchingMembership, p.WorkerMembership}
}

func TestClusterSurvivesALostNodeAndANodeRejoins(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pg := postgres.Start(t)
	begin := time.Now()
	c := Start(t, pg, 2)
	t.Logf("PostgreSQL setup + 2 Temporal nodes in %v", time.Since(begin).Round(time.Millisecond))

	nodes := c.Nodes()
	require.Len(t, nodes, 2)
	require.NotEqual(t, nodes[0].Address(), nodes[1].Address())
	for _, n := range nodes {
		require.True(t, n.Serving(), n.Name())
		for _, port := range nodeMembershipPorts(n) {
			assert.Less(t, port, 32768, "%s: membership ports are SMALLINT", n.Name())
		}
	}
	// Both nodes are members of one ring, recorded in the one database.
	require.Eventually(t, func() bool {
		live := membershipPorts(t, pg)
		for _, n := range nodes {
			for _, port := range nodeMembershipPorts(n) {
				if !strings.Contains(","+live+",", ","+strconv.Itoa(port)+",") {
					return false
				}
			}
		}
		return true
	}, 30*time.Second, 200*time.Millisecond, "both nodes heartbeat in cluster_membership")

	tc, err := client.DialContext(ctx, client.Options{HostPort: c.Frontend(), Namespace: c.Namespace(),
		Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	defer tc.Close()
	const queue = "temporalcluster-test"
	h := newHold()
	w := worker.New(tc, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(greetWorkflow, workflow.RegisterOptions{Name: "Greet"})
	w.RegisterActivityWithOptions(h.Greet, activity.RegisterOptions{Name: "Greet"})
	require.NoError(t, w.Start())
	defer w.Stop()

	// A node dies while the workflow's activity runs; the workflow completes on the survivor.
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "lose-a-node", TaskQueue: queue}, "Greet", "cluster")
	require.NoError(t, err)
	select {
	case <-h.started:
	case <-ctx.Done():
		t.Fatal("the activity never started")
	}
	lost := nodes[0]
	killedAt := time.Now()
	require.NoError(t, lost.Kill())
	require.False(t, lost.Running(), "SIGKILL ends the node")
	close(h.release)
	var out string
	require.NoError(t, run.Get(ctx, &out))
	assert.Contains(t, out, "hello cluster")
	t.Logf("workflow completed %v after node %s was killed: %q", time.Since(killedAt).Round(time.Millisecond), lost.Name(), out)

	// A second Setup on the initialised databases changes nothing and succeeds.
	before := pg.Query(t, "temporal", "SELECT curr_version FROM schema_version")
	beforeVis := pg.Query(t, "temporal_visibility", "SELECT curr_version FROM schema_version")
	o := Options(pg, 2, "")
	require.NoError(t, temporalcluster.Setup(ctx, o))
	assert.Equal(t, before, pg.Query(t, "temporal", "SELECT curr_version FROM schema_version"))
	assert.Equal(t, beforeVis, pg.Query(t, "temporal_visibility", "SELECT curr_version FROM schema_version"))
	assert.Equal(t, "1", pg.Query(t, "temporal", "SELECT count(*) FROM schema_version"))

	// The killed node restarts on its ports and rejoins: with the other node gone as well,
	// it alone runs a workflow.
	restartedAt := time.Now()
	require.NoError(t, lost.Restart(ctx))
	require.True(t, lost.Serving())
	t.Logf("node %s restarted in %v", lost.Name(), time.Since(restartedAt).Round(time.Millisecond))
	require.Eventually(t, func() bool {
		live := membershipPorts(t, pg)
		return strings.Contains(","+live+",", ","+strconv.Itoa(lost.Ports().HistoryMembership)+",")
	}, 30*time.Second, 200*time.Millisecond, "the restarted node heartbeats again")
	require.NoError(t, nodes[1].Kill())
	run2, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "after-rejoin", TaskQueue: queue}, "Greet", "again")
	require.NoError(t, err)
	require.NoError(t, run2.Get(ctx, &out))
	assert.Contains(t, out, "hello again")
	t.Logf("workflow on the restarted node alone completed %v after the restart", time.Since(restartedAt).Round(time.Millisecond))
}
