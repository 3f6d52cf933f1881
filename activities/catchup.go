package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/names"
)

// catcherUp is a deployer that can sync an app a deploy left behind on a cluster that was down (argocd).
type catcherUp interface {
	CatchUp(ctx context.Context, app deploy.App, cluster string) (bool, error)
}

// catchUp syncs, within the observer's sweep, each cluster of ref's app that a deploy pointed at
// its revision while the cluster was down, once it answers again: a returning cluster converges
// without a deploy (EMCO's rsync keeps retrying; slipway's observer is what notices it came
// back). It changes only what the deploy already decided, at that deploy's revision, and says
// how many syncs it started; a failure is logged and left to the next sweep or deploy.
func (a *Activities) catchUp(ctx context.Context, ref contract.Ref, st contract.AppStatus) int {
	c, ok := a.Deployer.(catcherUp)
	if !ok {
		return 0
	}
	started := 0
	for _, cs := range st.Clusters {
		if cs.Behind == "" {
			continue
		}
		ref.Names = namesOf(ref, st.Application)
		app, err := a.readingOnce().deployable(ctx, ref, cs.Behind)
		if err == nil {
			var ok bool
			if ok, err = c.CatchUp(ctx, app, cs.Cluster); ok {
				started++
			}
		}
		if err != nil {
			activity.GetLogger(ctx).Warn("observer: could not sync a returning cluster", "instance", ref.String(), "cluster", cs.Cluster, "error", err)
		}
	}
	return started
}

// namesOf are the names ref's app was deployed with: the observer lists apps, not instances'
// recorded names, and the app's name says which rule the instance got (names.Derive, or Legacy
// for one provisioned before names were recorded).
func namesOf(ref contract.Ref, application string) *names.Names {
	n := names.Derive(ref.Tenant, ref.Name)
	if n.Application != application {
		if legacy := names.Legacy(ref.Tenant, ref.Name); legacy.Application == application {
			n = legacy
		}
	}
	return &n
}
