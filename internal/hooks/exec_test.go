package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// recorder is a Runner whose sleeps return at once and whose heartbeats are kept.
type recorder struct {
	mu     sync.Mutex
	sleeps []time.Duration
	beats  []string
}

func (rec *recorder) runner(env ...string) *Runner {
	return &Runner{
		// These tests are about the protocol and write to the test's own directories.
		Sandbox: Sandbox{Mode: SandboxNone},
		Env:     append([]string{"PATH=" + os.Getenv("PATH")}, env...),
		Sleep: func(_ context.Context, d time.Duration) error {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.sleeps = append(rec.sleeps, d)
			return nil
		},
		Heartbeat: func(detail string) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.beats = append(rec.beats, detail)
		},
	}
}

func execCall(script string) Call {
	return Call{
		Spec:      Spec{Name: Drain, Kind: KindExec, Exec: "hooks/drain.sh", Deadline: time.Minute},
		Script:    []byte(script),
		Tenant:    "acme",
		Name:      "web",
		Operation: "deprovision",
		Current:   contract.HookState{State: "Ready", App: "running", Data: "available"},
		Next:      contract.HookState{State: "Deprovisioned", App: "deleted", Data: "deleted", Operation: "deprovision", Reason: "asked by alice"},
		Deadline:  time.Now().Add(time.Minute),
	}
}

func TestExecDynamicDrain(t *testing.T) {
	t.Parallel()
	var rec recorder
	out, err := rec.runner().Run(context.Background(), execCall(`echo "draining call $SLIPWAY_CALL"
case $SLIPWAY_CALL in 1|2) echo -1 ;; *) echo 0 ;; esac
`))
	require.NoError(t, err)
	assert.Equal(t, contract.HookOutput{Kind: KindExec, Calls: 3, Waited: 2 * time.Second, Answers: []string{"-1", "-1", "0"},
		Output: "draining call 1\n-1\ndraining call 2\n-1\ndraining call 3\n0\n"}, out)
	assert.Equal(t, []time.Duration{time.Second, time.Second}, rec.sleeps)
	assert.Equal(t, []string{"drain: call 1", "drain: call 1, waiting 1s (dynamic drain)", "drain: call 2",
		"drain: call 2, waiting 1s (dynamic drain)", "drain: call 3"}, rec.beats)
}

func TestExecStaticDrain(t *testing.T) {
	t.Parallel()
	var rec recorder
	out, err := rec.runner().Run(context.Background(), execCall("echo starting\necho\necho ' 5 '\necho\n"))
	require.NoError(t, err)
	assert.Equal(t, 1, out.Calls)
	assert.Equal(t, []string{"5"}, out.Answers, "the last non-empty line, trimmed")
	assert.Equal(t, 5*time.Second, out.Waited)
	assert.Equal(t, []time.Duration{5 * time.Second}, rec.sleeps)
}

func TestExecLongWaitHeartbeats(t *testing.T) {
	t.Parallel()
	var rec recorder
	out, err := rec.runner().Run(context.Background(), execCall("echo 12"))
	require.NoError(t, err)
	assert.Equal(t, 12*time.Second, out.Waited)
	assert.Equal(t, []time.Duration{5 * time.Second, 5 * time.Second, 2 * time.Second}, rec.sleeps)
	assert.Equal(t, []string{"drain: call 1", "drain: call 1, waiting 12s (static drain)",
		"drain: call 1, waiting 7s (static drain)", "drain: call 1, waiting 2s (static drain)"}, rec.beats)
}

func TestExecEmptyAnswerIsDone(t *testing.T) {
	t.Parallel()
	for _, script := range []string{"", "true", "echo '  '\necho >&2 noise", "printf 0"} {
		var rec recorder
		out, err := rec.runner().Run(context.Background(), execCall(script))
		require.NoError(t, err, "%q", script)
		assert.Equal(t, 1, out.Calls, "%q", script)
		assert.Zero(t, out.Waited, "%q", script)
		assert.Empty(t, rec.sleeps, "%q", script)
	}
}

