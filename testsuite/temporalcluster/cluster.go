// Package temporalcluster gives tests a real Temporal cluster (go.temporal.io/server on
// PostgreSQL, internal/devstack/temporalcluster) that starts with the test and stops with it.
package temporalcluster

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	ipg "github.com/slipway-dev/slipway/internal/devstack/postgres"
	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// EnvRequire="1" turns missing binaries into a test failure instead of a skip (CI sets it).
const EnvRequire = "SLIPWAY_REQUIRE_TEMPORAL_CLUSTER"

// ServerVersion is the server release the cluster runs; scripts/tools.sh builds the same.
const ServerVersion = temporalcluster.ServerVersion

// startDeadline is a safety net: setup and two nodes take a few seconds.
const startDeadline = 3 * time.Minute

// Options are the cluster options Start uses on pg: its superuser, the namespace
// "default" with slipway's search attributes, and a fresh directory for the nodes.
func Options(pg *postgres.Server, nodes int, dir string) temporalcluster.Options {
	return temporalcluster.Options{
		DB:    temporalcluster.DB{Host: pg.Host, Port: pg.Port, User: ipg.Superuser},
		Dir:   dir,
		Nodes: nodes, SearchAttributes: contract.SearchAttributeTypes,
	}
}

// Start sets up pg's databases and runs a cluster of nodes on loopback, stopped in
// t.Cleanup (the kernel kills the nodes if the test binary dies first). Missing binaries
// skip the test (naming `scripts/tools.sh temporal-server`) unless
// SLIPWAY_REQUIRE_TEMPORAL_CLUSTER=1.
func Start(t testing.TB, pg *postgres.Server, nodes int) *temporalcluster.Cluster {
	t.Helper()
	return StartWith(t, Options(pg, nodes, ""))
}

// StartWith is Start with explicit options; an empty Dir gets a fresh one kept on failure.
func StartWith(t testing.TB, o temporalcluster.Options) *temporalcluster.Cluster {
	t.Helper()
	RequireBinaries(t, o.BinDir)
	temp := o.Dir == ""
	if temp {
		dir, err := os.MkdirTemp("", "slipway-temporalcluster-")
		if err != nil {
			t.Fatalf("temporalcluster: temp dir: %v", err)
		}
		o.Dir = dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), startDeadline)
	defer cancel()
	begin := time.Now()
	c, err := temporalcluster.Start(ctx, o)
	if err != nil {
		t.Fatalf("temporalcluster: %v (node logs in %s)", err, o.Dir)
	}
	t.Logf("temporalcluster: setup + %d node(s) up in %v, frontend %s", len(c.Nodes()),
		time.Since(begin).Round(time.Millisecond), c.Frontend())
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("temporalcluster: stop: %v", err)
		}
		if t.Failed() {
			for _, n := range c.Nodes() {
				t.Logf("temporalcluster: %s log tail:\n%s", n.Name(), n.LogTail())
			}
			t.Logf("temporalcluster: node logs kept in %s", o.Dir)
			return
		}
		if temp {
			os.RemoveAll(o.Dir)
		}
	})
	return c
}

// RequireBinaries skips the test when the server release in binDir ("" = the usual places)
// is missing, or fails it when SLIPWAY_REQUIRE_TEMPORAL_CLUSTER=1.
func RequireBinaries(t testing.TB, binDir string) {
	t.Helper()
	_, err := temporalcluster.FindBinaries(binDir)
	var missing *temporalcluster.MissingBinaryError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvRequire) != "1":
		t.Skip(err.Error())
	case err != nil:
		t.Fatal(err.Error())
	}
}
