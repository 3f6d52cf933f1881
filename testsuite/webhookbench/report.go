package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// drainTimeout bounds the wait for the saturated worker to carry out every recorded delivery.
const drainTimeout = 30 * time.Minute

func report(ctx context.Context, env *devenv.Env, plan []delivery, out []outcome, redelivered int, wall time.Duration, o options) error {
	codes := map[int]int{}
	var lat, outageLat []time.Duration
	for _, oc := range out {
		codes[oc.code]++
		if oc.during {
			outageLat = append(outageLat, oc.elapsed)
		} else if oc.code == 202 || oc.code == 200 {
			lat = append(lat, oc.elapsed)
		}
	}
	unique := map[string]bool{}
	for _, d := range plan {
		if !d.badSig {
			unique[d.instance] = true
		}
	}
	if o.worker == "none" {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("webhook flood with no worker: %d deliveries, %d at a time, in %s\n", len(plan), o.conc, wall.Round(time.Millisecond))
		fmt.Printf("  receipt -> answer   p50 %s  p99 %s  (%d answers; nothing carried out, so no loss figures)\n", pct(lat, 0.50), pct(lat, 0.99), len(lat))
		return nil
	}
	queuedDeliveries, queuedProvisions, err := backlog(ctx, env)
	if err != nil {
		return err
	}
	began := time.Now()
	lost, doubles, badStarts, err := audit(ctx, env, plan, unique)
	if err != nil {
		return err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	sort.Slice(outageLat, func(i, j int) bool { return outageLat[i] < outageLat[j] })
	fmt.Printf("webhook flood: %d deliveries, %d at a time, in %s; Temporal frozen for %s halfway\n", len(plan), o.conc, wall.Round(time.Millisecond), o.outage)
	fmt.Printf("  receipt -> answer, outside the outage   p50 %s  p99 %s  max %s  (%d answers; target p99 < 50ms)\n",
		pct(lat, 0.50), pct(lat, 0.99), pct(lat, 1), len(lat))
	fmt.Printf("  p99 by hundred deliveries, as the worker saturates: %s\n", byHundred(out))
	fmt.Printf("  sent during the outage, final answer    p50 %s  p99 %s  (%d deliveries; a 5xx one counts its redelivery)\n", pct(outageLat, 0.50), pct(outageLat, 0.99), len(outageLat))
	fmt.Printf("  final answers: 202 %d, 200 duplicate %d, 401 bad signature %d, other %d\n",
		codes[202], codes[200], codes[401], len(out)-codes[202]-codes[200]-codes[401])
	fmt.Printf("  worker backlog when the flood ended   %d delivery records, %d provisions not yet done\n", queuedDeliveries, queuedProvisions)
	fmt.Printf("  redelivered after a 5xx               %d\n", redelivered)
	fmt.Printf("  unique signed deliveries              %d\n", len(unique))
	fmt.Printf("  lost (no provision ever requested)    %d  (target 0)\n", lost)
	fmt.Printf("  double starts                         %d  (target 0)\n", doubles)
	fmt.Printf("  starts from bad signatures            %d  (target 0)\n", badStarts)
	fmt.Printf("  worker carried out every record in    %s after the flood\n", time.Since(began).Round(time.Second))
	if lost != 0 || doubles != 0 || badStarts != 0 {
		return fmt.Errorf("figures off target: %d lost, %d double starts, %d starts from bad signatures", lost, doubles, badStarts)
	}
	return nil
}

// backlog counts what the worker still has to do: delivery records not yet carried out, and
// instances whose provision has not finished.
func backlog(ctx context.Context, env *devenv.Env) (deliveries, provisions int64, err error) {
	count := func(q string) (int64, error) {
		resp, err := env.Client.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: env.Client.Namespace, Query: q})
		return resp.GetCount(), err
	}
	if deliveries, err = count(fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", contract.DeliveryWorkflowName)); err != nil {
		return 0, 0, err
	}
	provisions, err = count(fmt.Sprintf("WorkflowType = '%s' AND InstanceState IN ('%s', '%s')",
		contract.InstanceWorkflowName, lifecycle.NoConfiguration, lifecycle.Provisioning))
	return deliveries, provisions, err
}

// audit waits until every recorded delivery is carried out, then counts signed deliveries
// whose instance never got its provision, instances that ran more than one operation, and
// instances started only by a badly signed delivery.
func audit(ctx context.Context, env *devenv.Env, plan []delivery, unique map[string]bool) (lost, doubles, badStarts int, err error) {
	deadline := time.Now().Add(drainTimeout)
	for {
		d, _, err := backlog(ctx, env)
		if err != nil {
			return 0, 0, 0, err
		}
		if d == 0 {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, 0, fmt.Errorf("%d delivery records still running after %s", d, drainTimeout)
		}
		time.Sleep(time.Second)
	}
	seen := map[string]bool{}
	for _, d := range plan {
		if seen[d.instance] {
			continue
		}
		seen[d.instance] = true
		ref := contract.Ref{Tenant: "bench", Name: d.instance}
		_, derr := env.Client.Temporal.DescribeWorkflowExecution(ctx, contract.InstanceWorkflowID(ref), "")
		var nf *serviceerror.NotFound
		switch {
		case errors.As(derr, &nf) && unique[d.instance]:
			lost++
			fmt.Printf("  lost: %s (delivery %s): %s\n", ref, d.id, explain(ctx, env, d))
			continue
		case errors.As(derr, &nf):
			continue // never started: right for a bad signature
		case derr != nil:
			return 0, 0, 0, fmt.Errorf("describe %s: %w", ref, derr)
		case !unique[d.instance]:
			badStarts++
			continue
		}
		st, err := statusWithRetry(ctx, env, ref)
		if err != nil {
			return 0, 0, 0, err
		}
		if len(st.History) > 0 {
			doubles++
		}
	}
	return lost, doubles, badStarts, nil
}

// statusWithRetry queries an instance; a worker still busy with the flood may time a query out.
func statusWithRetry(ctx context.Context, env *devenv.Env, ref contract.Ref) (*contract.Status, error) {
	var err error
	for i := 0; i < 20; i++ {
		var st *contract.Status
		if st, err = env.Client.Status(ctx, ref, contract.StatusRequest{Output: contract.OutputAll}); err == nil {
			return st, nil
		}
		time.Sleep(time.Second)
	}
	return nil, fmt.Errorf("status of %s: %w", ref, err)
}

// explain says what the delivery's record holds, for a lost delivery.
func explain(ctx context.Context, env *devenv.Env, d delivery) string {
	var res contract.DeliveryResult
	err := env.Client.Temporal.GetWorkflow(ctx, contract.DeliveryWorkflowID("github", d.id), "").Get(ctx, &res)
	if err != nil {
		return "no record: " + err.Error()
	}
	return fmt.Sprintf("record outcomes %+v", res.Outcomes)
}

// byHundred is the p99 of each hundred deliveries in sending order, outage and 5xx left out.
func byHundred(out []outcome) string {
	var parts []string
	for i := 0; i < len(out); i += 100 {
		var l []time.Duration
		for _, oc := range out[i:min(i+100, len(out))] {
			if !oc.during && (oc.code == 202 || oc.code == 200) {
				l = append(l, oc.elapsed)
			}
		}
		sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
		parts = append(parts, pct(l, 0.99).Round(time.Millisecond).String())
	}
	return strings.Join(parts, " ")
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[int(float64(len(d)-1)*p)].Round(100 * time.Microsecond)
}
