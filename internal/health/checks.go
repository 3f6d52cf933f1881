package health

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	sdkclient "go.temporal.io/sdk/client"
)

// Temporal checks that the frontend answers its health check.
func Temporal(c sdkclient.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		if _, err := c.CheckHealth(ctx, &sdkclient.CheckHealthRequest{}); err != nil {
			return fmt.Errorf("temporal: %w", err)
		}
		return nil
	}
}

// PostgreSQL checks that the store at conn answers a ping, on one pooled connection so that
// probes do not open one each. close releases it.
func PostgreSQL(conn string) (check func(context.Context) error, close func(), err error) {
	cfg, err := pgxpool.ParseConfig(conn)
	if err != nil {
		// The message of a parse error may quote the password: name the setting only.
		return nil, nil, fmt.Errorf("the store's connection string does not parse")
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context) error {
		if err := pool.Ping(ctx); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return nil
	}, pool.Close, nil
}

// WritableDir checks that a file can be created in dir (a full or read-only disk fails it).
func WritableDir(dir string) func(context.Context) error {
	return func(context.Context) error {
		f, err := os.CreateTemp(dir, ".readyz-*")
		if err != nil {
			return fmt.Errorf("state dir: %w", err)
		}
		name := f.Name()
		_ = f.Close()
		return os.Remove(name)
	}
}
