package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/slipway-dev/slipway/internal/devenv"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

func report(ctx context.Context, env *devenv.Env, plan []delivery, out []outcome, wall time.Duration, conc int) error {
	var accepted, refused, duplicates, started, badStarts int
	var lat []time.Duration
	for _, o := range out {
		switch {
		case o.code == 202:
			accepted++
			lat = append(lat, o.elapsed)
		case o.code == 401:
			refused++
		case o.code == 200:
			duplicates++
		}
		started += o.started
		if o.d.badSig && o.started > 0 {
			badStarts++
		}
	}
	unique := map[string]bool{}
	for _, d := range plan {
		if !d.badSig {
			unique[d.instance] = true
		}
	}
	doubles, err := doubleStarts(ctx, env, unique)
	if err != nil {
		return err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("webhook flood: %d deliveries, %d at a time, in %s\n", len(plan), conc, wall.Round(time.Millisecond))
	fmt.Printf("  accepted (202)            %d\n", accepted)
	fmt.Printf("  duplicates (200)          %d\n", duplicates)
	fmt.Printf("  refused, bad signature    %d\n", refused)
	fmt.Printf("  started                   %d (unique signed instances: %d)\n", started, len(unique))
	fmt.Printf("  double starts             %d\n", doubles)
	fmt.Printf("  starts from bad signature %d\n", badStarts)
	fmt.Printf("  receipt -> workflow start p50 %s  p99 %s\n", pct(lat, 0.50), pct(lat, 0.99))
	if doubles != 0 || badStarts != 0 || started != len(unique) {
		return fmt.Errorf("figures off target: %d double starts, %d starts from bad signatures, %d started for %d instances", doubles, badStarts, started, len(unique))
	}
	return nil
}

// doubleStarts counts instances whose entity ran more than one operation.
func doubleStarts(ctx context.Context, env *devenv.Env, unique map[string]bool) (int, error) {
	doubles := 0
	for name := range unique {
		ref := steps.Ref{Tenant: "bench", Name: name}
		st, err := env.Client.Status(ctx, ref, workflows.StatusRequest{Output: workflows.OutputAll})
		if err != nil {
			return 0, fmt.Errorf("status of %s: %w", ref, err)
		}
		if len(st.History) > 0 {
			doubles++
		}
	}
	return doubles, nil
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[int(float64(len(d)-1)*p)].Round(time.Millisecond)
}
