// Command chaos proves that nothing is lost and nothing is done twice, whatever crashes:
// on a real Temporal dev server, real git, real terraform with PostgreSQL state, it
// SIGKILLs workers at every step boundary and mid-activity, injects transient faults,
// restarts the server, races concurrent requests and greps every history for secrets,
// then prints the figures and exits non-zero when any is off its target.
//
//	go run ./testsuite/chaos [-lifecycles 200] [-parallel 8] [-fault-rate 0.3] [-phases all]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	if os.Getenv(envRole) == roleWorker {
		os.Exit(workerMain())
	}
	cfg := defaultConfig()
	flag.IntVar(&cfg.Lifecycles, "lifecycles", cfg.Lifecycles, "lifecycles in the transient-fault phase")
	flag.IntVar(&cfg.Parallel, "parallel", cfg.Parallel, "lifecycles at a time in the fault phase")
	flag.IntVar(&cfg.KillParallel, "kill-parallel", cfg.KillParallel, "kill-point lifecycles at a time (one worker each)")
	flag.Float64Var(&cfg.FaultRate, "fault-rate", cfg.FaultRate, "share of forge, terraform and deployer calls that fail")
	flag.IntVar(&cfg.RestartLifecycles, "restart-lifecycles", cfg.RestartLifecycles, "lifecycles running while the dev server restarts")
	flag.IntVar(&cfg.Conflicts, "conflicts", cfg.Conflicts, "concurrent requests on one instance")
	flag.Int64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (0: from the clock)")
	phases := flag.String("phases", "all", "comma-separated: killpoints,faults,restart,conflicts,secrets (secrets always runs last)")
	points := flag.String("points", "", "only the kill points whose name contains one of these comma-separated strings")
	flag.StringVar(&cfg.WorkDir, "workdir", "", "keep logs, repo and state here (default: a temp dir, removed on success)")
	flag.BoolVar(&cfg.Verbose, "v", false, "log each lifecycle")
	flag.StringVar(&cfg.Deployer, "deployer", cfg.Deployer, "none, or argocd: deploy through a real ArgoCD on a local kube-apiserver (adds mid-sync kill points)")
	flag.Parse()
	if err := cfg.setPhases(*phases); err != nil {
		fmt.Fprintln(os.Stderr, "chaos: -phases:", err)
		os.Exit(2)
	}
	cfg.KillPoints = filterPoints(AllKillPoints(cfg.Deployer), *points)
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
	rep.Print(os.Stdout)
	if bad := rep.OffTarget(); len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "chaos: off target: %s\n", strings.Join(bad, "; "))
		os.Exit(1)
	}
}
