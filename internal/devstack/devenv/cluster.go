package devenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/postgres"
	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
)

// Engines the embedded default can start when no frontend answers at its address.
const (
	EngineDev      = "dev"      // `temporal server start-dev` on SQLite (the default)
	EnginePostgres = "postgres" // a real Temporal cluster on PostgreSQL, as in production
)

// sharedPGRoot holds the dev PostgreSQL data when the postgres OS user cannot reach the
// state dir (root with a private home): one directory per state dir.
const sharedPGRoot = "/var/lib/slipway"

// ClusterEngine is the "postgres" engine: PostgreSQL on a data dir that survives restarts,
// and a Temporal cluster on it whose frontend is the env's Address.
type ClusterEngine struct {
	Postgres *postgres.Server
	Cluster  *temporalcluster.Cluster
	Dir      string // node configs and logs
}

// CheckEngine rejects an unknown engine or node count, naming the option.
func CheckEngine(engine string, nodes int) error {
	switch engine {
	case "", EngineDev:
	case EnginePostgres:
		if nodes < 0 || nodes > 9 {
			return fmt.Errorf("devenv: EnvOptions.TemporalNodes = %d: must be 1-9 (0 = 1)", nodes)
		}
	default:
		return fmt.Errorf("devenv: EnvOptions.Temporal = %q: must be %s or %s", engine, EngineDev, EnginePostgres)
	}
	return nil
}

func (e *Env) startCluster(ctx context.Context, o EnvOptions) error {
	if err := CheckEngine(o.Temporal, o.TemporalNodes); err != nil {
		return err
	}
	nodes := o.TemporalNodes
	if nodes == 0 {
		nodes = 1
	}
	data, err := pgDataDir(o.StateDir)
	if err != nil {
		return err
	}
	pg, err := postgres.Launch(postgres.Options{DataDir: data})
	if err != nil {
		return fmt.Errorf("start PostgreSQL for the Temporal cluster: %w", err)
	}
	eng := &ClusterEngine{Postgres: pg, Dir: filepath.Join(o.StateDir, "temporal-cluster")}
	e.Cluster = eng
	eng.Cluster, err = temporalcluster.Start(ctx, temporalcluster.Options{
		DB:  temporalcluster.DB{Host: pg.Host, Port: pg.Port, User: postgres.Superuser},
		Dir: eng.Dir, Nodes: nodes, FrontendAddress: o.Address,
		SearchAttributes: contract.SearchAttributeTypes,
	})
	if err != nil {
		return fmt.Errorf("start Temporal cluster (TEMPORAL_ADDRESS %s, logs in %s): %w", o.Address, eng.Dir, err)
	}
	e.Address = eng.Cluster.Frontend()
	return nil
}

// slipwayDatabase is where the postgres engine keeps terraform state, plans and secrets, as a
// production deployment does: the worker keeps nothing on its disk but a cache.
func (c *ClusterEngine) slipwayDatabase() (string, error) {
	conn, err := c.Postgres.EnsureDatabase("slipway")
	if err != nil {
		return "", fmt.Errorf("create the slipway database for terraform state and the store: %w", err)
	}
	return conn, nil
}

// Stop stops the cluster, then PostgreSQL; the data stays for the next start.
func (c *ClusterEngine) Stop() {
	if c.Cluster != nil {
		_ = c.Cluster.Stop()
	}
	if c.Postgres != nil {
		_ = c.Postgres.Close()
	}
}

// pgDataDir is STATE/postgres, unless the server's OS user cannot reach it: then a directory
// under /var/lib/slipway named after the state dir, with STATE/postgres linking to it.
func pgDataDir(stateDir string) (string, error) {
	dir := filepath.Join(stateDir, "postgres")
	err := postgres.CheckDataDir(dir)
	var dde *postgres.DataDirError
	if err == nil || !errors.As(err, &dde) {
		return dir, err
	}
	sum := sha256.Sum256([]byte(stateDir))
	alt := filepath.Join(sharedPGRoot, "dev-postgres-"+hex.EncodeToString(sum[:6]))
	if postgres.CheckDataDir(alt) != nil {
		return "", fmt.Errorf("%w (and %s is no way out either)", err, alt)
	}
	if _, statErr := os.Lstat(dir); errors.Is(statErr, fs.ErrNotExist) {
		_ = os.Symlink(alt, dir) // only a pointer for people looking around the state dir
	}
	return alt, nil
}
