package main

import (
	"fmt"
	"strings"
	"time"
)

// Config is one chaos run.
type Config struct {
	Lifecycles        int     // fault phase
	Parallel          int     // fault phase concurrency
	KillParallel      int     // kill-point lifecycles at a time
	FaultRate         float64 // share of client calls that fail
	RestartLifecycles int
	Conflicts         int
	Seed              int64
	Phases            map[string]bool
	KillPoints        []KillPoint // nil: AllKillPoints
	WorkDir           string
	Verbose           bool
	Deployer          string        // none or argocd (a real ArgoCD on a local kube-apiserver)
	OpTimeout         time.Duration // one operation, including worker restarts
}

var allPhases = []string{"killpoints", "faults", "restart", "conflicts", "secrets"}

func defaultConfig() Config {
	return Config{Lifecycles: 200, Parallel: 8, KillParallel: 6, FaultRate: 0.3, RestartLifecycles: 4,
		Conflicts: 20, OpTimeout: 10 * time.Minute, Deployer: "none"}
}

func (c *Config) setPhases(list string) error {
	c.Phases = map[string]bool{"secrets": true}
	if list == "all" || list == "" {
		for _, p := range allPhases {
			c.Phases[p] = true
		}
		return nil
	}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		known := false
		for _, a := range allPhases {
			known = known || a == p
		}
		if !known {
			return fmt.Errorf("%q is not a phase; use %s", p, strings.Join(allPhases, ","))
		}
		c.Phases[p] = true
	}
	return nil
}

func (c Config) validate() error {
	switch {
	case c.Lifecycles < 1:
		return fmt.Errorf("-lifecycles must be at least 1")
	case c.Parallel < 1 || c.KillParallel < 1:
		return fmt.Errorf("-parallel and -kill-parallel must be at least 1")
	case c.FaultRate < 0 || c.FaultRate >= 1:
		return fmt.Errorf("-fault-rate must be in [0, 1)")
	case c.RestartLifecycles < 1:
		return fmt.Errorf("-restart-lifecycles must be at least 1")
	case c.Deployer != "none" && c.Deployer != "argocd":
		return fmt.Errorf("-deployer %q: use none or argocd", c.Deployer)
	case c.KillPoints != nil && len(c.KillPoints) == 0:
		return fmt.Errorf("-points: no kill point matches")
	case c.Conflicts < 2:
		return fmt.Errorf("-conflicts must be at least 2")
	}
	return nil
}

// points are the kill points the run visits.
func (c Config) points() []KillPoint {
	if c.KillPoints == nil {
		return AllKillPoints(c.Deployer)
	}
	return c.KillPoints
}
