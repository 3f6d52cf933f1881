package argostack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWaitReadyReportsExitWithLogTail(t *testing.T) {
	dir := t.TempDir()
	p, err := spawn(dir, "crasher", "/bin/sh", []string{"-c", "echo boom-marker; exit 3"}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	err = waitReady(context.Background(), p, "GET /healthz", func(context.Context) (bool, error) {
		return false, errors.New("not yet")
	})
	var ce *ComponentError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "crasher", ce.Component)
	assert.Contains(t, ce.LogTail, "boom-marker")
	assert.Contains(t, err.Error(), "exit status 3")
	assert.Contains(t, err.Error(), "not yet")
}

func TestStopEndsTheWholeProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	p, err := spawn(dir, "parent", "/bin/sh", []string{"-c", "sleep 300 & echo $! > " + pidFile + "; wait"}, nil)
	require.NoError(t, err)
	var child int
	for deadline := time.Now().Add(30 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	require.NotZero(t, child, "child pid written")
	require.NoError(t, p.Stop())
	require.Error(t, p.Exited(), "leader has exited")
	assert.False(t, alive(t, child), "grandchild %d outlived stop", child)
}

// alive reports whether pid still runs; a zombie awaiting its reaper counts as gone.
func alive(t *testing.T, pid int) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return false
		}
	}
	return true
}

func TestMissingToolsNameTheMakeTarget(t *testing.T) {
	_, err := findTools(t.TempDir())
	var me *MissingToolError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "kube-apiserver", me.Component)
	assert.Contains(t, err.Error(), "make argocd-stack")
}
