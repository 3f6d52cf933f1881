package production

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite/packaging"
)

// envFigures names a directory that receives the report, so `make test` prints it even
// when go test keeps a passing package's output to itself.
const envFigures = "SLIPWAY_FIGURES_DIR"

// Any number of stateless workers run slipway on a Temporal cluster, and losing a worker,
// its disk or a Temporal node changes nothing but timing.
func TestProductionTopologyLosesHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("the production topology runs 20 lifecycles for minutes")
	}
	lifecycles, parallel := 20, 5
	if v, err := strconv.Atoi(os.Getenv("SLIPWAY_PRODUCTION_LIFECYCLES")); err == nil && v > 0 {
		lifecycles = v
	}
	ctx := context.Background()
	w := newWorld(t, 3)
	// The Helm chart describes this topology: the world's kube-apiserver checks it, by dry run.
	t.Run("chart", func(t *testing.T) { packaging.CheckOnCluster(t, w.argo) })

	// With authorization on, people and strangers try the running baseline instance once it is
	// deployed; the lifecycle then goes on, so nothing they tried may have changed it.
	var authzChecks time.Duration
	var hooks []stepHook
	if w.idp != nil {
		hooks = append(hooks, stepHook{label: "deploy", fn: func() { authzChecks = w.checkAuthorization(ctx, contract.Ref{Tenant: "base", Name: "clean"}) }})
	}
	base := w.run(ctx, contract.Ref{Tenant: "base", Name: "clean"}, hooks...)
	require.True(t, base.completed, "the clean baseline lifecycle: %s", base.failed)
	if w.idp != nil {
		require.NotZero(t, authzChecks, "the authorization checks did not run")
	}

	seed := time.Now().UnixNano()
	stop := make(chan struct{})
	h := w.havoc(ctx, rand.New(rand.NewPCG(uint64(seed), 0)), stop)
	begin := time.Now()
	outcomes := make([]outcome, lifecycles)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			outcomes[i] = w.run(ctx, contract.Ref{Tenant: "prod", Name: fmt.Sprintf("i%02d", i+1)})
		}()
	}
	wg.Wait()
	took := time.Since(begin)
	close(stop)
	h.wait()

	prs, err := w.pullRequests(ctx)
	require.NoError(t, err)
	want, err := w.audit(ctx, base.ref, prs)
	require.NoError(t, err)
	// The duplicate count compares provisioner lines: with none in the baseline it could never fail.
	require.Positive(t, want.applies, "the baseline's provisioners wrote no apply to the effects log")
	require.Positive(t, want.destroys, "the baseline's provisioners wrote no destroy to the effects log")
	require.Equal(t, 1, want.born, "the baseline created time_static once")
	rep := report{lifecycles: lifecycles, parallel: parallel, seed: seed, took: took, baseline: want, havoc: h,
		authz: "off (no identity provider: node or its node_modules missing)"}
	if w.idp != nil {
		rep.authz = fmt.Sprintf("on (JWT authorizer, default claim mapper): provider up in %v, people's and strangers' attempts checked in %v",
			w.authzSetup.Round(time.Millisecond), authzChecks.Round(time.Millisecond))
	}
	for _, o := range outcomes {
		a, err := w.audit(ctx, o.ref, prs)
		require.NoError(t, err)
		rep.add(o, a)
	}
	var out strings.Builder
	rep.print(&out)
	t.Log("\n" + out.String())
	if dir := os.Getenv(envFigures); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "production-topology.txt"), []byte(out.String()), 0o644))
	}
	require.Empty(t, h.errs, "losing hosts went wrong")
	require.Empty(t, rep.offTarget(), "figures off target")
}

// report holds the run's figures.
type report struct {
	lifecycles, parallel int
	seed                 int64
	took                 time.Duration
	authz                string // the server's authorization, and what it cost
	baseline             audit
	havoc                *havoc

	completed, failedStates                    int
	dupPRs, dupMerges, dupEffects, serialJumps int
	lost, extra                                int
	secretSets, secretChanges, emptySecrets    int
	fullSecretSets                             int
	cutShort                                   int
	// time_static: creations beyond the baseline's whose terraform died before saving state
	// (terraform's own limit), any other, and lifecycles whose state saw it change.
	bornCutShort, bornAgain, bornMoved int
	durations                          []time.Duration
	failures, notes                    []string
}

