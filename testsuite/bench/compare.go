package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/slipway-dev/slipway/internal/client"
)

// target is a worker the pipeline and throughput rows run on: this build's, or with -compare
// the build of an earlier commit, on the same server in the same run.
type target struct {
	label  string // "" for this build, else " (REF)"
	suffix string // of its instances' tenants, so the two builds never share an instance
	c      *client.Client
	worker *workerProc
}

const compareQueue = "bench-compare"

// startCompare builds the bench at ref in a throwaway git worktree and runs its worker
// (ref must have testsuite/bench, i.e. be e8747d1 or later).
func (b *bench) startCompare(ctx context.Context, ref string) (*target, error) {
	top, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, fmt.Errorf("-compare %s: run the bench inside slipway's git checkout: %w", ref, err)
	}
	repo := strings.TrimSpace(string(top))
	tree := filepath.Join(b.dir, "compare-src")
	if out, err := exec.CommandContext(ctx, "git", "-C", repo, "worktree", "add", "--detach", tree, ref).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("-compare %s: %v: %s", ref, err, out)
	}
	defer func() { _ = exec.Command("git", "-C", repo, "worktree", "remove", "--force", tree).Run() }()
	bin := filepath.Join(b.dir, "bench-compare")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./testsuite/bench")
	build.Dir = tree
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("-compare %s: build its bench: %v: %s", ref, err, out)
	}
	w, err := startWorkerFrom(bin, b.dir, b.env.Address, b.env.KeyFile, compareQueue, b.o.workerSticky)
	if err != nil {
		return nil, err
	}
	if err := waitPoller(ctx, b.env.Client.Temporal, compareQueue); err != nil {
		w.stop()
		return nil, err
	}
	return &target{label: " (" + ref + ")", suffix: "-cmp", c: client.New(b.env.Client.Temporal, compareQueue, ""), worker: w}, nil
}

// targets lists the compared build first, so the server's growing database counts against this
// one, unless -compare-this-first.
func (b *bench) targets() []target {
	this := target{c: b.c, worker: b.worker}
	switch {
	case b.compare == nil:
		return []target{this}
	case b.o.thisFirst:
		return []target{this, *b.compare}
	}
	return []target{*b.compare, this}
}
