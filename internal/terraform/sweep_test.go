package terraform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// markedProcesses lists the processes whose environment holds NAME=mark, from /proc.
func markedProcesses(t *testing.T, name, mark string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if bytes.Contains(env, []byte(name+"="+mark)) {
			cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			out = append(out, e.Name()+": "+string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// provisioned is a resource whose local-exec provisioner runs command with SWEEP_MARK=mark.
func provisioned(command, mark string) map[string][]byte {
	return map[string][]byte{"main.tf": []byte(fmt.Sprintf(`
resource "terraform_data" "hook" {
  input = "x"
  provisioner "local-exec" {
    command     = %q
    environment = { SWEEP_MARK = %q }
  }
}
`, command, mark))}
}

// An apply cancelled mid-provisioner (a worker's grace ran out): terraform gets SIGINT and
// kills only the provisioner's shell; the shell's child must not outlive the step.
func TestCancelledApplyLeavesNoProvisionerChild(t *testing.T) {
	out := &safeBuffer{}
	// The interrupt waits 1s (half the delay) for the provisioner, which sleeps on past it.
	r := newRunner(t, WithOutput(out), WithWaitDelay(2*time.Second))
	ws := Workspace{Tenant: "acme", Name: "sweep"}
	mark := fmt.Sprintf("cancel-%d", time.Now().UnixNano())
	// Not exec: the sleep is the shell's child, which terraform's interrupt does not reach.
	ready(t, r, ws, provisioned("echo started; sleep 30; echo finished", mark))
	ctx := context.Background()
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := r.Apply(actx, ws, p); done <- err }()
	for !strings.Contains(out.String(), "started") || len(markedProcesses(t, "SWEEP_MARK", mark)) < 2 {
		select {
		case err := <-done:
			t.Fatalf("apply ended before its provisioner ran: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	err = <-done
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.Contains(t, out.String(), "local-exec provisioner error", "terraform killed the provisioner's shell on SIGINT")
	require.Empty(t, markedProcesses(t, "SWEEP_MARK", mark), "the provisioner's child outlived the step")
	_, held, err := r.Lock(ctx, ws)
	require.NoError(t, err)
	require.False(t, held, "terraform released its lock after SIGINT")
}

// A provisioner that leaves a process behind on success (its own session, its output
// elsewhere) does not leave it running on the worker.
func TestAppliedProvisionerLeavesNoBackgroundProcess(t *testing.T) {
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "daemon"}
	mark := fmt.Sprintf("daemon-%d", time.Now().UnixNano())
	ready(t, r, ws, provisioned("setsid sleep 31 >/dev/null 2>&1 < /dev/null &", mark))
	ctx := context.Background()
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	require.Empty(t, markedProcesses(t, "SWEEP_MARK", mark), "the provisioner's background process outlived the apply")
}

// An apply cancelled while a provisioner runs (a worker's grace ran out) lets the provisioner
// finish before terraform's SIGINT: the resource is complete, not tainted, so the retry does
// not replace it and the provisioner does not run twice.
func TestInterruptWaitsForARunningProvisioner(t *testing.T) {
	out := &safeBuffer{}
	r := newRunner(t, WithOutput(out))
	ws := Workspace{Tenant: "acme", Name: "held"}
	mark := fmt.Sprintf("held-%d", time.Now().UnixNano())
	runs := filepath.Join(t.TempDir(), "runs")
	ready(t, r, ws, map[string][]byte{"main.tf": []byte(fmt.Sprintf(`
resource "terraform_data" "hook" {
  input = "x"
  provisioner "local-exec" {
    command     = "echo started; sleep 2; echo ran >> %s"
    environment = { SWEEP_MARK = %q }
  }
}
resource "terraform_data" "after" {
  depends_on = [terraform_data.hook]
  input      = "y"
}
`, runs, mark))})
	ctx := context.Background()
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := r.Apply(actx, ws, p); done <- err }()
	for !strings.Contains(out.String(), "started") {
		select {
		case err := <-done:
			t.Fatalf("apply ended before its provisioner ran: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	err = <-done
	b, rerr := os.ReadFile(runs)
	require.NoError(t, rerr, "the provisioner finished: %v", err)
	require.Equal(t, "ran\n", string(b))
	res, rerr := r.Resources(ctx, ws)
	require.NoError(t, rerr)
	for _, x := range res {
		require.False(t, x.Tainted, "the stop tainted %s", x.Address)
	}
	require.Empty(t, markedProcesses(t, "SWEEP_MARK", mark))
	if err != nil {
		// Interrupted after the provisioner's resource: the retry's saved plan is stale, and a
		// new one has only what is left.
		require.True(t, errors.Is(err, context.Canceled), "%v", err)
		_, err = r.Apply(ctx, ws, p)
		var stale *StalePlanError
		require.ErrorAs(t, err, &stale)
		again, err := r.Plan(ctx, ws, "deploy-again", false)
		require.NoError(t, err)
		require.Zero(t, again.Summary.Destroy, "nothing replaced")
		_, err = r.Apply(ctx, ws, again)
		require.NoError(t, err)
	}
	res, err = r.Resources(ctx, ws)
	require.NoError(t, err)
	require.Len(t, res, 2)
	b, err = os.ReadFile(runs)
	require.NoError(t, err)
	require.Equal(t, "ran\n", string(b), "the provisioner ran once")
}
