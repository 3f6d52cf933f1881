//go:build !unix

package terraform

import "context"

// lockDir has no cross-process lock here: the per-worker semaphore alone serialises inits.
func lockDir(context.Context, string) (func(), error) { return func() {}, nil }
