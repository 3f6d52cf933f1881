package devenv

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

const helperEnv = "SLIPWAY_DEVENV_HELPER"

// TestHelperServerOwner is not a test on its own: TestServerDiesWithItsParent runs
// it in a child process that starts a server and then gets SIGKILLed.
func TestHelperServerOwner(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for TestServerDiesWithItsParent")
	}
	s, err := StartServer(context.Background(), ServerOptions{Headless: true})
	require.NoError(t, err)
	fmt.Printf("SERVER %d %s\n", s.PID(), s.Address)
	// Block until the parent goes away: it closes our stdin or kills us.
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = s.Stop()
}

func TestServerDiesWithItsParent(t *testing.T) {
	requireTemporal(t)
	// As a subreaper this test inherits the orphaned server, so it can see what killed it.
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	require.Zero(t, errno)
	defer func() { _, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) }()

	owner := exec.Command(os.Args[0], "-test.run=^TestHelperServerOwner$", "-test.count=1")
	owner.Env = append(os.Environ(), helperEnv+"=1")
	owner.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := owner.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	stdout, err := owner.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, owner.Start())

	var pid int
	var addr string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "SERVER %d %s", &pid, &addr); err == nil {
			break
		}
	}
	require.NotZero(t, pid, "helper never reported its server")
	require.True(t, Reachable(context.Background(), addr, 5*time.Second))

	require.NoError(t, owner.Process.Signal(syscall.SIGKILL))
	_ = owner.Wait()

	status, exited := waitOrphan(t, pid)
	require.True(t, exited, "the server outlived its parent")
	require.True(t, status.Signaled(), "status %v", status)
	assert.Equal(t, syscall.SIGKILL, status.Signal(), "killed by Pdeathsig, not by something else")
	assert.False(t, Reachable(context.Background(), addr, time.Second))
}

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER from <linux/prctl.h>

// waitOrphan reaps pid once it dies (the bound only keeps a broken build from hanging).
func waitOrphan(t *testing.T, pid int) (syscall.WaitStatus, bool) {
	t.Helper()
	status, exited, err := proc.ReapOrphan(pid, 30*time.Second)
	require.NoError(t, err)
	return status, exited
}
