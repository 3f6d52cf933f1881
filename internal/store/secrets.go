package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/secrets"
)

// Ensure creates every missing secret in names and returns the names it created. It is one
// INSERT … ON CONFLICT DO NOTHING, so workers racing on a first deploy agree on one value:
// the first insert wins and the others create nothing.
func (s *PG) Ensure(ctx context.Context, tenant, name string, names []string) ([]string, error) {
	if err := s.importLegacy(ctx, tenant, name); err != nil {
		return nil, err
	}
	vals := make(map[string]string, len(names))
	for _, n := range names {
		v, err := secrets.NewValue()
		if err != nil {
			return nil, err
		}
		vals[n] = v
	}
	return s.insertSecrets(ctx, tenant, name, vals)
}

// insertSecrets seals vals and inserts those not stored yet, returning their names.
func (s *PG) insertSecrets(ctx context.Context, tenant, name string, vals map[string]string) ([]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	var ids, keyIDs []string
	var dataKeys, data [][]byte
	for n, v := range vals {
		sealed, err := s.seal([]byte(v), aadOf("secret", tenant, name, n))
		if err != nil {
			return nil, err
		}
		ids, keyIDs = append(ids, n), append(keyIDs, sealed.KeyID)
		dataKeys, data = append(dataKeys, sealed.DataKey), append(data, sealed.Data)
	}
	rows, err := s.pool.Query(ctx, `INSERT INTO slipway_secrets (tenant, name, secret, key_id, data_key, sealed)
		SELECT $1, $2, s, k, d, v FROM unnest($3::text[], $4::text[], $5::bytea[], $6::bytea[]) AS t(s, k, d, v)
		ON CONFLICT (tenant, name, secret) DO NOTHING RETURNING secret`,
		tenant, name, ids, keyIDs, dataKeys, data)
	if err != nil {
		return nil, fmt.Errorf("store: secrets of %s/%s: %w", tenant, name, err)
	}
	created, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: secrets of %s/%s: %w", tenant, name, err)
	}
	if len(created) == 0 {
		return nil, nil
	}
	sort.Strings(created)
	return created, nil
}

// Get returns the instance's secrets (empty when none were bootstrapped). A value the keyring
// cannot open fails the whole read with a *SealError naming the secret and the key ID.
func (s *PG) Get(ctx context.Context, tenant, name string) (map[string]string, error) {
	if err := s.importLegacy(ctx, tenant, name); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT secret, key_id, data_key, sealed FROM slipway_secrets
		WHERE tenant = $1 AND name = $2`, tenant, name)
	if err != nil {
		return nil, fmt.Errorf("store: secrets of %s/%s: %w", tenant, name, err)
	}
	out := map[string]string{}
	var secret string
	var sealed codec.Sealed
	_, err = pgx.ForEachRow(rows, []any{&secret, &sealed.KeyID, &sealed.DataKey, &sealed.Data}, func() error {
		v, err := s.open(fmt.Sprintf("secret %q of %s/%s", secret, tenant, name), sealed, aadOf("secret", tenant, name, secret))
		out[secret] = string(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Forget deletes everything the store holds for the instance: secrets, plans, apply
// markers and recorded lock files. Deleting nothing is not an error.
func (s *PG) Forget(ctx context.Context, tenant, name string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, table := range []string{"slipway_secrets", "slipway_plans", "slipway_applied_plans", "slipway_provider_locks"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE tenant = $1 AND name = $2`, tenant, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: forget %s/%s: %w", tenant, name, err)
	}
	if s.legacy != nil {
		return s.legacy.Forget(ctx, tenant, name)
	}
	return nil
}

// importLegacy copies a worker-disk secrets file into the store (existing rows win) and
// removes the file, so values bootstrapped before the shared store keep their values.
func (s *PG) importLegacy(ctx context.Context, tenant, name string) error {
	if s.legacy == nil {
		return nil
	}
	old, err := s.legacy.Get(ctx, tenant, name)
	if err != nil || len(old) == 0 {
		return err
	}
	if _, err := s.insertSecrets(ctx, tenant, name, old); err != nil {
		return err
	}
	return s.legacy.Forget(ctx, tenant, name)
}