func TestExecOutputHasStderr(t *testing.T) {
	t.Parallel()
	var rec recorder
	out, err := rec.runner().Run(context.Background(), execCall("echo to-stderr >&2\necho 0"))
	require.NoError(t, err)
	// Two pipes: the order between them is not kept, only what each says.
	assert.ElementsMatch(t, []string{"to-stderr", "0"}, strings.Fields(out.Output))
	assert.Equal(t, []string{"0"}, out.Answers, "only stdout answers")
}

func TestExecShebang(t *testing.T) {
	t.Parallel()
	var rec recorder
	// cat prints the script, so its last line answers; /bin/sh would fail on a command "0".
	out, err := rec.runner().Run(context.Background(), execCall("#!/bin/cat\n0\n"))
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/cat\n0\n", out.Output)
}

func TestExecFails(t *testing.T) {
	t.Parallel()
	var rec recorder
	out, err := rec.runner().Run(context.Background(), execCall("echo 'cannot reach the queue' >&2\nexit 3\n"))
	var fe *FailedError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FailedError{Hook: Drain, Kind: KindExec, Target: "hooks/drain.sh", Call: 1, ExitCode: 3, Output: "cannot reach the queue\n"}, *fe)
	assert.Equal(t, "drain hook (exec hooks/drain.sh) exited 3 on call 1: cannot reach the queue", err.Error())
	assert.Equal(t, 1, out.Calls)
	assert.Equal(t, "cannot reach the queue\n", out.Output)
	assert.Empty(t, out.Answers)
}

func TestExecGarbageAnswer(t *testing.T) {
	t.Parallel()
	var rec recorder
	out, err := rec.runner().Run(context.Background(), execCall("echo 'ok, drained'"))
	var ae *AnswerError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, AnswerError{Hook: Drain, Call: 1, Answer: "ok, drained"}, *ae)
	assert.Contains(t, err.Error(), `drain hook answered "ok, drained" on call 1`)
	assert.Equal(t, []string{"ok, drained"}, out.Answers)

	_, err = rec.runner().Run(context.Background(), execCall("echo "+strings.Repeat("x", 200)))
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, strings.Repeat("x", 80)+"…", ae.Answer, "truncated to 80 bytes")
}

func TestExecWaitPastDeadline(t *testing.T) {
	t.Parallel()
	var rec recorder
	c := execCall("echo -100")
	c.Deadline = time.Now().Add(10 * time.Second)
	out, err := rec.runner().Run(context.Background(), c)
	var de *DeadlineError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, DeadlineError{Hook: Drain, Calls: 1, Deadline: c.Deadline, Wait: 100 * time.Second, Again: true}, *de)
	assert.Contains(t, err.Error(), "drain hook asked to be called again after 1m40s at call 1, past its deadline ")
	assert.Empty(t, rec.sleeps, "a wait that cannot end in time is not started")
	assert.Equal(t, 1, out.Calls)
}

func TestExecKilledAtDeadline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	var rec recorder
	c := execCall(`sleep 600 &
echo $! > "$PID_FILE"
echo started
wait
`)
	c.Deadline = time.Now().Add(time.Second)
	start := time.Now()
	out, err := rec.runner("PID_FILE="+pidFile).Run(context.Background(), c)
	elapsed := time.Since(start)

	var de *DeadlineError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, DeadlineError{Hook: Drain, Calls: 1, Deadline: c.Deadline}, *de)
	assert.Contains(t, err.Error(), "drain hook was still running call 1 at its deadline ")
	assert.Less(t, elapsed, 3*time.Second, "killed within ~2s of the deadline")
	assert.Equal(t, "started\n", out.Output)

	raw, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return !alive(pid) }, 2*time.Second, 20*time.Millisecond, "the child sleep is killed too")
}

func TestExecLeftoverChildIsKilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	var rec recorder
	start := time.Now()
	// The child holds no pipe of ours, so the hook returns at once; the child must not stay.
	_, err := rec.runner("PID_FILE="+pidFile).Run(context.Background(), execCall(`sleep 600 >/dev/null 2>&1 </dev/null &
echo $! > "$PID_FILE"
echo 0
`))
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	raw, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return !alive(pid) }, 2*time.Second, 20*time.Millisecond)
}

