package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/slipway-dev/slipway/internal/terraform"
)

var _ terraform.LockStore = (*PG)(nil)

// RecordLock keeps the first lock file recorded at rev; workers racing on it get the winner's.
func (s *PG) RecordLock(ctx context.Context, ws terraform.Workspace, rev string, lock []byte) ([]byte, error) {
	var kept []byte
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO slipway_provider_locks (tenant, name, revision, lock) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, ws.Tenant, ws.Name, rev, lock); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT lock FROM slipway_provider_locks WHERE tenant = $1 AND name = $2 AND revision = $3`,
			ws.Tenant, ws.Name, rev).Scan(&kept)
	})
	if err != nil {
		return nil, fmt.Errorf("store: record the lock file of %s at %s: %w", ws, rev, err)
	}
	return kept, nil
}

// RecordedLock is the lock file recorded at rev, or the newest one of ws for rev ""; nil when none.
func (s *PG) RecordedLock(ctx context.Context, ws terraform.Workspace, rev string) ([]byte, error) {
	var lock []byte
	var err error
	if rev == "" {
		err = s.pool.QueryRow(ctx, `SELECT lock FROM slipway_provider_locks WHERE tenant = $1 AND name = $2
			ORDER BY created DESC LIMIT 1`, ws.Tenant, ws.Name).Scan(&lock)
	} else {
		err = s.pool.QueryRow(ctx, `SELECT lock FROM slipway_provider_locks WHERE tenant = $1 AND name = $2 AND revision = $3`,
			ws.Tenant, ws.Name, rev).Scan(&lock)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: the lock file of %s at %q: %w", ws, rev, err)
	}
	return lock, nil
}
