package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// LockInfo describes a held state lock as far as the backend can tell.
type LockInfo struct{ ID, Who, Operation, Created, Path string }

// probeAddress is a resource address no configuration uses; untainting it with
// -allow-missing takes and releases the state lock without changing anything.
const probeAddress = "terraform_data.slipway_lock_probe"

// Lock reports whether the workspace's state lock is held, and by whom.
//
// local: terraform holds an fcntl lock on the state file and writes
// .terraform.tfstate.lock.info beside it. The lock counts as held only while the fcntl lock
// is: a lock.info left by a killed process blocks nothing (terraform overwrites it).
//
// pg: the backend holds a session-scoped pg_advisory_lock and records no holder, and this
// package has no SQL driver, so Lock probes by briefly taking the lock itself
// (`terraform untaint -allow-missing -lock-timeout=0` on an unused address). Only Path
// (the schema) is known; the probe can make a command that starts at that very moment
// fail with *StateLockedError, which callers already treat as retryable.
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

// readLockInfo returns nil without error when there is no lock file.
func readLockInfo(path string) (*LockInfo, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var raw struct{ ID, Operation, Who, Created, Path string }
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("unreadable lock info %s: %w", path, err)
	}
	return &LockInfo{ID: raw.ID, Who: raw.Who, Operation: raw.Operation, Created: normalizeCreated(raw.Created), Path: raw.Path}, nil
}

func (r *Runner) pgLockPath(ws Workspace) string { return "pg:" + SchemaName(ws) }

func (r *Runner) pgLock(ctx context.Context, ws Workspace) (*LockInfo, bool, error) {
	c, err := r.open(ws, "lock")
	if err != nil {
		return nil, false, err
	}
	err = c.tf.Untaint(ctx, probeAddress, tfexec.AllowMissing(true), tfexec.LockTimeout("0s"))
	if err == nil {
		return nil, false, nil
	}
	err = c.fail(err)
	var locked *StateLockedError
	if errors.As(err, &locked) {
		return &locked.Lock, true, nil
	}
	return nil, false, err
}

// ForceUnlock clears a lock that no live process holds. terraform's own force-unlock cannot
// help here: for local state it always fails ("LocalState not locked") and for pg it is a
// no-op, because both locks belong to the holding process and vanish when it exits. So:
// a lock still held by a live process gives *StateLockedError (stop that process); a stale
// local lock.info whose ID is lockID is removed; no lock at all is success.
func (r *Runner) ForceUnlock(ctx context.Context, ws Workspace, lockID string) error {
	if err := ws.validate(); err != nil {
		return err
	}
	if lockID == "" {
		return &InvalidInputError{Field: "lockID", Value: lockID, Reason: "must not be empty"}
	}
	info, held, err := r.Lock(ctx, ws)
	if err != nil {
		return err
	}
	if held {
		return &StateLockedError{Command: "force-unlock", Workspace: ws, Lock: *info,
			Detail: "held by a running terraform process; it is released when that process exits (cancel or stop it)"}
	}
	if r.Backend() == backendPG {
		return nil
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
