package argocd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
)

// Deploy ensures the Application at app.Revision, syncs it with prune and waits until
// the sync Succeeded and the app is Synced+Healthy at that revision, or deadline passes.
// Before anything changes it refuses an Application of that name that is not the instance's;
// then it makes the namespace, the Secret and the project's destination, then the Application.
// An app placed on several clusters gets one Application on each (deploySeveral); its
// Applications on clusters the placement no longer picks are drained and removed (unplace).
func (d *Deployer) Deploy(ctx context.Context, app deploy.App, deadline time.Time) (contract.AppStatus, error) {
	if app.Placement.Several() {
		return d.deploySeveral(ctx, app, deadline)
	}
	st, err := d.deployOne(ctx, app, deadline)
	if err != nil {
		return st, err
	}
	// Back on one cluster: the apps it was placed on before go.
	return d.unplace(ctx, app, st, nil)
}

// deployOne deploys app's one Application on its one cluster.
func (d *Deployer) deployOne(ctx context.Context, app deploy.App, deadline time.Time) (contract.AppStatus, error) {
	if err := validate(app, true); err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	cur, err := d.c.FindApplication(ctx, app.Application)
	if err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	if cur != nil && !owns(cur, app) {
		return contract.AppStatus{Deployer: d.Name()}, notOwned(cur, app)
	}
	_, _, own := d.placement(app)
	project, err := d.place(ctx, app, cur)
	if err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	d = d.in(project)
	for range projectRaces {
		if a, err := d.startSync(ctx, app, deadline); err != nil {
			return d.statusOf(a, app), err
		}
		st, err := d.waitSynced(ctx, app, deadline)
		// The controller checks the destination against its own cached project, which can lag
		// the destination this deploy added, as argocd-server's can: that failure is synced again.
		var sf *SyncFailedError
		if !own || !errors.As(err, &sf) || !strings.Contains(sf.Message, destinationNotAllowed) || time.Now().After(deadline) {
			return st, err
		}
		if err := sleep(ctx, time.Duration(rand.Int64N(int64(projectBackoff)))); err != nil {
			return st, err
		}
	}
	if a, err := d.startSync(ctx, app, deadline); err != nil {
		return d.statusOf(a, app), err
	}
	return d.waitSynced(ctx, app, deadline)
}

// place makes the namespace, the Secret and the Application in its project, and returns the
// project. In the tenant's own project the namespace comes first, then the project's
// destination, then the Application. In a project the stack names, the Application comes
// first: ArgoCD checks its destination against the operator's project, so one it does not
// allow is refused before anything on the cluster changes.
func (d *Deployer) place(ctx context.Context, app deploy.App, cur *Application) (string, error) {
	if _, _, own := d.placement(app); own {
		if err := d.prepare(ctx, app, cur != nil); err != nil {
			return "", err
		}
		project, dest, _ := d.placement(app)
		if _, err := d.admit(ctx, app); err != nil {
			return "", err
		}
		if err := d.ensure(ctx, d.desired(app), cur, app); err != nil {
			return "", err
		}
		if cur != nil && cur.Spec.Project == project && cur.Spec.Destination != dest {
			// The stack moved the app to another cluster: the project stops allowing the old one.
			return project, d.drop(ctx, app, []ApplicationDestination{cur.Spec.Destination})
		}
		return project, nil
	}
	project, err := d.admit(ctx, app)
	if err != nil {
		return "", err
	}
	if err := d.ensure(ctx, d.desired(app), cur, app); err != nil {
		_, dest, _ := d.placement(app)
		return "", placementRefused(err, project, dest)
	}
	if cur != nil && cur.Spec.Project == ProjectName(app.Ref.Tenant) {
		// The app moved out of the tenant's project: its namespace leaves that project's destinations.
		if err := d.dismiss(ctx, app, cur.Spec.Destination); err != nil {
			return "", err
		}
	}
	return project, d.prepare(ctx, app, cur != nil)
}

// placementRefused names the stack's field when argocd-server refuses an Application in an
// operator's project: a destination the project does not allow or ArgoCD does not know, or a
// source repository the project does not permit. Other errors pass as they are.
func placementRefused(err error, project string, dest ApplicationDestination) error {
	var api *APIError
	if !errors.As(err, &api) || api.Status != http.StatusBadRequest {
		return err
	}
	switch {
	case strings.Contains(api.Message, destinationNotAllowed):
		return &InvalidInputError{Field: "schema.argocd.destination", Reason: fmt.Sprintf(
			"project %s does not allow %s namespace %s (ArgoCD: %s)", project, describeDestination(dest), dest.Namespace, api.Message)}
	case strings.Contains(api.Message, "is not permitted in project"):
		return &InvalidInputError{Field: "schema.argocd.project", Reason: fmt.Sprintf(
			"project %s does not permit the GitOps repository (ArgoCD: %s)", project, api.Message)}
	case strings.Contains(api.Message, "destination"):
		return &InvalidInputError{Field: "schema.argocd.destination", Reason: fmt.Sprintf(
			"ArgoCD cannot deploy to %s (ArgoCD: %s)", describeDestination(dest), api.Message)}
	}
	return err
}

