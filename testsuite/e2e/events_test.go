package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
)

// An instance's log comes from its history: every request, state, pipeline and step in order,
// across continue-as-new runs, and --follow sees new entries as they happen.
func TestInstanceLogReadsAcrossRunsAndFollows(t *testing.T) {
	e := testsuite.NewEnv(t)
	// Who asks is who signs (here erin, with the dev key); --actor e2e is only a note beside it.
	t.Setenv(cli.EnvDevIdentity, "erin:tenant:log")
	ctx := context.Background()
	ref := contract.Ref{Tenant: "log", Name: "web"}
	// This instance continues as new after every operation, so its log spans runs.
	_, err := e.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: contract.InstanceWorkflowID(ref),
		TaskQueue: e.TaskQueue}, contract.InstanceWorkflowName,
		contract.InstanceInput{Ref: ref, Settings: contract.Settings{ContinueAsNewAfter: 1}})
	require.NoError(t, err)
	e.MustCLI(0, "create", "log/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")

	followed := make(chan []string, 1)
	fctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	go func() {
		var seen []string
		err := e.Client.InstanceEvents(fctx, ref, true, func(ev client.InstanceEvent) error {
			seen = append(seen, ev.Kind+" "+ev.Status)
			if ev.Kind == "state" && ev.Status == "Deployed" {
				return client.ErrStopEvents
			}
			return nil
		})
		if err != nil {
			seen = append(seen, "error "+err.Error())
		}
		followed <- seen
	}()
	e.MustCLI(0, "deploy", "log/web", "--wait")
	select {
	case seen := <-followed:
		require.Contains(t, seen, "state Deploying", "follow saw the deploy as it ran: %v", seen)
		require.Equal(t, "state Deployed", seen[len(seen)-1])
	case <-fctx.Done():
		t.Fatal("--follow never saw the instance become Deployed")
	}

	var log []client.InstanceEvent
	runs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(e.MustCLI(0, "events", "log/web", "--json").Stdout), "\n") {
		var ev client.InstanceEvent
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		log = append(log, ev)
		runs[ev.Run] = true
	}
	require.GreaterOrEqual(t, len(runs), 2, "the log spans continue-as-new runs")
	// A step's start is logged only when the step ran past contract.StepStartDelay or failed; each
	// step's end is always there, from the next step's signal or the pipeline's result.
	want := []string{
		"requested provision erin e2e", "state Provisioning", "step open-mr done",
		"step merge-mr done", "state ConfigurationCreated", "result provision succeeded", "continued  ",
		"requested deploy erin e2e", "state Deploying", "step tf-apply done", "step deploy-app done",
		"state Deployed", "result deploy succeeded",
	}
	i := 0
	for _, ev := range log {
		key := ev.Kind + " " + ev.Status
		switch ev.Kind {
		case "requested":
			key = ev.Kind + " " + ev.Operation + " " + ev.Actor + " " + ev.Note
		case "result":
			key = ev.Kind + " " + ev.Operation + " " + ev.Status
		case "step":
			key = ev.Kind + " " + ev.Step + " " + ev.Status
		case "continued":
			key = "continued  "
		}
		if i < len(want) && key == want[i] {
			i++
		}
	}
	require.Equal(t, len(want), i, "in order, the log lacks %q; got %d entries", want[min(i, len(want)-1)], len(log))

	// A second deploy logs its own steps: the same step names in another operation are new entries.
	e.MustCLI(0, "deploy", "log/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hi\n"), "--wait")
	text := e.MustCLI(0, "events", "log/web").Stdout
	require.Equal(t, 2, strings.Count(text, "step tf-apply done"), text)
	require.Contains(t, text, "result     deploy succeeded: Deployed")

	usage := e.MustCLI(2, "events", "--follow")
	require.Contains(t, usage.Stderr, "--follow")
}