func (r *report) add(o outcome, a audit) {
	if o.completed {
		r.completed++
	} else {
		r.failures = append(r.failures, fmt.Sprintf("%s: %s", o.ref, o.failed))
	}
	r.durations = append(r.durations, o.took)
	b := r.baseline
	r.failedStates += a.failedOps
	r.dupPRs += max(0, a.prs-b.prs)
	r.dupMerges += max(0, a.merged-b.merged)
	r.dupEffects += max(0, a.applies+a.destroys-a.cutShort-b.applies-b.destroys)
	r.cutShort += a.cutShort
	r.serialJumps += max(0, a.serial-b.serial)
	r.bornCutShort += min(a.bornCutShort, max(0, a.born-b.born))
	r.bornAgain += max(0, a.born-a.bornCutShort-b.born)
	for _, born := range o.born[min(1, len(o.born)):] {
		if born != o.born[0] {
			r.bornMoved++
			r.failures = append(r.failures, fmt.Sprintf("%s: time_static re-created in the state: %v", o.ref, o.born))
			break
		}
	}
	r.lost += a.lost
	r.extra += a.extra
	if o.completed && len(o.secretSets) == 4 {
		r.fullSecretSets++
	}
	if d := a.applies + a.destroys - a.cutShort - b.applies - b.destroys; d > 0 || a.prs != b.prs || a.merged != b.merged || a.serial > b.serial {
		r.notes = append(r.notes, fmt.Sprintf("%s differs from the baseline: %d PRs, %d merged, %d applies, %d destroys (%d cut short), serial %d (baseline %d, %d, %d, %d, %d)",
			o.ref, a.prs, a.merged, a.applies, a.destroys, a.cutShort, a.serial, b.prs, b.merged, b.applies, b.destroys, b.serial))
	}
	for i, set := range o.secretSets {
		r.secretSets++
		if len(set) == 0 || slices.Contains(valuesOf(set), "") {
			r.emptySecrets++
		}
		if i > 0 && !maps(set, o.secretSets[0]) {
			r.secretChanges++
			r.failures = append(r.failures, fmt.Sprintf("%s: Secret changed after deploy %d", o.ref, i+1))
		}
	}
}

func valuesOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// offTarget names every figure that is off its target.
func (r *report) offTarget() []string {
	var off []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			off = append(off, fmt.Sprintf(format, args...))
		}
	}
	h := r.havoc
	check(r.completed == r.lifecycles, "lifecycles completed %d/%d", r.completed, r.lifecycles)
	check(r.failedStates == 0, "*Failed states %d", r.failedStates)
	check(h.kills >= 3, "worker kills %d < 3", h.kills)
	check(h.wipes >= 1, "state dirs deleted %d < 1", h.wipes)
	check(h.nodeKills >= 1 && h.nodeRestarts == h.nodeKills, "Temporal node kills %d, restarts %d", h.nodeKills, h.nodeRestarts)
	check(r.dupPRs == 0, "duplicate PRs %d", r.dupPRs)
	check(r.dupMerges == 0, "duplicate merges %d", r.dupMerges)
	check(r.dupEffects == 0, "duplicate applies+destroys %d", r.dupEffects)
	check(r.serialJumps == 0, "state serial jumps %d", r.serialJumps)
	check(r.bornAgain == 0 && r.bornMoved == 0, "time_static re-created %d times (state changed in %d lifecycles)", r.bornAgain, r.bornMoved)
	check(r.lost == 0, "lost records %d", r.lost)
	check(r.extra == 0, "extra operations %d", r.extra)
	check(r.fullSecretSets == r.completed, "lifecycles with the Secret read after all 4 deploys %d/%d", r.fullSecretSets, r.completed)
	check(r.secretChanges == 0, "Secrets changed across updates %d", r.secretChanges)
	check(r.emptySecrets == 0, "Secrets with no or empty values %d", r.emptySecrets)
	return off
}