// describeDestination names a destination's cluster by server URL or name.
func describeDestination(dest ApplicationDestination) string {
	if dest.Name != "" {
		return "cluster " + dest.Name
	}
	return "server " + dest.Server
}

// prepare makes the instance's namespace and Secret on the cluster; adopt says the
// instance's Application exists, so a namespace it made earlier is the instance's.
func (d *Deployer) prepare(ctx context.Context, app deploy.App, adopt bool) error {
	if d.kube == nil {
		if len(app.Secrets) > 0 {
			return &InvalidInputError{Field: kubeapi.EnvKubeconfig, Reason: "is not set: bootstrapped secrets go to the cluster through its API, never through ArgoCD"}
		}
		return nil
	}
	if err := d.ensureNamespace(ctx, app, adopt); err != nil {
		return err
	}
	return d.applySecrets(ctx, app)
}

// ensure creates the Application, or updates cur (the instance's own) in place, moving it
// into the tenant's project. An Application someone else creates meanwhile is refused.
func (d *Deployer) ensure(ctx context.Context, want Application, cur *Application, app deploy.App) error {
	if cur == nil {
		_, _, own := d.placement(app)
		err := d.createApplication(ctx, want, own)
		if err == nil || !isExists(err) && !isSpecDiffers(err) {
			return err
		}
		if cur, err = d.c.FindApplication(ctx, want.Metadata.Name); err != nil || cur == nil {
			return errors.Join(err, fmt.Errorf("argocd: application %s: created and gone again", want.Metadata.Name))
		}
		if !owns(cur, app) {
			return notOwned(cur, app)
		}
	}
	// The update names the project the app is in now; the body moves it to the tenant's.
	_, err := d.c.inProject(cur.Spec.Project).UpdateApplication(ctx, want)
	return err
}

// createApplication creates want. argocd-server checks the destination against its cached copy of
// the project, which can lag the destination this deploy just added; that refusal is waited out.
// In a project slipway does not change (own false) nothing is waited out.
func (d *Deployer) createApplication(ctx context.Context, want Application, own bool) error {
	for range projectRaces {
		_, err := d.c.CreateApplication(ctx, want)
		if !own || !isDestinationNotYetAllowed(err) {
			return err
		}
		if err := sleep(ctx, time.Duration(rand.Int64N(int64(projectBackoff)))); err != nil {
			return err
		}
	}
	_, err := d.c.CreateApplication(ctx, want)
	return err
}

// destinationNotAllowed is how ArgoCD says a destination is not (yet, in its cache) in the project.
const destinationNotAllowed = "do not match any of the allowed destinations in project"

// isDestinationNotYetAllowed matches argocd-server refusing a destination its project cache lacks.
func isDestinationNotYetAllowed(err error) bool {
	var api *APIError
	return errors.As(err, &api) && strings.Contains(api.Message, destinationNotAllowed)
}

// isSpecDiffers matches argocd-server refusing a create without upsert over an existing app.
func isSpecDiffers(err error) bool {
	var api *APIError
	return errors.As(err, &api) && strings.Contains(api.Message, "existing application spec is different")
}

// startSync asks for the sync. When an operation already runs for app.Revision (an earlier
// attempt started it) it is awaited instead; one for another revision is awaited, then ours starts.
func (d *Deployer) startSync(ctx context.Context, app deploy.App, deadline time.Time) (*Application, error) {
	name := app.Application
	for {
		var options []string
		if app.Recreate {
			options = RecreateOptions
		}
		err := d.c.Sync(ctx, name, app.Revision, true, options...)
		if err == nil || !operationInProgress(err) {
			return nil, err
		}
		a, gerr := d.c.GetApplication(ctx, name)
		if gerr != nil {
			return nil, gerr
		}
		if sameRevision(runningRevision(a), app.Revision) {
			return a, nil
		}
		heartbeat(ctx, "waiting for another operation on "+name+" to finish")
		if !time.Now().Before(deadline) {
			return a, d.timeout(ctx, a, app, deadline)
		}
		if err := sleep(ctx, d.pollUntil(deadline)); err != nil {
			return a, err
		}
	}
}

// runningRevision is the revision of the operation in flight, "" when none is.
func runningRevision(a *Application) string {
	if a.Operation != nil && a.Operation.Sync != nil {
		return a.Operation.Sync.Revision
	}
	if op := a.Status.OperationState; op != nil && (op.Phase == PhaseRunning || op.Phase == PhaseTerminating) && op.Operation.Sync != nil {
		return op.Operation.Sync.Revision
	}
	return ""
}

// outcome of one look at the app.
type outcome int

