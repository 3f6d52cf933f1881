package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestBatchTimesRunFromTheRolloutsStart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &contract.RolloutStatus{RolloutState: contract.RolloutState{StartedAt: t0, Ended: []contract.BatchRecord{
		{Batch: 1, At: t0.Add(2 * time.Second)}, {Batch: 2, At: t0.Add(7 * time.Second)}, {Batch: 3, At: t0.Add(9 * time.Second)}}}}
	mean, slowest, ok := batchTimes(st)
	require.True(t, ok)
	assert.Equal(t, 3*time.Second, mean)
	assert.Equal(t, 5*time.Second, slowest)
	_, _, ok = batchTimes(&contract.RolloutStatus{})
	assert.False(t, ok, "no batch ended")
}

func TestFailedRolloutSaysWhereItStood(t *testing.T) {
	st := &contract.RolloutStatus{RolloutState: contract.RolloutState{Phase: contract.PhaseStopped, Batch: 3, Batches: 10,
		Failures: 1, Reason: "1 instance(s) failed", Instances: []contract.RolloutInstance{
			{RolloutAction: contract.RolloutAction{Ref: contract.Ref{Tenant: "fleet", Name: "web-0"}}, Status: contract.RolloutUpdated},
			{RolloutAction: contract.RolloutAction{Ref: contract.Ref{Tenant: "fleet", Name: "web-1"}}, Status: contract.RolloutFailed, Error: "boom"},
		}}, Updated: 1, Total: 2}
	line := statusLine(st)
	assert.Contains(t, line, "phase Stopped, batch 3/10")
	assert.Contains(t, line, "ready/updated/total 0/1/2")
	assert.Contains(t, line, "fleet/web-1 failed boom")
	assert.NotContains(t, line, "web-0")
	assert.Equal(t, "; no status", statusLine(nil))

	var rf *rowFailedError
	require.ErrorAs(t, fmt.Errorf("rollout: %w", error(&rowFailedError{"run", "never completed"})), &rf)
	assert.Equal(t, "run FAILED: never completed", rf.Error())
}
