package cli

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) rolloutCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Roll a change out to a stack's instances in batches (plan, start, status, pause, resume, abort, list, undo, approve)",
		Long: `A rollout deploys a change (--set key=value on every instance's config, or --stack-rev REV: the
stack as main holds it at REV) to every Deployed instance of a stack, batch after batch, as a
StatefulSet rolls pods. It first computes the action list: each instance with its current and
desired config and its batch, and the instances it skips and why. An instance counts as done
when its deploy succeeded; ready/updated/total follow as ReadyReplicas/UpdatedReplicas/Replicas.
The rollout stops when --max-failures instances failed; resume retries them.`,
	}
	cmd.AddCommand(g.rolloutPlanCmd(), g.rolloutStartCmd(), g.rolloutStatusCmd(), g.rolloutListCmd(),
		g.rolloutControlCmd(contract.UpdateRolloutPause, "Stop starting deploys; those in flight finish"),
		g.rolloutControlCmd(contract.UpdateRolloutResume, "Go on; after a stop, the failed instances are retried first"),
		g.rolloutControlCmd(contract.UpdateRolloutAbort, "End the rollout; deploys in flight finish on their instances"),
		g.rolloutUndoCmd(), g.rolloutApproveCmd())
	return cmd
}

// rolloutFlags are the flags plan and start share.
type rolloutFlags struct {
	stack, tenant, stackRev, batch, order, id, to string
	set                                           []string
	maxUnavailable, maxFailures, priority, canary int
	pauseAfter, allowDowngrade                    bool
	watch                                         time.Duration
}

func (f *rolloutFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.stack, "stack", "", "the stack whose instances to roll (required)")
	fl.StringVar(&f.tenant, "tenant", "", "only this tenant's instances")
	fl.StringArrayVar(&f.set, "set", nil, "key=value to set in every instance's parameters (YAML value; repeatable)")
	fl.StringVar(&f.stackRev, "stack-rev", "", "roll out the stack as main holds it at this commit")
	fl.StringVar(&f.batch, "batch", "25%", "batch size: N instances, or P% of those to update")
	fl.IntVar(&f.maxUnavailable, "max-unavailable", 0, "deploys in flight at once within a batch (0: the whole batch)")
	fl.StringVar(&f.order, "order", contract.OrderName, "instance order: name, or ordinal (the number ending the name, as StatefulSet pods)")
	fl.BoolVar(&f.pauseAfter, "pause-after-batch", false, "pause after each batch until `rollout resume`")
	fl.IntVar(&f.maxFailures, "max-failures", 1, "stop once this many instances have failed")
	fl.IntVar(&f.priority, "priority", contract.PriorityRollout, fmt.Sprintf("task queue priority of the rollout's deploys: 1 (first; a person's own requests) to %d (last; drift sweeps)", contract.PriorityLowest))
	fl.StringVar(&f.to, "to", "", "re-pin every instance to this release of the stack (stack: S@RELEASE) and deploy it")
	fl.BoolVar(&f.allowDowngrade, "allow-downgrade", false, "let --to be older than an instance's release (a rollback)")
	fl.IntVar(&f.canary, "canary", 0, "a first wave of this many instances before the batches")
	fl.DurationVar(&f.watch, "watch", 0, "after each wave, wait until its instances are Ready and watch them this long; one turning un-Ready pauses the rollout")
}

var labelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// spec checks every flag and names the bad one; nothing is sent before it passes.
func (f *rolloutFlags) spec(g *globals) (contract.RolloutSpec, error) {
	s := contract.RolloutSpec{ID: f.id, Stack: f.stack, Tenant: f.tenant, StackRev: f.stackRev, Order: f.order,
		MaxUnavailable: f.maxUnavailable, MaxFailures: f.maxFailures, PauseAfter: f.pauseAfter, Actor: g.actor, Priority: f.priority,
		To: f.to, AllowDowngrade: f.allowDowngrade, Canary: f.canary, Watch: f.watch}
	switch {
	case f.stack == "":
		return s, usageErr("--stack: required (the stack whose instances to roll)")
	case !labelRE.MatchString(f.stack):
		return s, usageErr("--stack %q: must be a lowercase label (a-z, 0-9, -)", f.stack)
	case f.tenant != "" && !labelRE.MatchString(f.tenant):
		return s, usageErr("--tenant %q: must be a lowercase label (a-z, 0-9, -)", f.tenant)
	case len(f.set) == 0 && f.stackRev == "" && f.to == "":
		return s, usageErr("--set key=value, --stack-rev REV or --to RELEASE: say what to roll out")
	case f.to != "" && (len(f.set) > 0 || f.stackRev != ""):
		return s, usageErr("--to %s: a re-pin rolls out a release alone; roll --set or --stack-rev out separately", f.to)
	case f.to != "" && !releaseRE.MatchString(f.to):
		return s, usageErr("--to %q: must name a release, e.g. 1.5.0", f.to)
	case f.canary < 0:
		return s, usageErr("--canary: must not be negative, got %d", f.canary)
	case f.watch < 0:
		return s, usageErr("--watch: must not be negative, got %s", f.watch)
	case f.stackRev != "" && !regexp.MustCompile(`^[0-9a-f]{4,64}$`).MatchString(f.stackRev):
		return s, usageErr("--stack-rev %q: must be a commit SHA (hex)", f.stackRev)
	case f.order != contract.OrderName && f.order != contract.OrderOrdinal:
		return s, usageErr("--order %q: must be name or ordinal", f.order)
	case f.maxUnavailable < 0:
		return s, usageErr("--max-unavailable: must not be negative, got %d", f.maxUnavailable)
	case f.maxFailures < 1:
		return s, usageErr("--max-failures: must be at least 1, got %d", f.maxFailures)
	case f.priority < 1 || f.priority > contract.PriorityLowest:
		return s, usageErr("--priority %d: out of range: 1 (first) to %d (last)", f.priority, contract.PriorityLowest)
	case f.id != "" && !labelRE.MatchString(f.id):
		return s, usageErr("--id %q: must be a lowercase label (a-z, 0-9, -)", f.id)
	}
	for _, kv := range f.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return s, usageErr("--set %q: must be key=value", kv)
		}
		s.Set = append(s.Set, contract.Setting{Key: k, Value: v})
	}
	var err error
	if s.BatchSize, s.BatchPercent, err = parseBatch(f.batch); err != nil {
		return s, err
	}
	if s.ID == "" {
		s.ID = "r-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:8]
	}
	return s, nil
}

