// Package controlplane decides which worker pool runs an instance's pipelines and refuses an
// operation that would have a pool take itself down mid-pipeline (EDP's circular pair: edp
// deploys observability, observability deploys edp). It is pure: no I/O, table-tested.
package controlplane

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Pool is a named worker pool as it registered itself.
type Pool struct {
	Name string `json:"name"`
	// Self is the instance (tenant/name) the pool runs on, if it declared one (SLIPWAY_SELF).
	Self string `json:"self,omitempty"`
	// TaskQueue is where its pipelines run.
	TaskQueue string `json:"taskQueue"`
	// Mirror says the pool can read the GitOps repo through a mirror while the forge is down.
	Mirror string `json:"mirror,omitempty"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Check accepts a pool name: a DNS-1123 label, since it becomes part of a task queue name.
func Check(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%q is not a worker pool name: use a DNS-1123 label (lowercase letters, digits and '-', at most 63)", name)
	}
	return nil
}

// TaskQueue is the task queue of pool next to base, the queue every worker polls for entities.
func TaskQueue(base, pool string) string {
	if pool == "" {
		return base
	}
	return base + "@" + pool
}

// disruptive are the operations that change or remove a running instance.
var disruptive = []string{"deploy", "archive", "destroy", "deprovision"}

// Disruptive says whether op changes or removes what runs.
func Disruptive(op string) bool { return slices.Contains(disruptive, op) }

// Admit checks that pool may run op on ref: the pool is registered, and unless op leaves the
// instance running as it is, the pool does not run on ref itself. The error names the pools that may.
func Admit(ref, op, pool string, pools []Pool) error {
	var p *Pool
	for i := range pools {
		if pools[i].Name == pool {
			p = &pools[i]
		}
	}
	if p == nil {
		return fmt.Errorf("unknown control plane %q: no worker pool of that name has registered (start one with SLIPWAY_CONTROL_PLANE=%s); known: %s",
			pool, pool, names(pools, ""))
	}
	if p.Self != ref || !Disruptive(op) {
		return nil
	}
	others := names(pools, ref)
	if others == "none" {
		return fmt.Errorf("%s is the instance the %s pool runs on: a %s would take that pool down mid-pipeline, and no other pool is registered to run it; start one and set controlPlane to it",
			ref, pool, op)
	}
	return fmt.Errorf("%s is the instance the %s pool runs on: a %s would take that pool down mid-pipeline; run it from another pool: set controlPlane: %s in its instance file",
		ref, pool, op, strings.Split(others, ", ")[0])
}

// names lists the registered pools, sorted, leaving out those that run on self.
func names(pools []Pool, self string) string {
	var out []string
	for _, p := range pools {
		if self == "" || p.Self != self {
			out = append(out, p.Name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
