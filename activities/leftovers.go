package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// CollectLeftovers is the compensation of a failed step: it looks at the real
// systems and records what is left behind, so nothing is lost without a record.
func (a *Activities) CollectLeftovers(ctx context.Context, in contract.LeftoverInput) ([]contract.Leftover, error) {
	out := []contract.Leftover{}
	err := withHeartbeat(ctx, "collect leftovers", func(ctx context.Context) error {
		out = append(out, a.openMRs(ctx, in.Ref)...)
		out = append(out, a.stateLock(ctx, in.Ref)...)
		switch in.FailedStep {
		case contract.TFApply, contract.TFDestroy:
			out = append(out, a.partialState(ctx, in)...)
		case contract.DeployApp, contract.RemoveApp:
			out = append(out, a.halfSyncedApp(ctx, in.Ref, in.FailedStep == contract.RemoveApp)...)
		case contract.OpenMR, contract.MergeMR:
			out = append(out, a.unwritableRepo(ctx)...)
		}
		return nil
	})
	return out, err
}

func (a *Activities) openMRs(ctx context.Context, ref contract.Ref) []contract.Leftover {
	mrs, err := a.Forge.ListOpen(ctx, contract.BranchPrefix(ref))
	if err != nil {
		return []contract.Leftover{unknown("merge-request", err)}
	}
	var out []contract.Leftover
	for _, mr := range mrs {
		out = append(out, contract.Leftover{Kind: "merge-request", ID: mr.ID,
			Detail:  fmt.Sprintf("open, not merged: %q on branch %s (%s)", mr.Title, mr.Branch, mr.URL),
			Cleanup: "retry merges it; or close it and delete the branch before resolve"})
	}
	return out
}

func (a *Activities) stateLock(ctx context.Context, ref contract.Ref) []contract.Leftover {
	lock, held, err := a.Terraform.Lock(ctx, workspace(ref))
	if err != nil {
		return []contract.Leftover{unknown(contract.LeftoverLock, err)}
	}
	if !held {
		return nil
	}
	return []contract.Leftover{{Kind: contract.LeftoverLock, ID: lock.ID,
		Detail:  fmt.Sprintf("state locked by %s since %s for %s (%s)", lock.Who, lock.Created, lock.Operation, lock.Path),
		Cleanup: fmt.Sprintf("make sure the holder is gone (its worker and host), then: slipway resolve %s --force-unlock %s --reason ...", ref, lock.ID)}}
}

func (a *Activities) partialState(ctx context.Context, in contract.LeftoverInput) []contract.Leftover {
	ref, step := in.Ref, in.FailedStep
	var err error
	if !a.Terraform.Initialized(workspace(ref)) && in.Revision != "" {
		// The failed step ran on another worker: this one reads the shared state through its own working directory.
		err = a.prepare(ctx, contract.TerraformInput{Ref: ref, Revision: in.Revision}, false)
	}
	var res []terraform.Resource
	if err == nil {
		res, err = a.Terraform.Resources(ctx, workspace(ref))
	}
	if err != nil {
		return []contract.Leftover{unknown("terraform-state", err)}
	}
	if len(res) == 0 {
		return nil
	}
	var addrs []string
	tainted := 0
	for _, r := range res {
		addr := r.Address
		if r.Tainted {
			tainted++
			addr += " (tainted)"
		}
		addrs = append(addrs, addr)
	}
	what := "partial apply"
	if step == contract.TFDestroy {
		what = "partial destroy"
	}
	return []contract.Leftover{{Kind: "terraform-state", ID: a.Terraform.Backend() + ":" + ref.String(),
		Detail:  fmt.Sprintf("%s: %d resource(s) in state, %d tainted: %s", what, len(res), tainted, strings.Join(addrs, ", ")),
		Cleanup: "retry re-plans from this state; or clean up with terraform in " + a.Terraform.Dir(workspace(ref))}}
}

func (a *Activities) halfSyncedApp(ctx context.Context, ref contract.Ref, removing bool) []contract.Leftover {
	app, _, err := a.app(ctx, ref, "")
	if err != nil {
		return []contract.Leftover{unknown("app", err)}
	}
	st, err := a.Deployer.Status(ctx, app)
	var foreign *deploy.NotOwnedError
	if errors.As(err, &foreign) {
		return []contract.Leftover{{Kind: "app", ID: foreign.Name, Detail: foreign.Error(),
			Cleanup: "slipway neither replaces nor deletes it: rename or remove it by hand, or deprovision and choose another instance name"}}
	}
	if err != nil {
		return []contract.Leftover{unknown("app", err)}
	}
	secrets, err := a.Secrets.Get(ctx, ref.Tenant, ref.Name)
	if err != nil {
		return []contract.Leftover{unknown("app", err)}
	}
	st = newRedactor(secrets).status(st)
	if !st.Deployed {
		return nil
	}
	if len(st.Clusters) > 0 {
		// Placed on several clusters: what is left is named per cluster, each its own leftover.
		var out []contract.Leftover
		for _, c := range st.Clusters {
			if !removing && c.Reachable && c.Sync == argocd.SyncSynced && c.Health == argocd.HealthHealthy {
				continue // a deploy that failed elsewhere left nothing to do here
			}
			detail := fmt.Sprintf("%s application %s on cluster %s is %s/%s", st.Deployer, c.Application, c.Cluster, c.Sync, c.Health)
			if c.Message != "" {
				detail += ": " + c.Message
			}
			out = append(out, contract.Leftover{Kind: "app", ID: c.Cluster + "/" + c.Application, Detail: detail,
				Cleanup: fmt.Sprintf("retry once cluster %s answers; or delete application %s and namespace %s there by hand", c.Cluster, c.Application, app.Namespace)})
		}
		return out
	}
	return []contract.Leftover{{Kind: "app", ID: app.Namespace,
		Detail:  fmt.Sprintf("%s app is %s/%s: %s", st.Deployer, st.Sync, st.Health, st.Message),
		Cleanup: "retry syncs it again; or delete the app and its namespace by hand"}}
}

// unwritableRepo names why the GitOps repository cannot be written (localgit: a read-only or
// full disk, a stale lock file it cannot remove), which no retry fixes.
func (a *Activities) unwritableRepo(ctx context.Context) []contract.Leftover {
	wc, ok := forge.As[forge.WriteChecker](a.Forge)
	if !ok {
		return nil
	}
	if err := wc.CheckWritable(ctx); err != nil {
		return []contract.Leftover{{Kind: "gitops-repo", ID: a.Forge.RepoURL(), Detail: "cannot be written: " + err.Error(),
			Cleanup: "fix the cause on the worker's host (space, permissions, the mount, the named file), then retry"}}
	}
	return nil
}

func unknown(kind string, err error) contract.Leftover {
	return contract.Leftover{Kind: kind, ID: "unknown", Detail: "could not inspect: " + err.Error(),
		Cleanup: "inspect it by hand"}
}
