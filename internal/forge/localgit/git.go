package localgit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/slipway-dev/slipway/internal/tracing"
)

// runner runs git plumbing against one git directory; it never uses a work tree.
type runner struct {
	bin    string
	gitDir string // empty for commands that run outside a repository
	env    []string
}

func newRunner(c config, gitDir string) *runner {
	// Inherited GIT_* variables (e.g. from a hook or a test runner) would redirect our commands.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "LC_ALL=") {
			env = append(env, kv)
		}
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME="+c.authorName, "GIT_AUTHOR_EMAIL="+c.authorEmail,
		"GIT_COMMITTER_NAME="+c.authorName, "GIT_COMMITTER_EMAIL="+c.authorEmail)
	if gitDir != "" {
		env = append(env, "GIT_DIR="+gitDir)
	}
	return &runner{bin: c.gitBinary, gitDir: gitDir, env: env}
}

// out runs git and returns its stdout without the trailing newline.
func (r *runner) out(ctx context.Context, args ...string) (string, error) {
	b, err := r.run(ctx, nil, nil, args...)
	return strings.TrimSuffix(string(b), "\n"), err
}

// run runs git with optional stdin and extra environment, returning stdout.
func (r *runner) run(ctx context.Context, stdin io.Reader, env []string, args ...string) (_ []byte, err error) {
	if len(args) > 0 {
		// One span a git command, under the step that runs it.
		var span trace.Span
		ctx, span = tracing.Start(ctx, "git "+args[0])
		defer func() { tracing.End(span, err) }()
	}
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = r.gitDir
	cmd.Env = append(append([]string(nil), r.env...), env...)
	cmd.Stdin = stdin
	// SIGTERM lets git remove its lock files; the ones a SIGKILL leaves behind, writing clears.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		return stdout.Bytes(), classifyGit(r.gitDir, &GitError{Args: args, ExitCode: code, Stderr: stderr.String(), Err: err})
	}
	return stdout.Bytes(), nil
}

// exitCode is the exit status of a failed git command, or -1 for any other error.
func exitCode(err error) int {
	var g *GitError
	if errors.As(err, &g) {
		return g.ExitCode
	}
	return -1
}

// resolve returns the object name of rev, or "" when it does not exist.
func (r *runner) resolve(ctx context.Context, rev string) (string, error) {
	sha, err := r.out(ctx, "rev-parse", "-q", "--verify", rev)
	if exitCode(err) == 1 {
		return "", nil
	}
	return sha, err
}

// zeroOID is the all-zero object name of the repository's hash (sha1 or sha256),
// which update-ref takes as "must not exist yet".
func zeroOID(like string) string { return strings.Repeat("0", len(like)) }
