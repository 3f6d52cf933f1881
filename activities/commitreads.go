package activities

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
)

// commitReads keeps the stack and releases directories read at a commit: what a commit holds
// never changes, and each step of an operation reads the same few (its stack, its releases file),
// so a step and its retries ask the forge once. Instance directories are not kept (one per instance).
var commitReads = struct {
	sync.Mutex
	m map[string]map[string][]byte
}{m: map[string]map[string][]byte{}}

// maxCommitReads bounds the cache; it starts over when full (stack directories are small).
const maxCommitReads = 512

var commitSHA = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// readSharedDir is Forge.ReadDir of a directory many instances share (a stack, its releases), kept
// when rev is a commit SHA. Callers must not change the map they get.
func (a *Activities) readSharedDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	return readSharedDirOf(ctx, a.Forge, rev, dir)
}

// readSharedDirOf is readSharedDir from fg: the GitOps repository's forge or the stacks repository's.
func readSharedDirOf(ctx context.Context, fg forge.Forge, rev, dir string) (map[string][]byte, error) {
	if !commitSHA.MatchString(rev) {
		return readDirRetried(ctx, fg, rev, dir)
	}
	key := fg.RepoURL() + "\x00" + rev + "\x00" + dir
	commitReads.Lock()
	files, ok := commitReads.m[key]
	commitReads.Unlock()
	if ok {
		return files, nil
	}
	files, err := readDirRetried(ctx, fg, rev, dir)
	if err != nil {
		return nil, err
	}
	commitReads.Lock()
	if len(commitReads.m) >= maxCommitReads {
		commitReads.m = map[string]map[string][]byte{}
	}
	commitReads.m[key] = files
	commitReads.Unlock()
	return files, nil
}

// readRetries are the waits before a shared read is asked again within the step: a read has no
// effect, and every step of every instance reads these, so a blip costs a moment, not the step's
// backoff (under many faults the step's every attempt could otherwise fail on one read or another).
var readRetries = []time.Duration{100 * time.Millisecond, 400 * time.Millisecond}

func readDirRetried(ctx context.Context, fg forge.Forge, rev, dir string) (map[string][]byte, error) {
	for i := 0; ; i++ {
		files, err := fg.ReadDir(ctx, rev, dir)
		if err == nil || i == len(readRetries) || forge.IsNonRetryable(err) || errors.Is(err, errkind.RateLimited) {
			return files, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(readRetries[i]):
		}
	}
}
