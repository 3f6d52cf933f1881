package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Releases heads: the newest generation of each stack's releases file slipway wrote or saw, and
// its seal. The file lives on main, where a tenant's commit can restore an earlier sealed one;
// this record is where only slipway writes, so a read can tell the restored file from the latest.

// ReleasesHeads records each stack's newest releases file: PG (the shared store) or HeadDir.
type ReleasesHeads interface {
	// RaiseReleasesHead records generation and seal as stack's head unless a generation as high
	// is recorded already (the first seen of a generation stays), and returns the head after.
	RaiseReleasesHead(ctx context.Context, stack string, generation int, seal string) (int, string, error)
	// ReleasesHead is stack's recorded head without raising it; generation -1 when none is.
	ReleasesHead(ctx context.Context, stack string) (int, string, error)
}

var (
	_ ReleasesHeads = (*PG)(nil)
	_ ReleasesHeads = HeadDir("")
)

const releasesHeadsSchema = `CREATE TABLE IF NOT EXISTS slipway_releases_heads (
		stack text PRIMARY KEY, generation bigint NOT NULL, seal text NOT NULL, recorded timestamptz NOT NULL DEFAULT now())`

// RaiseReleasesHead implements ReleasesHeads.
func (s *PG) RaiseReleasesHead(ctx context.Context, stack string, generation int, seal string) (int, string, error) {
	if stack == "" || generation < 0 {
		return 0, "", &InvalidInputError{Field: "stack", Reason: "a releases head needs its stack and a generation of 0 or more"}
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO slipway_releases_heads (stack, generation, seal) VALUES ($1, $2, $3)
		ON CONFLICT (stack) DO UPDATE SET generation = EXCLUDED.generation, seal = EXCLUDED.seal, recorded = now()
		WHERE slipway_releases_heads.generation < EXCLUDED.generation`, stack, generation, seal); err != nil {
		return 0, "", fmt.Errorf("store: record releases head: %w", err)
	}
	var gen int
	var held string
	if err := s.pool.QueryRow(ctx, `SELECT generation, seal FROM slipway_releases_heads WHERE stack = $1`, stack).Scan(&gen, &held); err != nil {
		return 0, "", fmt.Errorf("store: record releases head: %w", err)
	}
	return gen, held, nil
}

// ReleasesHead implements ReleasesHeads.
func (s *PG) ReleasesHead(ctx context.Context, stack string) (int, string, error) {
	gen, seal := -1, ""
	err := s.pool.QueryRow(ctx, `SELECT generation, seal FROM slipway_releases_heads WHERE stack = $1`, stack).Scan(&gen, &seal)
	if errors.Is(err, pgx.ErrNoRows) {
		return -1, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("store: read releases head: %w", err)
	}
	return gen, seal, nil
}

// HeadDir keeps the heads as files (one host, the embedded default): <stack>/<generation>,
// created exclusively and holding the seal; the head is the highest generation, so a raise
// needs no lock and a generation's first seal stays.
type HeadDir string

// HeadsDirName is the heads' directory in a worker's state dir.
const HeadsDirName = "releases-heads"

// RaiseReleasesHead implements ReleasesHeads.
func (d HeadDir) RaiseReleasesHead(_ context.Context, stack string, generation int, seal string) (int, string, error) {
	if stack == "" || generation < 0 || filepath.Base(stack) != stack {
		return 0, "", &InvalidInputError{Field: "stack", Reason: "a releases head needs its stack and a generation of 0 or more"}
	}
	dir := filepath.Join(string(d), stack)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, "", err
	}
	if gen, _, err := d.head(dir); err != nil {
		return 0, "", err
	} else if gen < generation {
		// Written whole under a temporary name, then linked: a kill never leaves an empty head.
		tmp, err := os.CreateTemp(dir, ".head-*")
		if err != nil {
			return 0, "", err
		}
		defer os.Remove(tmp.Name())
		_, err = tmp.WriteString(seal)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, "", err
		}
		if err := os.Link(tmp.Name(), filepath.Join(dir, strconv.Itoa(generation))); err != nil && !errors.Is(err, fs.ErrExist) {
			return 0, "", err
		}
	}
	return d.head(dir)
}

// ReleasesHead implements ReleasesHeads.
func (d HeadDir) ReleasesHead(_ context.Context, stack string) (int, string, error) {
	if stack == "" || filepath.Base(stack) != stack {
		return 0, "", &InvalidInputError{Field: "stack", Reason: "a releases head needs its stack"}
	}
	gen, seal, err := d.head(filepath.Join(string(d), stack))
	if errors.Is(err, fs.ErrNotExist) {
		return -1, "", nil
	}
	return gen, seal, err
}

// head is the highest generation recorded in dir and its seal; -1 when none is.
func (d HeadDir) head(dir string) (int, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, "", err
	}
	var gens []int
	for _, e := range entries {
		if g, err := strconv.Atoi(e.Name()); err == nil {
			gens = append(gens, g)
		}
	}
	if len(gens) == 0 {
		return -1, "", nil
	}
	gen := slices.Max(gens)
	b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(gen)))
	return gen, string(b), err
}
