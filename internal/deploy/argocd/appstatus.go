package argocd

import (
	"net/url"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// appStatus turns an Application into what slipway shows for the instance's app.
func (d *Deployer) appStatus(a *Application, app deploy.App) contract.AppStatus {
	health := a.Status.Health.Status
	if Unreachable(a) != "" {
		health = HealthUnknown // nobody reaches its cluster: not Ready, whatever was last seen
	}
	return contract.AppStatus{
		Deployer:    d.Name(),
		Deployed:    true,
		Sync:        a.Status.Sync.Status,
		Health:      health,
		Message:     summary(a),
		Resources:   resources(a, app),
		Application: a.Metadata.Name,
	}
}

// summary is the operation's phase and message, then the conditions.
func summary(a *Application) string {
	var parts []string
	if op := a.Status.OperationState; op != nil {
		s := "operation " + op.Phase
		if op.Message != "" {
			s += ": " + op.Message
		}
		parts = append(parts, s)
	}
	if m := a.Status.Health.Message; m != "" {
		parts = append(parts, "health: "+m)
	}
	parts = append(parts, conditions(a)...)
	return strings.Join(parts, "; ")
}

func conditions(a *Application) []string {
	out := make([]string, 0, len(a.Status.Conditions))
	for _, c := range a.Status.Conditions {
		out = append(out, c.Type+": "+c.Message)
	}
	return out
}

type resourceKey struct{ group, kind, namespace, name string }

// resources maps status.resources to EMCO-style statuses. Before ArgoCD has compared
// anything, the caller's manifest objects are listed as Pending/Unknown.
func resources(a *Application, app deploy.App) []contract.Resource {
	cluster := clusterName(a.Spec.Destination)
	failed := map[resourceKey]string{}
	running := false
	if op := a.Status.OperationState; op != nil {
		running = op.Phase == PhaseRunning || op.Phase == PhaseTerminating
		if op.SyncResult != nil {
			for _, r := range op.SyncResult.Resources {
				if r.Status == resultSyncFailed {
					failed[resourceKey{r.Group, r.Kind, r.Namespace, r.Name}] = r.Message
				}
			}
		}
	}
	unreachable := Unreachable(a)
	if len(a.Status.Resources) == 0 {
		out := pendingObjects(app, cluster)
		if unreachable != "" {
			out = retrying(out, unreachable)
		}
		return out
	}
	out := make([]contract.Resource, 0, len(a.Status.Resources))
	for _, r := range a.Status.Resources {
		res := contract.Resource{
			App: app.Ref.Name, Cluster: cluster, Group: r.Group, Version: r.Version, Kind: r.Kind,
			Namespace: r.Namespace, Name: r.Name, ClusterStatus: "Unknown",
		}
		if r.Health != nil {
			res.Health, res.Message = r.Health.Status, r.Health.Message
			switch {
			case r.Health.Status == HealthMissing:
				res.ClusterStatus = "NotPresent"
			case r.Health.Status != "":
				res.ClusterStatus = "Present"
			}
		} else if r.Status == SyncSynced {
			// Kinds without a health check (ConfigMap, Secret, Namespace) report none;
			// Synced means ArgoCD compared the live object with git, so it exists.
			res.ClusterStatus = "Present"
		}
		msg, isFailed := failed[resourceKey{r.Group, r.Kind, r.Namespace, r.Name}]
		switch {
		case isFailed:
			res.RsyncStatus = "Failed"
			if msg != "" {
				res.Message = msg
			}
		case running && r.Status != SyncSynced:
			res.RsyncStatus = "Retrying"
		case r.Status == SyncSynced:
			res.RsyncStatus = "Applied"
		default:
			res.RsyncStatus = "Pending"
		}
		out = append(out, res)
	}
	if unreachable != "" {
		out = retrying(out, unreachable)
	}
	return out
}

// unreachableSigns are what ArgoCD's comparison errors say when it cannot reach the
// destination cluster's API server.
var unreachableSigns = []string{"connection refused", "no such host", "i/o timeout", "dial tcp",
	"unable to connect", "connect: network is unreachable", "the server is currently unable", "failed to get cluster info",
	"context deadline exceeded", "tls handshake timeout", "no route to host", "failed to sync cluster"}

// Unreachable is ArgoCD's message when it reports the application's destination cluster
// unreachable (a ComparisonError or UnknownError naming a failed connection), else "".
func Unreachable(a *Application) string {
	for _, c := range a.Status.Conditions {
		if c.Type != "ComparisonError" && c.Type != "UnknownError" {
			continue
		}
		m := strings.ToLower(c.Message)
		for _, sign := range unreachableSigns {
			if strings.Contains(m, sign) {
				return c.Message
			}
		}
	}
	return ""
}

// retrying marks resources on an unreachable cluster as EMCO does: rsync-status Retrying
// (ArgoCD keeps trying), cluster-status Unknown (nobody can see it).
func retrying(rs []contract.Resource, why string) []contract.Resource {
	for i := range rs {
		if rs[i].RsyncStatus != "Failed" {
			rs[i].RsyncStatus = "Retrying"
		}
		rs[i].ClusterStatus, rs[i].Message = "Unknown", "cluster unreachable: "+why
	}
	return rs
}

func pendingObjects(app deploy.App, cluster string) []contract.Resource {
	var out []contract.Resource
	for _, o := range app.Objects {
		group, version := "", o.APIVersion
		if g, v, ok := strings.Cut(o.APIVersion, "/"); ok {
			group, version = g, v
		}
		out = append(out, contract.Resource{
			App: app.Ref.Name, Cluster: cluster, Group: group, Version: version, Kind: o.Kind,
			Namespace: o.Namespace, Name: o.Name, RsyncStatus: "Pending", ClusterStatus: "Unknown",
		})
	}
	return out
}

// clusterName is "in-cluster" for the cluster ArgoCD runs in, else the API server's host.
func clusterName(dest ApplicationDestination) string {
	if dest.Server == DefaultDestination || dest.Name == "in-cluster" {
		return "in-cluster"
	}
	if dest.Server == "" {
		return dest.Name
	}
	if u, err := url.Parse(dest.Server); err == nil && u.Host != "" {
		return u.Host
	}
	return dest.Server
}
