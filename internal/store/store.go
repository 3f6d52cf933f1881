// Package store keeps the state that must outlive one activity and be reachable from every
// worker (saved plans, apply markers, bootstrapped secrets) in PostgreSQL, sealed at rest
// with the payload keyring (envelope encryption: a data key per value, sealed by the keyring).
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/secrets"
)

// PG is the shared store. It is safe for concurrent use by any number of workers.
type PG struct {
	pool   *pgxpool.Pool
	keys   *codec.Keyring
	legacy *secrets.Store
}

// Option configures a PG store.
type Option func(*PG)

// WithLegacySecrets imports an instance's secrets from the file store that workers kept on
// their own disk before the shared store, on first use, and removes the file once imported.
func WithLegacySecrets(dir string) Option {
	return func(s *PG) {
		if dir != "" {
			s.legacy = secrets.NewStore(dir)
		}
	}
}

// migrateLock serialises schema creation across workers starting at once (a two-int4
// advisory key, like the terraform lock table's, in its own class).
const migrateClass, migrateObj = 0x736c6970, 0x73746f72

// schema is idempotent; each statement runs under migrateLock.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS slipway_plans (
		tenant text NOT NULL, name text NOT NULL, plan text NOT NULL,
		sha256 text NOT NULL, key_id text NOT NULL, data_key bytea NOT NULL, sealed bytea NOT NULL,
		created timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (tenant, name, plan))`,
	`CREATE TABLE IF NOT EXISTS slipway_applied_plans (
		tenant text NOT NULL, name text NOT NULL, sha256 text NOT NULL, plan text NOT NULL,
		applied timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (tenant, name, sha256))`,
	`CREATE TABLE IF NOT EXISTS slipway_secrets (
		tenant text NOT NULL, name text NOT NULL, secret text NOT NULL,
		key_id text NOT NULL, data_key bytea NOT NULL, sealed bytea NOT NULL,
		created timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (tenant, name, secret))`,
	// Lock files hold provider versions and public package hashes, nothing secret: kept in clear.
	`CREATE TABLE IF NOT EXISTS slipway_provider_locks (
		tenant text NOT NULL, name text NOT NULL, revision text NOT NULL, lock bytea NOT NULL,
		created timestamptz NOT NULL DEFAULT clock_timestamp(),
		PRIMARY KEY (tenant, name, revision))`,
	auditSchema, auditIndex, claimsSchema, releasesHeadsSchema,
}

// OpenPG connects to PostgreSQL and creates the store's tables when missing.
func OpenPG(ctx context.Context, connString string, keys *codec.Keyring, opts ...Option) (*PG, error) {
	if keys == nil {
		return nil, &InvalidInputError{Field: "keys", Reason: "a payload keyring is required to seal the store"}
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		// pgx's message may quote the connection string, password included.
		return nil, &InvalidInputError{Field: "SLIPWAY_STORE_PG_CONN", Reason: "not a valid PostgreSQL connection string"}
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "slipway store"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	s := &PG{pool: pool, keys: keys}
	for _, o := range opts {
		o(s)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *PG) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, migrateClass, migrateObj); err != nil {
			return fmt.Errorf("store: create tables: %w", err)
		}
		for _, stmt := range schema {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("store: create tables: %w", err)
			}
		}
		return nil
	})
}

// Close releases the store's connections.
func (s *PG) Close() { s.pool.Close() }

// seal and open bind every value to its row: aad is the table, the instance and the key.
func (s *PG) seal(plain []byte, aad string) (codec.Sealed, error) {
	return s.keys.Seal(plain, []byte(aad))
}

func (s *PG) open(what string, sealed codec.Sealed, aad string) ([]byte, error) {
	plain, err := s.keys.Open(sealed, []byte(aad))
	if err != nil {
		return nil, &SealError{What: what, KeyID: sealed.KeyID, Err: err}
	}
	return plain, nil
}

func aadOf(kind, tenant, name, key string) string {
	return "slipway " + kind + "\x00" + tenant + "\x00" + name + "\x00" + key
}

// IsUnreadable reports whether err is a stored value that the keyring cannot open, which no
// retry will fix.
func IsUnreadable(err error) bool {
	var se *SealError
	return errors.As(err, &se)
}