const (
	waiting outcome = iota
	done
	failed
)

// judge decides from one read whether the sync of rev finished, failed or is still going.
// Only an operation for rev that the controller has finished (operation cleared) counts,
// so a stale result of an earlier sync is never taken for ours.
func judge(a *Application, rev string) outcome {
	op := a.Status.OperationState
	if a.Operation != nil || op == nil || !sameRevision(operationRevision(op), rev) {
		return waiting
	}
	switch op.Phase {
	case PhaseFailed, PhaseError:
		return failed
	case PhaseSucceeded:
	default:
		return waiting
	}
	if !sameRevision(a.Status.Sync.Revision, rev) {
		return waiting
	}
	switch {
	case a.Status.Health.Status == HealthDegraded:
		return failed
	case a.Status.Sync.Status == SyncSynced && a.Status.Health.Status == HealthHealthy:
		return done
	}
	return waiting
}

// operationRevision is the revision the operation applied, else the one it was asked for.
func operationRevision(op *OperationState) string {
	if op.SyncResult != nil && op.SyncResult.Revision != "" {
		return op.SyncResult.Revision
	}
	if op.Operation.Sync != nil {
		return op.Operation.Sync.Revision
	}
	return ""
}

// waitSynced polls (heartbeating) until judge says done or failed, or the deadline passes.
func (d *Deployer) waitSynced(ctx context.Context, app deploy.App, deadline time.Time) (contract.AppStatus, error) {
	name := app.Application
	for {
		a, err := d.c.GetApplication(ctx, name)
		if err != nil {
			return contract.AppStatus{Deployer: d.Name()}, err
		}
		heartbeat(ctx, progress(a))
		switch judge(a, app.Revision) {
		case done:
			return d.appStatus(a, app), nil
		case failed:
			return d.appStatus(a, app), d.syncFailed(a, app)
		}
		if !time.Now().Before(deadline) {
			return d.appStatus(a, app), d.timeout(ctx, a, app, deadline)
		}
		if err := sleep(ctx, d.pollUntil(deadline)); err != nil {
			d.terminateCancelled(ctx, name)
			return d.appStatus(a, app), err
		}
	}
}

// pollUntil is the poll interval, shortened so the last look happens at the deadline.
func (d *Deployer) pollUntil(deadline time.Time) time.Duration {
	if left := time.Until(deadline); left > 0 && left < d.c.poll {
		return left
	}
	return d.c.poll
}

func progress(a *Application) string {
	phase := ""
	if a.Status.OperationState != nil {
		phase = a.Status.OperationState.Phase
	}
	return fmt.Sprintf("argocd %s: phase %s, sync %s, health %s", a.Metadata.Name,
		orUnknown(phase), orUnknown(a.Status.Sync.Status), orUnknown(a.Status.Health.Status))
}

func (d *Deployer) syncFailed(a *Application, app deploy.App) error {
	res := resources(a, app)
	var parts []string
	if op := a.Status.OperationState; op != nil && op.Message != "" {
		parts = append(parts, op.Message)
	}
	if a.Status.Health.Status == HealthDegraded && a.Status.Health.Message != "" {
		parts = append(parts, "health: "+a.Status.Health.Message)
	}
	parts = append(parts, conditions(a)...)
	if s := describeResources(res, true); s != "" {
		parts = append(parts, "resources: "+s)
	}
	e := &SyncFailedError{App: a.Metadata.Name, Revision: app.Revision, Health: a.Status.Health.Status,
		Message: strings.Join(parts, "; "), Resources: res}
	if a.Status.OperationState != nil {
		e.Phase = a.Status.OperationState.Phase
	}
	return e
}

// timeout stops the running operation so nothing keeps applying after slipway gave up.
func (d *Deployer) timeout(ctx context.Context, a *Application, app deploy.App, deadline time.Time) error {
	e := &TimeoutError{App: a.Metadata.Name, Revision: app.Revision, Deadline: deadline,
		Sync: a.Status.Sync.Status, Health: a.Status.Health.Status, Conditions: conditions(a), Resources: resources(a, app)}
	if a.Status.OperationState != nil {
		e.Phase = a.Status.OperationState.Phase
	}
	e.TerminateErr = d.c.TerminateOperation(ctx, a.Metadata.Name)
	return e
}

// statusOf is the app's status when a read is at hand.
func (d *Deployer) statusOf(a *Application, app deploy.App) contract.AppStatus {
	if a == nil {
		return contract.AppStatus{Deployer: d.Name()}
	}
	return d.appStatus(a, app)
}

// terminateCancelled stops the sync in flight when the step was cancelled (slipway cancel, or a
// worker stop whose retry syncs again), so nothing keeps applying after the step ended; best effort.
func (d *Deployer) terminateCancelled(ctx context.Context, name string) {
	if !errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = d.c.TerminateOperation(tctx, name)
}
