package terraform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
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
	r := newRunner(t, WithOutput(out))
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