// parseBatch reads --batch N or --batch P%.
func parseBatch(b string) (size, percent int, err error) {
	if p, ok := strings.CutSuffix(b, "%"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 100 {
			return 0, 0, usageErr("--batch %q: a percentage must be 1%% to 100%%", b)
		}
		return 0, n, nil
	}
	n, err := strconv.Atoi(b)
	if err != nil || n < 1 {
		return 0, 0, usageErr("--batch %q: must be at least 1 instance, or a percentage such as 10%%", b)
	}
	return n, 0, nil
}

// withPlan checks the flags, computes the action list on a worker, and hands both to fn; with
// --server the plan comes through the server and fn gets no client.
func (g *globals) withPlan(cmd *cobra.Command, f *rolloutFlags, fn func(*client.Client, contract.RolloutSpec, contract.RolloutPlan) error) error {
	spec, err := f.spec(g)
	if err != nil {
		return err
	}
	api, err := g.api()
	if err != nil {
		return err
	}
	if api != nil {
		plan, err := api.PlanRollout(cmd.Context(), spec)
		if err != nil {
			return err
		}
		return fn(nil, spec, plan)
	}
	return g.withSignedClient(cmd, func(c *client.Client) error {
		plan, err := c.PlanRollout(cmd.Context(), spec)
		if err != nil {
			return err
		}
		return fn(c, spec, plan)
	})
}

func (g *globals) rolloutPlanCmd() *cobra.Command {
	var f rolloutFlags
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "plan --stack S (--set key=value | --stack-rev REV) [--tenant T] [--batch N|P%] [--order name|ordinal]",
		Short: "Print the action list a rollout would run, batch by batch; changes nothing",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withPlan(cmd, &f, func(c *client.Client, spec contract.RolloutSpec, plan contract.RolloutPlan) error {
				return g.output(out, plan, func(w io.Writer) { writeRolloutPlan(w, spec, plan) })
			})
		},
	}
	f.add(cmd)
	out = outputFlag(cmd)
	return cmd
}

func (g *globals) rolloutStartCmd() *cobra.Command {
	var f rolloutFlags
	var wait bool
	cmd := &cobra.Command{
		Use:   "start --stack S (--set key=value | --stack-rev REV) [--tenant T] [--batch N|P%] [--max-unavailable N] [--order name|ordinal] [--pause-after-batch] [--max-failures N] [--id ID] [--wait]",
		Short: "Start a rollout (workflow rollout/<id>); --wait follows it to its end",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if api, err := g.api(); err != nil || api != nil {
				if err != nil {
					return err
				}
				spec, err := f.spec(g)
				if err != nil {
					return err
				}
				// The server plans first, so bad input starts nothing; the policy decides on the start.
				plan, err := api.StartRollout(cmd.Context(), spec)
				if err != nil {
					return err
				}
				g.printf("rollout %s started (workflow %s): %s\n", spec.ID, contract.RolloutWorkflowID(spec.ID), rolloutPlanLine(spec, plan))
				if !wait {
					return nil
				}
				return g.withClient(cmd, func(c *client.Client) error { return g.followRollout(cmd, c, spec.ID) })
			}
			// The plan checks the stack and every --set on a worker first: bad input starts nothing.
			return g.withPlan(cmd, &f, func(c *client.Client, spec contract.RolloutSpec, plan contract.RolloutPlan) error {
				if err := c.StartRollout(cmd.Context(), spec); err != nil {
					return err
				}
				g.printf("rollout %s started (workflow %s): %s\n", spec.ID, contract.RolloutWorkflowID(spec.ID), rolloutPlanLine(spec, plan))
				if !wait {
					return nil
				}
				return g.followRollout(cmd, c, spec.ID)
			})
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&f.id, "id", "", "the rollout's ID (default: r-<random>)")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the rollout until it completes, stops or is aborted")
	return cmd
}
