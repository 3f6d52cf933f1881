package activities

import (
	"context"
	"maps"
	"sync"

	"github.com/slipway-dev/slipway/internal/forge"
)

// readOnce is a forge whose ReadDir answers each revision and directory once: one activity
// reads the instance and its stack for several purposes, and each read is one more call to fail.
type readOnce struct {
	forge.Forge
	mu   sync.Mutex
	dirs map[[2]string]map[string][]byte
}

// Unwrap lets forge.As see what the forge below does (a mirror, a reporter).
func (r *readOnce) Unwrap() forge.Forge { return r.Forge }

func (r *readOnce) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	key := [2]string{rev, dir}
	r.mu.Lock()
	files, ok := r.dirs[key]
	r.mu.Unlock()
	if ok {
		return maps.Clone(files), nil // callers may change the map they get
	}
	files, err := r.Forge.ReadDir(ctx, rev, dir)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.dirs[key] = maps.Clone(files)
	r.mu.Unlock()
	return files, nil
}

// readingOnce is a copy of a for one activity call, whose forge reads each revision's directory once.
func (a *Activities) readingOnce() *Activities {
	b := *a
	b.Forge = &readOnce{Forge: a.Forge, dirs: map[[2]string]map[string][]byte{}}
	return &b
}
