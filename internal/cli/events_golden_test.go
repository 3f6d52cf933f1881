package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// goldenZone is where the golden files' plain times are shown: not UTC, so the conversion shows.
var goldenZone = time.FixedZone("UTC+2", 2*60*60)

func goldenTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// goldenEvents is an instance's log with every kind of entry, as the history reader makes them.
var goldenEvents = []client.InstanceEvent{
	{At: goldenTime("2026-03-01T09:00:00Z"), Run: "run-1", Kind: "run", Text: "run run-1 started"},
	{At: goldenTime("2026-03-01T09:00:00.125Z"), Run: "run-1", Kind: "requested", Operation: "provision",
		Actor: "alice@laptop", Text: "provision requested by alice@laptop: new customer"},
	{At: goldenTime("2026-03-01T09:00:00.250Z"), Run: "run-1", Kind: "state", Status: "Provisioning", Text: "state Provisioning"},
	{At: goldenTime("2026-03-01T09:00:00.300Z"), Run: "run-1", Kind: "pipeline", Operation: "provision",
		Text: "pipeline instance/acme/shop/provision-op-1/attempt-1 started"},
	{At: goldenTime("2026-03-01T09:00:01.002Z"), Run: "run-1", Kind: "step", Step: "fetch-config", Status: "running",
		Text: "step fetch-config running (attempt 1)"},
	{At: goldenTime("2026-03-01T09:00:02.040Z"), Run: "run-1", Kind: "step", Step: "fetch-config", Status: "done",
		Text: "step fetch-config done (attempt 1): revision 4f2a9c1"},
	{At: goldenTime("2026-03-01T09:00:09.999Z"), Run: "run-1", Kind: "step", Step: "tf-apply", Status: "failed",
		Text: "step tf-apply failed (attempt 1): quota exceeded"},
	{At: goldenTime("2026-03-01T09:00:10Z"), Run: "run-1", Kind: "result", Operation: "provision", Status: "failed",
		Text: "provision failed: ProvisioningFailed (step tf-apply: quota exceeded)"},
	{At: goldenTime("2026-03-01T09:05:00Z"), Run: "run-1", Kind: "result", Operation: "deploy", Status: "refused",
		Text: "deploy refused: deploy is not allowed in state ProvisioningFailed"},
	{At: goldenTime("2026-03-01T09:06:30.5Z"), Run: "run-1", Kind: "observed", Status: "Degraded/CrashLoopBackOff",
		Text: "observed Running Degraded/CrashLoopBackOff by observer-1"},
	{At: goldenTime("2026-03-01T09:07:00Z"), Run: "run-1", Kind: "result", Operation: "refresh", Status: "done",
		Text: "refresh: observed Running Degraded, applied"},
	{At: goldenTime("2026-03-01T23:59:59.999Z"), Run: "run-1", Kind: "continued", Text: "continued as new in run run-2"},
	{At: goldenTime("2026-03-02T00:00:00Z"), Run: "run-2", Kind: "run", Text: "run run-2 started"},
}

// goldenDeliveries are webhook deliveries, newest first: one still running, one that started
// a command and refused others.
var goldenDeliveries = []client.DeliveryEvent{
	{Workflow: "delivery-7c1e", Status: "running", Started: goldenTime("2026-03-01T10:00:00.750Z")},
	{Workflow: "delivery-3b9d", Status: "completed", Started: goldenTime("2026-03-01T09:59:58Z"),
		Closed: new(goldenTime("2026-03-01T09:59:59Z")), Outcomes: []contract.DeliveryOutcome{
			{Instance: "acme/shop", Operation: "deploy", Request: "req-1", Workflow: "instance/acme/shop", Started: true},
			{Instance: "acme/blog", Operation: "archive", Error: "acme/blog: no such instance"},
			{Error: "signature does not match"},
		}},
}

func TestEventsGolden(t *testing.T) {
	for _, tc := range []struct {
		name, format string
	}{{"events.txt", formatText}, {"events.jsonl", formatJSON}, {"events.jsonl", formatJSONL}, {"events.yaml", formatYAML}} {
		t.Run(tc.format, func(t *testing.T) {
			var out bytes.Buffer
			g := &globals{streams: Streams{Out: &out}}
			print := g.printEvent(&outputFormat{value: tc.format}, goldenZone)
			for _, ev := range goldenEvents {
				require.NoError(t, print(ev))
			}
			golden(t, tc.name, out.Bytes())
		})
	}
}

func TestDeliveriesGolden(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		evs          []client.DeliveryEvent
	}{
		{"deliveries.txt", formatText, goldenDeliveries},
		{"deliveries.json", formatJSON, goldenDeliveries},
		{"deliveries.jsonl", formatJSONL, goldenDeliveries},
		{"deliveries.yaml", formatYAML, goldenDeliveries},
		{"deliveries-none.json", formatJSON, nil},
		{"deliveries-none.yaml", formatYAML, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			g := &globals{streams: Streams{Out: &out}}
			require.NoError(t, g.printDeliveries(tc.evs, &outputFormat{value: tc.format}, goldenZone))
			golden(t, tc.name, out.Bytes())
		})
	}
}