func (r *report) print(out io.Writer) {
	h := r.havoc
	slices.Sort(r.durations)
	p := func(q float64) time.Duration {
		if len(r.durations) == 0 {
			return 0
		}
		return r.durations[int(q*float64(len(r.durations)-1))].Round(100 * time.Millisecond)
	}
	b := r.baseline
	fmt.Fprintf(out, "PRODUCTION TOPOLOGY: Temporal cluster (2 nodes, PostgreSQL), 3 stateless workers, terraform pg backend,\n")
	fmt.Fprintf(out, "shared sealed plan/secret store, Gitea, ArgoCD; %d lifecycles %d at a time (seed %d)\n", r.lifecycles, r.parallel, r.seed)
	fmt.Fprintf(out, "lifecycle: create, deploy, update, update, archive, deploy, destroy, deprovision\n")
	fmt.Fprintf(out, "stack: the example, a provisioner per create and destroy, and the real hashicorp/time from a mirror\n")
	fmt.Fprintf(out, "Temporal authorization: %s\n\n", r.authz)
	fmt.Fprintf(out, "what was lost while they ran:\n")
	for _, e := range h.events {
		fmt.Fprintf(out, "  %s\n", e)
	}
	fmt.Fprintf(out, "\nclean baseline per lifecycle: %d PRs, %d merges, %d applies, %d destroys, %d time_static, serial %d\n\n",
		b.prs, b.merged, b.applies, b.destroys, b.born, b.serial)
	rows := [][3]string{
		{"lifecycles completed", fmt.Sprintf("%d/%d", r.completed, r.lifecycles), "target 100%"},
		{"*Failed states", fmt.Sprint(r.failedStates), "target 0"},
		{"worker kills (SIGKILL, restarted)", fmt.Sprint(h.kills), "target ≥ 3"},
		{"state dirs deleted before restart", fmt.Sprint(h.wipes), "target ≥ 1"},
		{"Temporal node kills / restarts", fmt.Sprintf("%d / %d", h.nodeKills, h.nodeRestarts), "target ≥ 1, all back"},
		{"duplicate PRs / merges", fmt.Sprintf("%d / %d", r.dupPRs, r.dupMerges), "target 0"},
		{"duplicate applies+destroys", fmt.Sprint(r.dupEffects), "target 0"},
		{"effects redone after their terraform died", fmt.Sprint(r.cutShort), "(terraform persists remote state at the end)"},
		{"state serial jumps", fmt.Sprint(r.serialJumps), "target 0"},
		{"kills mid-apply / with the provider", fmt.Sprintf("%d / %d", h.midApply, h.midProvider), "(terraform or tofu apply/destroy in the killed tree)"},
		{"time_static re-created (tf killed)", fmt.Sprint(r.bornCutShort), "(before saving the state: terraform's limit)"},
		{"time_static re-created otherwise", fmt.Sprintf("%d (state changed: %d)", r.bornAgain, r.bornMoved), "target 0"},
		{"lost records / extra operations", fmt.Sprintf("%d / %d", r.lost, r.extra), "target 0"},
		{"Secrets read on the cluster", fmt.Sprint(r.secretSets), "target 4 per lifecycle"},
		{"Secrets changed across updates", fmt.Sprint(r.secretChanges), "target 0"},
		{"lifecycle time p50 / p90 / max", fmt.Sprintf("%v / %v / %v", p(0.5), p(0.9), p(1)), ""},
		{"wall time", r.took.Round(time.Second).String(), ""},
	}
	for _, row := range rows {
		fmt.Fprintf(out, "%-36s %-18s %s\n", row[0], row[1], row[2])
	}
	for _, f := range r.failures {
		fmt.Fprintf(out, "FAILED %s\n", f)
	}
	for _, n := range r.notes {
		fmt.Fprintf(out, "NOTE %s\n", n)
	}
	if off := r.offTarget(); len(off) > 0 {
		fmt.Fprintf(out, "\nOFF TARGET: %s\n", strings.Join(off, "; "))
	}
}
