package temporalcluster

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

const helperEnv = "SLIPWAY_TEMPORALCLUSTER_HELPER"

// TestHelperPanics is not a test on its own: TestNodesDieWhenTheTestPanics runs it in a
// child process that starts a cluster and then panics in a goroutine, so no cleanup runs.
func TestHelperPanics(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for TestNodesDieWhenTheTestPanics")
	}
	pg := postgres.Start(t)
	c := Start(t, pg, 1)
	fmt.Printf("DIR %s\nDIR %s\n", filepath.Dir(pg.DataDir), filepath.Dir(c.Nodes()[0].Dir()))
	for _, n := range c.Nodes() {
		fmt.Printf("NODE %d\n", n.Pid())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		panic("the test blows up with the cluster running")
	}()
	<-done
}

func TestNodesDieWhenTheTestPanics(t *testing.T) {
	RequireBinaries(t, "")
	// As a subreaper this test inherits the orphaned node, so it can see what killed it.
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	require.Zero(t, errno)
	defer func() { _, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) }()

	helper := exec.Command(os.Args[0], "-test.run=^TestHelperPanics$", "-test.count=1", "-test.v")
	helper.Env = append(os.Environ(), helperEnv+"=1")
	stdout, err := helper.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, helper.Start())
	var pids []int
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		var pid int
		var dir string
		if _, err := fmt.Sscanf(sc.Text(), "NODE %d", &pid); err == nil {
			pids = append(pids, pid)
		}
		if _, err := fmt.Sscanf(sc.Text(), "DIR %s", &dir); err == nil && strings.HasPrefix(dir, os.TempDir()) {
			t.Cleanup(func() { os.RemoveAll(dir) }) // the panicking helper cleaned up nothing
		}
	}
	err = helper.Wait()
	require.Error(t, err, "the helper panics")
	require.NotEmpty(t, pids, "helper never reported its node:\n%v", lines)

	for _, pid := range pids {
		status, exited := waitOrphan(t, pid)
		require.True(t, exited, "node %d outlived the test process", pid)
		assert.True(t, status.Signaled(), "status %v", status)
		assert.Equal(t, syscall.SIGKILL, status.Signal(), "killed by Pdeathsig, not by something else")
	}
}

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER from <linux/prctl.h>

// waitOrphan reaps pid once it dies (the bound only keeps a broken build from hanging).
func waitOrphan(t *testing.T, pid int) (syscall.WaitStatus, bool) {
	t.Helper()
	status, exited, err := proc.ReapOrphan(pid, 30*time.Second)
	require.NoError(t, err)
	return status, exited
}
