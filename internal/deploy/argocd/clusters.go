package argocd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
	"github.com/slipway-dev/slipway/internal/names"
)

// Cluster is one cluster ArgoCD knows, as GET /api/v1/clusters lists it: the labels are its
// cluster secret's, which a placement's selector matches.
type Cluster struct {
	Name            string            `json:"name"`
	Server          string            `json:"server"`
	Labels          map[string]string `json:"labels,omitempty"`
	ConnectionState ConnectionState   `json:"connectionState,omitzero"`
	// Info holds the connection state in ArgoCD 2.x and 3; older servers put it at the top.
	Info struct {
		ConnectionState ConnectionState `json:"connectionState,omitzero"`
	} `json:"info,omitzero"`
}

// ConnectionState is Successful, Failed or Unknown, with why.
type ConnectionState struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

// ListClusters lists the clusters ArgoCD deploys to.
func (c *Client) ListClusters(ctx context.Context) ([]Cluster, error) {
	var list struct {
		Items []Cluster `json:"items"`
	}
	if err := c.do(ctx, request{op: "list clusters", method: http.MethodGet, path: "/api/v1/clusters"}, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// WithKubeconfig is the kubeconfig (SLIPWAY_KUBECONFIG) whose context named as a cluster is in
// ArgoCD reaches that cluster: the deployer makes each placed app's namespace and Secret on
// every cluster itself, since the tenant's project lets ArgoCD make no namespace.
func WithKubeconfig(path string) DeployerOption { return func(d *Deployer) { d.kubeconfig = path } }

// Resolve is the clusters p places an app on, sorted by name: the named ones, and those whose
// labels match the selector. A named cluster ArgoCD lacks, or a selector that matches none, is
// bad input naming p's field.
func (d *Deployer) Resolve(ctx context.Context, p deploy.Placement) ([]Cluster, error) {
	field := p.Field
	if field == "" {
		field = "schema.placement"
	}
	all, err := d.c.ListClusters(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]Cluster{}
	for _, c := range all {
		byName[c.Name] = c
	}
	picked := map[string]Cluster{}
	for _, name := range p.Clusters {
		c, ok := byName[name]
		if !ok {
			return nil, &InvalidInputError{Field: field + ".clusters", Reason: fmt.Sprintf("ArgoCD has no cluster %q (it has %s)", name, clusterNames(all))}
		}
		picked[name] = c
	}
	if len(p.Selector) > 0 {
		matched := 0
		for _, c := range all {
			if matches(c.Labels, p.Selector) {
				picked[c.Name] = c
				matched++
			}
		}
		if matched == 0 {
			return nil, &InvalidInputError{Field: field + ".selector", Reason: fmt.Sprintf("matchLabels %s matches no cluster in ArgoCD (it has %s)", describeLabels(p.Selector), clusterNames(all))}
		}
	}
	out := make([]Cluster, 0, len(picked))
	for _, c := range picked {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	// Each cluster's Application is named after it: two names that read alike would share one.
	part := map[string]string{}
	for _, c := range out {
		if other, ok := part[names.ClusterPart(c.Name)]; ok {
			return nil, &InvalidInputError{Field: field, Reason: fmt.Sprintf("picks clusters %q and %q, whose Applications would have the same name (<app>-%s): place on one of them",
				other, c.Name, names.ClusterPart(c.Name))}
		}
		part[names.ClusterPart(c.Name)] = c.Name
	}
	return out, nil
}

func matches(labels, selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func describeLabels(l map[string]string) string {
	parts := make([]string, 0, len(l))
	for k, v := range l {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func clusterNames(cs []Cluster) string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// PlacedName is the Application of app on cluster: the instance's app name and the cluster's,
// cut and hashed to stay a label value (63) as ArgoCD's tracking label needs. One placement never
// picks two clusters with the same names.ClusterPart (config and Resolve refuse it).
func PlacedName(application, cluster string) string {
	name := names.ClusterPart(application + "-" + cluster)
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(application + "\x00" + cluster))
	return strings.TrimRight(name[:52], "-") + "-" + hex.EncodeToString(sum[:])[:10]
}

// placed is one cluster's part of an app placed on several.
type placed struct {
	cluster     Cluster
	st          contract.AppStatus
	err         error
	unreachable error
	behind      string // the revision its app awaits (LabelBehind)
}

// on is the deployer and app for cluster c: the app named for the cluster, at its name in ArgoCD,
// and a kube client for it (the deployer's own on the deployer's cluster, else the kubeconfig's
// context named as the cluster).
func (d *Deployer) on(app deploy.App, c Cluster) (*Deployer, deploy.App, error) {
	sub := app
	sub.Application = PlacedName(app.Application, c.Name)
	sub.Placement = deploy.Placement{Project: app.Placement.Project, Cluster: c.Name}
	dd := &Deployer{c: d.c, kube: d.kube, kubeconfig: d.kubeconfig, placedOn: c.Name}
	if c.Server == d.c.destination || d.kube == nil {
		return dd, sub, nil
	}
	if d.kubeconfig == "" {
		return nil, sub, &InvalidInputError{Field: kubeapi.EnvKubeconfig, Reason: "is not set: the deployer makes the namespace on each cluster an app is placed on"}
	}
	kube, err := kubeapi.LoadContext(d.kubeconfig, c.Name)
	if err != nil {
		return nil, sub, &InvalidInputError{Field: kubeapi.EnvKubeconfig, Reason: fmt.Sprintf("needs a context named %q to reach that cluster: %v", c.Name, err)}
	}
	dd.kube = kube
	return dd, sub, nil
}

// deploySeveral deploys one Application per placed cluster, at once, and waits for all. A
// cluster that cannot be reached does not fail the deploy: its resources are Retrying and the
// app is not Healthy, so the instance is not Ready; the next deploy or the observer sees it back.
func (d *Deployer) deploySeveral(ctx context.Context, app deploy.App, deadline time.Time) (contract.AppStatus, error) {
	if err := validate(app, true); err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	clusters, err := d.Resolve(ctx, app.Placement)
	if err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	parts := make([]placed, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		parts[i].cluster = c
		wg.Add(1)
		go func(p *placed) {
			defer wg.Done()
			dd, sub, err := d.on(app, p.cluster)
			if err != nil {
				p.err = err
				return
			}
			if err := dd.reach(ctx); err != nil {
				p.unreachable = err
				p.st = contract.AppStatus{Deployer: d.Name(), Resources: retrying(pendingObjects(sub, p.cluster.Name), err.Error())}
				if perr := dd.pointAt(ctx, sub); perr != nil {
					// The cluster being down is what is reported; ArgoCD may refuse the move while it is.
					p.unreachable = fmt.Errorf("%w (its app stays at its last revision: %v)", err, perr)
				}
				return
			}
			p.st, p.err = dd.deployOne(ctx, sub, deadline)
		}(&parts[i])
	}
	wg.Wait()
	var errs []error
	for _, p := range parts {
		if p.err != nil {
			errs = append(errs, fmt.Errorf("cluster %s: %w", p.cluster.Name, p.err))
		}
	}
	st := d.aggregate(app, parts)
	if len(errs) > 0 {
		return st, errors.Join(errs...)
	}
	return d.unplace(ctx, app, st, func(cluster string) bool {
		return slices.ContainsFunc(clusters, func(c Cluster) bool { return c.Name == cluster })
	})
}

// pointAt moves the instance's Application on a cluster that is down to the revision, or makes
// it, without a sync: ArgoCD then holds it OutOfSync, never Synced at an old revision, and the
// observer sees the cluster behind until a deploy reaches it again.
func (d *Deployer) pointAt(ctx context.Context, app deploy.App) error {
	cur, err := d.c.FindApplication(ctx, app.Application)
	if err != nil {
		return err
	}
	d = &Deployer{c: d.c, kube: d.kube, kubeconfig: d.kubeconfig, placedOn: d.placedOn, behind: app.Revision}
	want := d.desired(app)
	if cur == nil {
		_, _, own := d.placement(app)
		if _, err := d.admit(ctx, app); err != nil {
			return err
		}
		return d.createApplication(ctx, want, own)
	}
	if !owns(cur, app) {
		return notOwned(cur, app)
	}
	_, err = d.c.inProject(cur.Spec.Project).UpdateApplication(ctx, want)
	return err
}

// CatchUp syncs the instance's Application on cluster that a deploy pointed at app.Revision
// while the cluster was down (LabelBehind), now that the cluster answers: the namespace and
// Secret there, then the sync, without waiting for it. It says whether it started one. The
// label stays until a later look finds the app Synced and Healthy at that revision, so a sync
// that fails (ArgoCD still reconnecting) is started again at the next. A cluster still down,
// an operation still running, or an app no longer behind at that revision (a deploy moved it
// meanwhile) is left alone.
func (d *Deployer) CatchUp(ctx context.Context, app deploy.App, cluster string) (bool, error) {
	clusters, err := d.c.ListClusters(ctx)
	if err != nil {
		return false, err
	}
	c := Cluster{Name: cluster}
	if i := slices.IndexFunc(clusters, func(k Cluster) bool { return k.Name == cluster }); i >= 0 {
		c = clusters[i]
	}
	dd, sub, err := d.on(app, c)
	if err != nil {
		return false, err
	}
	cur, err := d.c.FindApplication(ctx, sub.Application)
	if err != nil || cur == nil || !isPlaced(cur, app) || cur.Metadata.Labels[LabelBehind] != app.Revision ||
		cur.Spec.Source == nil || !sameRevision(cur.Spec.Source.TargetRevision, app.Revision) || runningRevision(cur) != "" {
		return false, err
	}
	if dd.reach(ctx) != nil {
		return false, nil
	}
	if judge(cur, app.Revision) == done {
		// Caught up: the app is no longer behind.
		_, err := d.c.inProject(cur.Spec.Project).UpdateApplication(ctx, dd.desired(sub))
		return false, err
	}
	dd.behind = app.Revision
	project, err := dd.place(ctx, sub, cur)
	if err != nil {
		return false, err
	}
	if err := dd.in(project).c.Sync(ctx, sub.Application, app.Revision, true); err != nil && !operationInProgress(err) {
		return false, err
	}
	return true, nil
}

// statusPlaced reads the instance's Application on each cluster it is placed on, found by its labels.
func (d *Deployer) statusPlaced(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	apps, err := d.c.ListApplications(ctx, instanceSelector(app.Ref)+","+LabelCluster)
	if err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	apps = slices.DeleteFunc(apps, func(a Application) bool { return !isPlaced(&a, app) })
	if len(apps) == 0 {
		return contract.AppStatus{Deployer: d.Name(), Deployed: false, Message: "no application"}, nil
	}
	return d.fromApps(app, apps), nil
}

// fromApps is the status of an instance's Applications, one per cluster.
func (d *Deployer) fromApps(app deploy.App, apps []Application) contract.AppStatus {
	parts := make([]placed, 0, len(apps))
	for i := range apps {
		a := &apps[i]
		p := placed{cluster: Cluster{Name: clusterName(a.Spec.Destination)}, st: d.appStatus(a, app), behind: a.Metadata.Labels[LabelBehind]}
		if msg := Unreachable(a); msg != "" {
			p.unreachable = errors.New(msg)
			p.st.Resources = retrying(slices.Clone(p.st.Resources), msg)
		}
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].cluster.Name < parts[j].cluster.Name })
	return d.aggregate(app, parts)
}

// isPlaced says a is app's Application on one of its clusters: labelled the instance's and the
// cluster's, named as slipway names it there. Another app that merely carries the labels is left alone.
func isPlaced(a *Application, app deploy.App) bool {
	cl := a.Metadata.Labels[LabelCluster]
	return cl != "" && owns(a, app) && a.Spec.Destination.Name == cl && a.Metadata.Name == PlacedName(app.Application, cl)
}

func instanceSelector(ref contract.Ref) string {
	return LabelTenant + "=" + ref.Tenant + "," + LabelName + "=" + ref.Name
}

// removePlaced removes the instance's Applications placed on clusters (found by their labels)
// that keep does not keep (nil keeps none), each with its namespace on its cluster; drain, when
// set, runs first on each. A cluster that does not answer, or whose removal fails, does not stop the
// others: what is left is a *LeftOnClustersError, one entry per cluster. The single-cluster app is removeOne's.
func (d *Deployer) removePlaced(ctx context.Context, app deploy.App, keep func(cluster string) bool, drain func(ctx context.Context, cluster string) error) error {
	apps, err := d.c.ListApplications(ctx, instanceSelector(app.Ref))
	if err != nil {
		return err
	}
	var clusters []Cluster
	left := &LeftOnClustersError{}
	for _, a := range apps {
		if !isPlaced(&a, app) || keep != nil && keep(a.Spec.Destination.Name) {
			continue
		}
		if clusters == nil {
			if clusters, err = d.c.ListClusters(ctx); err != nil {
				return err
			}
		}
		c := Cluster{Name: a.Spec.Destination.Name}
		if i := slices.IndexFunc(clusters, func(k Cluster) bool { return k.Name == c.Name }); i >= 0 {
			c = clusters[i]
		}
		if err := d.removeFrom(ctx, app, a, c, drain); err != nil {
			var down *unreachableError
			left.Left = append(left.Left, LeftOnCluster{Cluster: c.Name, Application: a.Metadata.Name, Namespace: a.Spec.Destination.Namespace,
				Unreachable: errors.As(err, &down), Err: err})
		}
	}
	if len(left.Left) > 0 {
		return left
	}
	return nil
}

// removeFrom drains and removes the instance's Application a on its cluster c, with its namespace
// there. A cluster that does not answer is left alone: ArgoCD could not delete what it made there.
func (d *Deployer) removeFrom(ctx context.Context, app deploy.App, a Application, c Cluster, drain func(ctx context.Context, cluster string) error) error {
	dd, sub, err := d.on(app, c)
	if err != nil {
		return err
	}
	if err := dd.reach(ctx); err != nil {
		return &unreachableError{err}
	}
	if drain != nil {
		if err := drain(ctx, c.Name); err != nil {
			return fmt.Errorf("drain: %w", err)
		}
	}
	sub.Application = a.Metadata.Name
	sub.Namespace = a.Spec.Destination.Namespace
	_, err = dd.removeOne(ctx, sub)
	return err
}

// unreachableError is a cluster that did not answer.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return "cluster unreachable: " + e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// unplace drains and removes the instance's Applications on the clusters its placement no longer
// picks (keep says which it picks; nil: none, the app is back on one cluster), once the deploy
// reached those it picks, as BOSH drains an AZ's instances before removing the AZ. A cluster
// that does not answer keeps its app until a later deploy reaches it, as a deploy does not
// fail on a cluster that is down; a drain or removal that fails fails the deploy.
func (d *Deployer) unplace(ctx context.Context, app deploy.App, st contract.AppStatus, keep func(string) bool) (contract.AppStatus, error) {
	err := d.removePlaced(ctx, app, keep, app.Drain)
	var lc *LeftOnClustersError
	if !errors.As(err, &lc) {
		return st, err
	}
	failed := &LeftOnClustersError{}
	for _, l := range lc.Left {
		if !l.Unreachable {
			failed.Left = append(failed.Left, l)
			continue
		}
		msg := fmt.Sprintf("cluster %s left the placement but does not answer: its application %s stays there until a deploy reaches it", l.Cluster, l.Application)
		st.Message = strings.TrimPrefix(st.Message+"; "+msg, "; ")
	}
	if len(failed.Left) > 0 {
		return st, failed
	}
	return st, nil
}

// aggregate is one status for the app out of each cluster's: Synced and Healthy only when every
// cluster is, the worst health otherwise; resources from all, each naming its cluster.
func (d *Deployer) aggregate(app deploy.App, parts []placed) contract.AppStatus {
	out := contract.AppStatus{Deployer: d.Name(), Application: app.Application, Sync: SyncSynced, Health: HealthHealthy}
	var msgs []string
	for _, p := range parts {
		cs := contract.ClusterStatus{Cluster: p.cluster.Name, Application: p.st.Application, Reachable: p.unreachable == nil,
			Sync: p.st.Sync, Health: p.st.Health, Message: p.st.Message, Behind: p.behind}
		if cs.Application == "" {
			cs.Application = PlacedName(app.Application, p.cluster.Name)
		}
		switch {
		case p.unreachable != nil:
			cs.Sync, cs.Health, cs.Message = "Unknown", "Unknown", "cluster unreachable: "+p.unreachable.Error()
		case p.err != nil:
			cs.Message = strings.TrimSpace(cs.Message + " " + p.err.Error())
		}
		out.Deployed = out.Deployed || p.st.Deployed
		if cs.Sync != SyncSynced {
			out.Sync = orUnknown(cs.Sync)
		}
		if worse(cs.Health, out.Health) {
			out.Health = orUnknown(cs.Health)
		}
		if cs.Message != "" && (cs.Sync != SyncSynced || cs.Health != HealthHealthy) {
			msgs = append(msgs, "cluster "+cs.Cluster+": "+cs.Message)
		}
		out.Resources = append(out.Resources, p.st.Resources...)
		out.Clusters = append(out.Clusters, cs)
	}
	out.Message = strings.Join(msgs, "; ")
	return out
}

// healthRank orders ArgoCD's health from best to worst, for the app's overall health.
var healthRank = map[string]int{HealthHealthy: 0, "Suspended": 1, "Progressing": 2, "Unknown": 3, "": 3, HealthMissing: 4, HealthDegraded: 5}

func worse(a, b string) bool { return healthRank[a] > healthRank[b] }

// reach asks the cluster's API server its version: an error is the cluster not answering
// (refused, timed out, no route), and then nothing is deployed to it. Any answer is reachable.
func (d *Deployer) reach(ctx context.Context) error {
	if d.kube == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	var v map[string]any
	err := d.kube.Get(ctx, "/version", &v)
	var op *net.OpError
	var ue *url.Error
	if errors.As(err, &op) || errors.As(err, &ue) {
		return err
	}
	return nil
}

// reachTimeout bounds the look at a cluster that may be down; one that answers does at once.
const reachTimeout = 10 * time.Second
