package argocd

import (
	"context"

	"github.com/slipway-dev/slipway/internal/contract"
)

// downClusters are the clusters ArgoCD fails to connect to, by server URL and by name, with
// its message. A token that may not list clusters gives none: the apps' conditions still tell.
func (d *Deployer) downClusters(ctx context.Context) map[string]string {
	l, err := d.c.ListClusters(ctx)
	if err != nil {
		return nil
	}
	down := map[string]string{}
	for _, cl := range l {
		st := cl.Info.ConnectionState
		if st.Status == "" {
			st = cl.ConnectionState
		}
		if st.Status != "Failed" {
			continue
		}
		msg := "ArgoCD cannot connect to cluster " + cl.Server
		if st.Message != "" {
			msg += ": " + st.Message
		}
		down[cl.Server] = msg
		if cl.Name != "" {
			down["name:"+cl.Name] = msg
		}
	}
	return down
}

// downWhy is why a's destination cluster is down, "" when it is not.
func downWhy(a *Application, down map[string]string) string {
	if why, ok := down[a.Spec.Destination.Server]; ok && a.Spec.Destination.Server != "" {
		return why
	}
	if a.Spec.Destination.Name != "" {
		return down["name:"+a.Spec.Destination.Name]
	}
	return ""
}

// markDown makes the resources of an app whose destination cluster is down Retrying (EMCO),
// unless its conditions said so already.
func markDown(st contract.AppStatus, a *Application, down map[string]string) contract.AppStatus {
	why := downWhy(a, down)
	if why == "" || Unreachable(a) != "" {
		return st
	}
	st.Resources = retrying(append([]contract.Resource(nil), st.Resources...), why)
	st.Health = HealthUnknown // what ArgoCD last saw there is no news of it now: not Ready
	if st.Message == "" {
		st.Message = why
	} else {
		st.Message += "; " + why
	}
	return st
}
