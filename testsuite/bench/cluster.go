package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

// clusterRows runs the largest lifecycle row on a real Temporal server over PostgreSQL (the
// production engine, as docker-compose.yml runs it) with one and with three worker processes.
// Instant adapters keep their state in their worker's memory, so each worker serves a task
// queue of its own and the lifecycles are spread over the queues: the server sees three
// workers' load, as it would from three hosts.
func (b *bench) clusterRows(ctx context.Context) error {
	env, err := devenv.Start(ctx, devenv.EnvOptions{StateDir: filepath.Join(b.dir, "cluster"), Headless: true,
		Deployer: "none", TaskQueue: "bench-cluster", NoWorker: true, Temporal: devenv.EnginePostgres})
	if err != nil {
		return err
	}
	defer env.Stop()
	if env.Cluster == nil {
		return fmt.Errorf("the cluster row needs a Temporal cluster of its own, but found a server at %s", env.Address)
	}
	var server []int
	for _, n := range env.Cluster.Cluster.Nodes() {
		server = append(server, n.Pid())
	}
	n := b.o.lifecycles[len(b.o.lifecycles)-1]
	for _, workers := range b.o.clusterWorkers {
		f := fleet{server: server, database: env.Cluster.Postgres.PID(), temporal: env.Client.Temporal}
		for i := 0; i < workers; i++ {
			tq := fmt.Sprintf("bench-cluster-%d-%d", workers, i)
			w, err := startWorker(b.dir, env.Address, env.KeyFile, tq, workerapp.DefaultStickyCache)
			if err != nil {
				return err
			}
			defer w.stop()
			if err := waitPoller(ctx, env.Client.Temporal, tq); err != nil {
				return err
			}
			f.workers = append(f.workers, w)
			f.clients = append(f.clients, client.New(env.Client.Temporal, tq, ""))
		}
		l, err := f.run(ctx, fmt.Sprintf("cluster%d", workers), n)
		if err != nil {
			return err
		}
		r := l.row("cluster (Temporal server on PostgreSQL, instant adapters)", fmt.Sprintf("%d concurrent, %d worker(s)", n, workers))
		r.Note = fmt.Sprintf("PostgreSQL used %.0f ms CPU each besides the Temporal node's", ms(l.database)/float64(n))
		b.rep.add(r)
	}
	return nil
}
