package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireBwrap returns the bwrap sandbox; without bubblewrap the test skips unless
// SLIPWAY_REQUIRE_BWRAP=1, where it fails.
func requireBwrap(t *testing.T) Sandbox {
	t.Helper()
	s, err := SandboxFromEnv(context.Background(), func(k string) string {
		if k == EnvSandbox {
			return SandboxBwrap
		}
		return os.Getenv(k)
	})
	if err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_BWRAP") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return s
}

// processWith reports whether a process on the host has token in its command line.
func processWith(token string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), token) && alive(mustAtoi(e.Name())) {
			return true
		}
	}
	return false
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// watchFor polls the host's processes for token until stop is closed; seen says whether it
// ever appeared (the attack really started a child).
func watchFor(token string, stop <-chan struct{}) *atomic.Bool {
	var seen atomic.Bool
	go func() {
		for {
			if processWith(token) {
				seen.Store(true)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return &seen
}

// hostileHook tries everything a hook should not manage: the worker's environment through
// /proc/$PPID and /proc/<worker pid>, the host's processes, a worker file holding a key, and a
// child that leaves the process group with setsid to outlive the hook.
func hostileHook(keyFile, token string, wait bool) string {
	s := fmt.Sprintf(`echo "parent-environ: $(tr '\0' ' ' < /proc/$PPID/environ)"
echo "worker-environ: $(tr '\0' ' ' < /proc/$WORKER_PID/environ 2>&1)"
echo "processes: $(ls /proc | grep -E '^[0-9]+$' | tr '\n' ' ')"
echo "key-file: $(cat %s 2>&1)"
echo "uid: $(id -u)"
echo "env: $(env | tr '\n' ' ')"
setsid sh -c 'exec sleep %s' >/dev/null 2>&1 </dev/null &
up() { for f in /proc/[0-9]*/cmdline; do [ "$(tr '\0' ' ' < $f 2>/dev/null)" = "sleep %s " ] && return 0; done; return 1; }
until up; do sleep 0.05; done
echo started
`, keyFile, token, token)
	if wait {
		return s + "sleep 600\n"
	}
	return s + "echo 0\n"
}

func TestBwrapHookSeesNothingOfTheWorker(t *testing.T) {
	sb := requireBwrap(t)
	t.Setenv("SLIPWAY_CODEC_KEY", "k1:workerkeyvalue")
	keyFile := filepath.Join(t.TempDir(), "codec.keys")
	require.NoError(t, os.WriteFile(keyFile, []byte("k1:filekeyvalue\n"), 0o600))

	for _, atDeadline := range []bool{false, true} {
		t.Run(fmt.Sprintf("killed at deadline %v", atDeadline), func(t *testing.T) {
			token := fmt.Sprintf("1%06d", time.Now().UnixNano()%1000000) // a sleep only this run starts
			var rec recorder
			r := rec.runner("WORKER_PID=" + strconv.Itoa(os.Getpid()))
			r.Sandbox = sb
			c := execCall(hostileHook(keyFile, token, atDeadline))
			c.Parameters = map[string]any{"region": "$(id -un)`id`", "db-size": 3}
			if atDeadline {
				c.Deadline = time.Now().Add(2 * time.Second)
			}
			stop := make(chan struct{})
			seen := watchFor(token, stop)
			out, err := r.Run(context.Background(), c)
			if atDeadline {
				var de *DeadlineError
				require.ErrorAs(t, err, &de)
			} else {
				require.NoError(t, err)
			}
			t.Log(out.Output)
			assert.Eventually(t, func() bool { return !processWith(token) }, 5*time.Second, 20*time.Millisecond,
				"the setsid child died with its hook")
			close(stop)
			if atDeadline {
				assert.True(t, seen.Load(), "the setsid child ran on the host while the hook did")
			}

			assert.Contains(t, out.Output, "started", "the hook saw its setsid child running (the attack was performed)")
			assert.NotContains(t, out.Output, "workerkeyvalue", "the worker's environment is not readable")
			assert.NotContains(t, out.Output, "filekeyvalue", "the worker's files are not visible")
			assert.Contains(t, out.Output, "key-file: cat: "+keyFile+": No such file or directory")
			assert.Contains(t, out.Output, "uid: 65534")
			assert.Regexp(t, `processes: (\d \d?\s?){1,4}\n`, out.Output, "only the sandbox's own few processes")
			assert.NotContains(t, out.Output, "processes: "+strconv.Itoa(os.Getpid()))
			assert.Contains(t, out.Output, "SLIPWAY_PARAM_REGION=$(id -un)`id`", "a parameter arrives as data, unexpanded")
			assert.Contains(t, out.Output, "SLIPWAY_PARAM_DB_SIZE=3")
		})
	}
}

func TestSandboxRefusesWithoutConfinement(t *testing.T) {
	var rec recorder
	r := rec.runner()
	r.Sandbox = Sandbox{}
	_, err := r.Run(context.Background(), execCall("echo 0\n"))
	var fe *FailedError
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Err, "exec hooks are refused")
}

func TestSandboxFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	_, err := SandboxFromEnv(context.Background(), env(map[string]string{EnvSandbox: "jail"}))
	assert.ErrorContains(t, err, EnvSandbox+`: "jail" is not a confinement`)
	_, err = SandboxFromEnv(context.Background(), env(map[string]string{EnvSandbox: SandboxUser}))
	assert.ErrorContains(t, err, "set "+EnvHookUser)
	_, err = SandboxFromEnv(context.Background(), env(map[string]string{EnvSandbox: SandboxUser, EnvHookUser: "root"}))
	assert.ErrorContains(t, err, "root or the worker's own user")
	_, err = SandboxFromEnv(context.Background(), env(map[string]string{EnvSandbox: SandboxBwrap, EnvBwrap: "/nonexistent/bwrap"}))
	assert.ErrorContains(t, err, "bubblewrap not found")
	s, err := SandboxFromEnv(context.Background(), env(map[string]string{EnvBwrap: "/nonexistent/bwrap"}))
	require.NoError(t, err, "by default a host without bubblewrap or a hook user refuses exec hooks, it still starts")
	assert.Equal(t, "", s.Mode)
	s, err = SandboxFromEnv(context.Background(), env(map[string]string{EnvSandbox: SandboxNone}))
	require.NoError(t, err)
	assert.Contains(t, s.String(), "UNCONFINED")
}

// Without bubblewrap, a dedicated user: the hook cannot read the worker's environment or its
// private files (it still sees the host's processes, which the worker logs at start).
func TestUserHookCannotReadTheWorker(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a hook as another user needs root")
	}
	sb, err := SandboxFromEnv(context.Background(), func(k string) string {
		return map[string]string{EnvSandbox: SandboxUser, EnvHookUser: "nobody"}[k]
	})
	require.NoError(t, err)
	t.Setenv("SLIPWAY_CODEC_KEY", "k1:workerkeyvalue")
	keyFile := filepath.Join(t.TempDir(), "codec.keys")
	require.NoError(t, os.WriteFile(keyFile, []byte("k1:filekeyvalue\n"), 0o600))
	var rec recorder
	r := rec.runner("WORKER_PID=" + strconv.Itoa(os.Getpid()))
	r.Sandbox = sb
	out, err := r.Run(context.Background(), execCall(fmt.Sprintf(`echo "worker-environ: $(tr '\0' ' ' < /proc/$WORKER_PID/environ 2>&1)"
echo "key-file: $(cat %s 2>&1)"
echo "uid: $(id -u)"
echo 0
`, keyFile)))
	require.NoError(t, err)
	assert.NotContains(t, out.Output, "workerkeyvalue")
	assert.NotContains(t, out.Output, "filekeyvalue")
	assert.Contains(t, out.Output, "uid: 65534")
	assert.Contains(t, out.Output, "Permission denied")
	assert.Contains(t, sb.String(), "dedicated user nobody")
}
