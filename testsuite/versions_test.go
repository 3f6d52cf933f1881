package testsuite

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/workflows"
)

// The registry names exactly the committed histories that pin each old branch: deleting the
// branch (raising GetVersion's minSupported past it, as a retirement does) fails the replay of
// every history it names, none of which recorded a newer version, and of no other history.
func TestVersionRegistryNamesTheHistoriesThatPinEachOldBranch(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(HistoriesDir(), "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	keys, err := attest.Parse("HistoryAttestKey", HistoryAttestKey)
	require.NoError(t, err)
	markers := map[string]map[string]workflow.Version{} // file -> change ID -> recorded version
	types := map[string]string{}
	for _, f := range files {
		markers[f], types[f] = versionMarkers(t, f)
	}
	for _, c := range workflows.Changes {
		// Only the change's workflow types are replayed below: every type that recorded it must be one.
		for _, f := range files {
			if _, ok := markers[f][c.ID]; ok && len(c.Workflows) > 0 {
				require.Contains(t, c.Workflows, types[f], "%s records %s: workflows.Changes must name its type", f, c.ID)
			}
		}
		var older []string // the histories an older branch pins: they fail every later retirement too
		for v := workflow.DefaultVersion; v < c.Max; v = next(v) {
			var pinned []string
			for _, f := range files {
				if recorded, ok := markers[f][c.ID]; ok && recorded > v {
					continue // took a newer branch: cannot pin this one
				}
				if len(c.Workflows) > 0 && !slices.Contains(c.Workflows, types[f]) {
					continue
				}
				if replayWithout(t, keys, f, c.ID, next(v)) != nil {
					if dir := filepath.Base(filepath.Dir(f)); !slices.Contains(pinned, dir) && !slices.Contains(older, dir) {
						pinned = append(pinned, dir)
					}
				}
			}
			slices.Sort(pinned)
			want := slices.Clone(c.Pinned[v])
			slices.Sort(want)
			for _, dir := range want {
				require.DirExists(t, filepath.Join(HistoriesDir(), dir), "%s version %d names it", c.ID, v)
			}
			older = append(older, pinned...)
			require.Equal(t, want, pinned, "the histories that pin %s version %d (workflows.Changes)", c.ID, v)
		}
	}
}

func next(v workflow.Version) workflow.Version {
	if v == workflow.DefaultVersion {
		return 1
	}
	return v + 1
}

// replayWithout replays the history at path with change's branches below min deleted.
func replayWithout(t *testing.T, keys *attest.Keyring, path, change string, min workflow.Version) error {
	t.Helper()
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
		Interceptors: []interceptor.WorkerInterceptor{&retiring{change: change, min: min}, attest.WorkerInterceptor(keys)}})
	require.NoError(t, err)
	workerapp.RegisterWorkflows(r)
	opts := worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: workflowIDOf(t, path)}}
	return r.ReplayWorkflowHistoryWithOptions(logging.NewTemporal(logging.Nop()), readHistory(t, path), opts)
}

// versionMarkers reads the version markers a history recorded, and its workflow type.
func versionMarkers(t *testing.T, path string) (map[string]workflow.Version, string) {
	t.Helper()
	h := readHistory(t, path)
	out := map[string]workflow.Version{}
	for _, ev := range h.Events {
		m := ev.GetMarkerRecordedEventAttributes()
		if m == nil || m.MarkerName != "Version" {
			continue
		}
		var id string
		var v workflow.Version
		require.NoError(t, json.Unmarshal(m.Details["change-id"].Payloads[0].Data, &id))
		require.NoError(t, json.Unmarshal(m.Details["version"].Payloads[0].Data, &v))
		out[id] = v
	}
	return out, h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
}

// retiring raises one change's minSupported, as the code does once a branch is deleted.
type retiring struct {
	interceptor.WorkerInterceptorBase
	change string
	min    workflow.Version
}

func (r *retiring) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &retiringInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, r: r}
}

type retiringInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	r *retiring
}

func (i *retiringInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&retiringOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, r: i.r})
}

type retiringOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	r *retiring
}

func (o *retiringOutbound) GetVersion(ctx workflow.Context, changeID string, minSupported, maxSupported workflow.Version) workflow.Version {
	if changeID == o.r.change {
		minSupported = max(minSupported, o.r.min)
	}
	return o.Next.GetVersion(ctx, changeID, minSupported, maxSupported)
}
