package terraform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-exec/tfexec"
)

// Init runs `terraform init` with the workspace's backend configuration. Local state lives
// outside the working directory; pg state lives in schema SchemaName(ws), with the connection
// string passed only through the environment so it is never written to disk.
func (r *Runner) Init(ctx context.Context, ws Workspace) error {
	c, err := r.open(ctx, ws, "init")
	if err != nil {
		return err
	}
	defer c.close()
	var bcs []string
	reconfigure := false
	if r.Backend() == backendPG {
		bcs = r.pgBackendConfig(ws)
		// The same schema, now reached as the instance's role: nothing to migrate.
		reconfigure = r.onlySkipFlagsChanged(ws)
	} else {
		sp := r.statePath(ws)
		if err := os.MkdirAll(filepath.Dir(sp), dirPerm); err != nil {
			return &CommandError{Command: "init", Workspace: ws, Err: err}
		}
		bcs = []string{"path=" + sp}
	}
	var opts []tfexec.InitOption
	for _, bc := range bcs {
		opts = append(opts, tfexec.BackendConfig(bc))
	}
	if reconfigure {
		opts = append(opts, tfexec.Reconfigure(true))
	}
	mode := r.lockMode(ws)
	run := func(readonly bool) error {
		// No -reconfigure otherwise: a changed backend must fail loudly rather than start from
		// empty state. Creating a new pg workspace takes the creation lock, so init is recorded too.
		return c.recorded(ctx, func() error {
			if readonly {
				return c.runDirect(ctx, initArgs(bcs, reconfigure))
			}
			return c.fail(c.tf.Init(ctx, opts...))
		})
	}
	release := func() {}
	if needsProviders(r.Dir(ws)) {
		if release, err = r.initGate(ctx); err != nil {
			return &CommandError{Command: "init", Workspace: ws, Err: err}
		}
	}
	// Without a checksum for a package the cache holds, terraform reinstalls it there, removed or
	// truncated under other workspaces' running plans: it links the cached one instead.
	c.env[envCacheMayBreakLock] = "true"
	err = run(mode == lockReadonly)
	if err != nil && cachedPackageMismatch(c.stderr.String()) && c.env["TF_PLUGIN_CACHE_DIR"] != "" {
		// The lock file's checksums are not the cached package's (one written on another
		// platform): a private copy is installed and verified, the shared one left as it is.
		delete(c.env, "TF_PLUGIN_CACHE_DIR")
		c.stderr.Reset()
		err = run(mode == lockReadonly)
	}
	rev, record := strings.CutPrefix(mode, lockRecord)
	if record && err != nil && strings.Contains(c.stderr.String(), "does not match configured version constraint") {
		// The seed's versions are ones this revision's constraints exclude: choose afresh, and record that.
		if rmErr := os.Remove(filepath.Join(r.Dir(ws), depLockFile)); rmErr == nil {
			c.stderr.Reset()
			err = run(false)
		}
	}
	if record && err == nil {
		err = r.recordLock(ctx, ws, rev, func() error { return run(true) })
	}
	release()
	if err != nil {
		return err
	}
	err = r.markInitialized(ws, c.engine)
	if err == nil {
		err = writeIfChanged(filepath.Join(r.Dir(ws), dataDir, initLockMark), []byte(lockSum(r.Dir(ws))))
	}
	if err != nil {
		return &CommandError{Command: "init", Workspace: ws, Err: err}
	}
	if r.Backend() == backendPG {
		return r.createPGState(ctx, ws)
	}
	return nil
}

// Initialized reports whether init has run in the workspace's working directory on this
// host, with the engine binary it picks now, for its current lock file; a worker that has not (a
// new or replaced host, a stack that changed engine, or a lock file changed since) runs it
// before planning.
func (r *Runner) Initialized(ws Workspace) bool {
	dir := r.Dir(ws)
	if _, err := os.Stat(filepath.Join(dir, dataDir)); err != nil {
		return false
	}
	if !providersLinked(dir) {
		return false
	}
	if engine, _, err := r.engineOf(ws); err == nil { // else the command that follows reports the missing engine
		got, _ := readOwn(filepath.Join(dir, dataDir, engineMarker))
		if strings.TrimSpace(string(got)) != engine.marker() {
			return false
		}
	}
	mark, err := readOwn(filepath.Join(dir, dataDir, initLockMark))
	if errors.Is(err, fs.ErrNotExist) {
		return true // initialised before slipway marked its inits
	}
	return string(mark) == lockSum(dir)
}

// providersLinked reports whether every provider terraform linked into the working directory
// is still there: the plugin cache it links to is emptied after a killed init (lockDir), and
// terraform then refuses to plan until init installs them again.
func providersLinked(dir string) bool {
	ok := true
	_ = filepath.WalkDir(filepath.Join(dir, dataDir, "providers"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			if _, err = os.Stat(p); err != nil {
				ok = false
				return filepath.SkipAll
			}
		}
		return nil
	})
	return ok
}

// envCacheMayBreakLock lets init link a cached provider its lock file has no checksum for.
const envCacheMayBreakLock = "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE"

// cachedPackageMismatch reports terraform's refusal of a cached package the lock file's
// checksums do not match (its lines wrapped at any word).
func cachedPackageMismatch(stderr string) bool {
	return strings.Contains(strings.Join(strings.Fields(stderr), " "), "from the shared cache directory")
}

// initLockMark, in terraform's data dir, is the hash of the lock file the last init installed.
const initLockMark = "slipway-lock.sha256"

// lockSum is the working directory's lock file's hash, "none" without one.
func lockSum(dir string) string {
	data, err := readOwn(filepath.Join(dir, depLockFile))
	if err != nil {
		return "none"
	}
	return bytesSHA256(data)
}

// emptyStateFile is the state createPGState pushes, removed once pushed.
const emptyStateFile = scratchPrefix + "empty.tfstate"

// createPGState writes an empty state for a pg workspace that has none. Until its row exists,
// terraform's pg backend locks a workspace with the database-wide creation lock, so a first
// apply would block every other workspace in the database for as long as it runs.
func (r *Runner) createPGState(ctx context.Context, ws Workspace) error {
	p, err := r.pool(ctx)
	if err != nil {
		return &CommandError{Command: "init", Workspace: ws, Err: err}
	}
	if key, err := lockKey(ctx, p, ws); err != nil || key != creationKey {
		return wrapLockErr(ws, err)
	}
	c, err := r.open(ctx, ws, "state push")
	if err != nil {
		return err
	}
	defer c.close()
	empty := filepath.Join(r.Dir(ws), emptyStateFile)
	state := fmt.Sprintf(`{"version":4,"terraform_version":"1.4.0","serial":0,"lineage":%q,"outputs":{},"resources":[]}`, uuid.NewString())
	if err := os.WriteFile(empty, []byte(state), filePerm); err != nil {
		return &CommandError{Command: "state push", Workspace: ws, Err: err}
	}
	defer os.Remove(empty)
	return c.recorded(ctx, func() error { return c.fail(c.tf.StatePush(ctx, empty)) })
}