// alive says whether pid runs; a zombie nobody reaped (PID 1 in a container may not) is dead.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func TestExecEnvironmentAndStdin(t *testing.T) {
	t.Setenv("SLIPWAY_TEST_WORKER_SECRET", "must not leak")
	dir := t.TempDir()
	var rec recorder
	c := execCall(`env > "$OUT/env"
cat > "$OUT/stdin"
pwd > "$OUT/cwd"
`)
	c.Outputs = map[string]any{"db-url": "postgres://db/app", "port": 5432, "tags": []any{"a", "b"}, "Mixed.Case": true}
	_, err := rec.runner("OUT="+dir).Run(context.Background(), c)
	require.NoError(t, err)

	env := map[string]string{}
	raw, err := os.ReadFile(filepath.Join(dir, "env"))
	require.NoError(t, err)
	for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	current, _ := json.Marshal(c.Current)
	next, _ := json.Marshal(c.Next)
	assert.Equal(t, Drain, env["SLIPWAY_HOOK"])
	assert.Equal(t, "deprovision", env["SLIPWAY_OPERATION"])
	assert.Equal(t, "acme", env["SLIPWAY_TENANT"])
	assert.Equal(t, "web", env["SLIPWAY_NAME"])
	assert.Equal(t, "1", env["SLIPWAY_CALL"])
	assert.JSONEq(t, string(current), env["SLIPWAY_INSTANCE_STATE"])
	assert.JSONEq(t, string(next), env["SLIPWAY_INSTANCE_NEXT_STATE"])
	assert.Equal(t, "postgres://db/app", env["SLIPWAY_OUTPUT_DB_URL"])
	assert.Equal(t, "5432", env["SLIPWAY_OUTPUT_PORT"])
	assert.Equal(t, `["a","b"]`, env["SLIPWAY_OUTPUT_TAGS"])
	assert.Equal(t, "true", env["SLIPWAY_OUTPUT_MIXED_CASE"])
	assert.NotContains(t, env, "SLIPWAY_TEST_WORKER_SECRET", "only Runner.Env is passed on")

	stdin, err := os.ReadFile(filepath.Join(dir, "stdin"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"hook":"drain","operation":"deprovision","tenant":"acme","name":"web","call":1,
		"current":{"state":"Ready","app":"running","data":"available"},
		"next":{"state":"Deprovisioned","app":"deleted","data":"deleted","operation":"deprovision","reason":"asked by alice"},
		"outputs":{"db-url":"postgres://db/app","port":5432,"tags":["a","b"],"Mixed.Case":true}}`, string(stdin))

	cwd, err := os.ReadFile(filepath.Join(dir, "cwd"))
	require.NoError(t, err)
	assert.NoDirExists(t, strings.TrimSpace(string(cwd)), "the temp dir is removed")
}

func TestExecOutputKeepsTheTail(t *testing.T) {
	t.Parallel()
	var rec recorder
	r := rec.runner()
	r.OutputLimit = 32
	out, err := r.Run(context.Background(), execCall(`head -c 100 /dev/zero | tr '\0' x
echo
case $SLIPWAY_CALL in 1) echo -1 ;; *) echo "the end"; echo 0 ;; esac
`))
	require.NoError(t, err)
	// Two calls of 101+3 and 101+8+2 bytes: 215 in all, 32 kept.
	assert.Equal(t, "…(183 bytes cut)"+"xxxxxxxxxxxxxxxxxxxxx\nthe end\n0\n", out.Output)
}

func TestRunCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var rec recorder
	out, err := rec.runner().Run(ctx, execCall("echo 0"))
	require.ErrorIs(t, err, context.Canceled)
	var de *DeadlineError
	assert.NotErrorAs(t, err, &de, "a canceled run is not out of time")
	assert.Zero(t, out.Calls)
}

func TestRunInvalidSpec(t *testing.T) {
	t.Parallel()
	c := execCall("echo 0")
	c.Spec.Exec = "../drain.sh"
	_, err := (&Runner{}).Run(context.Background(), c)
	var ie *InvalidSpecError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, KindExec, ie.Field)
}
