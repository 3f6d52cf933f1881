package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LockInfo describes a held state lock as far as the backend can tell.
type LockInfo struct{ ID, Who, Operation, Created, Path string }

// Lock reports whether the workspace's state lock is held, and by whom.
//
// local: terraform holds an fcntl lock on the state file and writes
// .terraform.tfstate.lock.info beside it. The lock counts as held only while the fcntl lock
// is: a lock.info left by a killed process blocks nothing (terraform overwrites it).
//
// pg: the backend holds a session-scoped advisory lock and records no holder, so Lock reads
// pg_locks and pg_stat_activity for the holding session and slipway's own lock record
// (pglock.go) for who runs it and why. Without a record the ID is pg-backend-<pid>.
func (r *Runner) Lock(ctx context.Context, ws Workspace) (*LockInfo, bool, error) {
	if err := ws.validate(); err != nil {
		return nil, false, err
	}
	if r.Backend() == backendPG {
		return r.pgLock(ctx, ws)
	}
	return r.localLock(ws)
}

func (r *Runner) localLock(ws Workspace) (*LockInfo, bool, error) {
	info, err := readLockInfo(r.lockInfoPath(ws))
	// terraform writes lock.info just after taking the lock: a read in between sees it half written.
	for try := 0; err != nil && errors.Is(err, errPartialLockInfo) && try < 10; try++ {
		time.Sleep(20 * time.Millisecond)
		info, err = readLockInfo(r.lockInfoPath(ws))
	}
	if err != nil || info == nil {
		return nil, false, wrapLockErr(ws, err)
	}
	held, err := fileLockHeld(r.statePath(ws))
	if err != nil || !held {
		return nil, false, wrapLockErr(ws, err)
	}
	return info, true, nil
}

func wrapLockErr(ws Workspace, err error) error {
	if err == nil {
		return nil
	}
	return &CommandError{Command: "lock", Workspace: ws, Err: err}
}

// lockInfoPath mirrors where terraform's local state manager writes its lock metadata.
func (r *Runner) lockInfoPath(ws Workspace) string {
	sp := r.statePath(ws)
	return filepath.Join(filepath.Dir(sp), "."+filepath.Base(sp)+".lock.info")
}

// errPartialLockInfo marks a lock.info that does not parse (yet).
var errPartialLockInfo = errors.New("not a whole lock record")

// readLockInfo returns nil without error when there is no lock file.
func readLockInfo(path string) (*LockInfo, error) {
	data, err := readOwn(path) // beside the local state, which terraform's code may write
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var raw struct{ ID, Operation, Who, Created, Path string }
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("unreadable lock info %s: %w (%w)", path, errPartialLockInfo, err)
	}
	return &LockInfo{ID: raw.ID, Who: raw.Who, Operation: raw.Operation, Created: normalizeCreated(raw.Created), Path: raw.Path}, nil
}

func (r *Runner) pgLockPath(ws Workspace) string { return "pg:" + SchemaName(ws) }

// ForceUnlock clears a lock that no live process holds; no lock at all is success.
//
// local: the fcntl lock vanishes with its process, so a lock still held gives
// *StateLockedError (stop that process) and a stale lock.info whose ID is lockID is removed.
//
// pg: a lock survives its holder only when the holder's host vanished without closing TCP,
// so PostgreSQL keeps the session. lockID must be the held lock's ID (*InvalidInputError
// otherwise); a holder on this host that is still alive is refused (*HolderAliveError).
// terraform force-unlock runs first (a no-op on pg), then the holder's session is
// terminated, the lock's release awaited and the record deleted.
func (r *Runner) ForceUnlock(ctx context.Context, ws Workspace, lockID string) error {
	if err := ws.validate(); err != nil {
		return err
	}
	if lockID == "" {
		return &InvalidInputError{Field: "lockID", Value: lockID, Reason: "must not be empty"}
	}
	if r.Backend() == backendPG {
		return r.pgForceUnlock(ctx, ws, lockID)
	}
	info, held, err := r.localLock(ws)
	if err != nil {
		return err
	}
	if held {
		return &StateLockedError{Command: "force-unlock", Workspace: ws, Lock: *info,
			Detail: "held by a running terraform process; it is released when that process exits (cancel or stop it)"}
	}
	path := r.lockInfoPath(ws)
	stale, err := readLockInfo(path)
	if err != nil || stale == nil {
		return wrapLockErr(ws, err)
	}
	if stale.ID != lockID {
		return &InvalidInputError{Field: "lockID", Value: lockID, Reason: "does not match the stale lock " + stale.ID}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return &CommandError{Command: "force-unlock", Workspace: ws, Err: err}
	}
	return nil
}
