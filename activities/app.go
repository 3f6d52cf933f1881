package activities

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// DeployApp ensures the instance's app at the revision and waits for it until the
// deadline the workflow set (so a worker restart does not extend it).
func (a *Activities) DeployApp(ctx context.Context, in contract.AppInput) (contract.AppStatus, error) {
	if err := a.fence(ctx); err != nil {
		return contract.AppStatus{}, err
	}
	a = a.readingOnce() // the instance and its stack are read for the app, its placement and its outputs
	app, err := a.deployable(ctx, in.Ref, in.Revision)
	if err != nil {
		return contract.AppStatus{}, err
	}
	app.Recreate = in.Recreate
	app.Drain = a.drainLeaving(in)
	var st contract.AppStatus
	err = withHeartbeat(ctx, "deploy app", func(ctx context.Context) error {
		st, err = a.Deployer.Deploy(ctx, app, in.Deadline)
		return err
	})
	st.Observer = a.observer(ctx)
	// Whatever the cluster or ArgoCD echo back must not carry a secret into history.
	r := newRedactor(app.Secrets)
	return r.status(st), r.error(classify(err))
}

// deployable is the instance's app at rev as a deploy hands it to the deployer: its manifests,
// placement, sync and secrets with the stack's secret outputs.
func (a *Activities) deployable(ctx context.Context, ref contract.Ref, rev string) (deploy.App, error) {
	app, instanceYAML, err := a.app(ctx, ref, rev)
	if err != nil {
		return app, err
	}
	if app.Placement, app.Sync, err = a.appSettings(ctx, rev, instanceYAML); err != nil {
		return app, err
	}
	if app.Secrets, err = a.Secrets.Get(ctx, ref.Tenant, ref.Name); err != nil {
		return app, err
	}
	outputs, err := a.secretOutputs(ctx, ref, rev)
	if err != nil {
		return app, err
	}
	if len(outputs) > 0 {
		// The stack sends these outputs to the instance's Secret: keys apart from the bootstrapped
		// secrets' (config refuses a name in both).
		app.Secrets = maps.Clone(app.Secrets)
		if app.Secrets == nil {
			app.Secrets = map[string]string{}
		}
		maps.Copy(app.Secrets, outputs)
	}
	return app, nil
}

// drainLeaving runs the stack's drain hook (when it has one) before the app leaves a cluster its
// placement no longer picks, inside the deploy's step: told the instance stays Deployed, its
// instance on that cluster deleted. A drain that fails keeps the app there and fails the deploy.
func (a *Activities) drainLeaving(in contract.AppInput) func(ctx context.Context, cluster string) error {
	return func(ctx context.Context, cluster string) error {
		reason := fmt.Sprintf("cluster %s leaves the placement of %s (deploy of revision %s)", cluster, in.Ref, in.Revision)
		cur := contract.HookState{State: string(lifecycle.Deployed), App: "running", Data: "available", Operation: string(lifecycle.OpDeploy), Reason: reason,
			Deployment: contract.HookDeploymentUpdated, Instance: contract.HookInstanceRunning, Disk: contract.HookDiskAttached}
		next := cur
		next.Instance, next.Disk, next.Clusters = contract.HookInstanceDeleted, contract.HookDiskDetached, []string{cluster}
		_, err := a.RunHook(ctx, contract.HookInput{Ref: in.Ref, Hook: hooks.Drain, Revision: in.Revision, Current: cur, Next: next, Deadline: in.Deadline})
		return err
	}
}

// RemoveApp deletes the app and its namespace; config and infrastructure stay.
func (a *Activities) RemoveApp(ctx context.Context, in contract.AppInput) (contract.AppStatus, error) {
	if err := a.fence(ctx); err != nil {
		return contract.AppStatus{}, err
	}
	app, instanceYAML, err := a.app(ctx, in.Ref, in.Revision)
	if err != nil {
		return contract.AppStatus{}, err
	}
	// A stack gone or broken at the revision must not keep an app from being removed: without
	// its placement the deployer takes the project and destination from the live app.
	app.Placement, _ = a.placement(ctx, in.Revision, instanceYAML)
	removed := a.removedResources(ctx, app)
	var st contract.AppStatus
	err = withHeartbeat(ctx, "remove app", func(ctx context.Context) error {
		st, err = a.Deployer.Remove(ctx, app)
		return err
	})
	if err == nil && len(st.Resources) == 0 {
		st.Resources = removed // shown Terminated after removal (EMCO), not gone
	}
	return st, classify(err)
}

// app describes the instance's manifests at a revision for the deployer, and returns the
// instance file committed there (nil when there is none).
func (a *Activities) app(ctx context.Context, ref contract.Ref, rev string) (deploy.App, []byte, error) {
	derived := ref.Derived()
	app := deploy.App{Ref: ref, Namespace: derived.Namespace, Application: derived.Application,
		RepoURL: a.repoURL(ctx), Path: ref.Dir() + "/manifests", Revision: rev}
	files, err := a.Forge.ReadDir(ctx, rev, ref.Dir())
	if err != nil {
		return app, nil, classify(err)
	}
	manifests := map[string][]byte{}
	for p, data := range files {
		if strings.HasPrefix(p, "manifests/") {
			manifests[p] = data
		}
	}
	objs, err := config.ManifestObjects(manifests)
	if err != nil {
		return app, nil, invalidConfig(err)
	}
	for _, o := range objs {
		app.Objects = append(app.Objects, deploy.Object{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
	}
	return app, files[instanceFile], nil
}

// placement is the project and destination the instance's stack names at rev, the revision the
// deploy applies, so the Application goes where the merged stack says.
func (a *Activities) placement(ctx context.Context, rev string, instanceYAML []byte) (deploy.Placement, error) {
	p, _, err := a.appSettings(ctx, rev, instanceYAML)
	return p, err
}

// appSettings are the placement and the sync: of the instance's stack at the revision, read
// with one load of the stack: each forge read is one more chance for a call to fail.
func (a *Activities) appSettings(ctx context.Context, rev string, instanceYAML []byte) (deploy.Placement, *deploy.Sync, error) {
	if instanceYAML == nil {
		return deploy.Placement{}, nil, nil
	}
	inst, err := config.ParseInstance(instanceYAML)
	if err != nil {
		return deploy.Placement{}, nil, invalidConfig(err)
	}
	stack, _, err := a.instanceStack(ctx, rev, inst)
	if err != nil || stack.Schema == nil {
		return deploy.Placement{}, nil, err
	}
	ac := stack.Schema.ArgoCD
	p := deploy.Placement{Project: ac.Project, Server: ac.Server, Cluster: ac.Cluster}
	placeOn(&p, stack.Schema.Placement, inst.Placement)
	var sync *deploy.Sync
	if sc := stack.Schema.Sync; sc != nil {
		sync = &deploy.Sync{Automated: sc.Automated, SelfHeal: sc.SelfHeal}
	}
	return p, sync, nil
}

// placeOn puts p on the clusters the instance's placement names, else its stack's.
func placeOn(p *deploy.Placement, stack, inst config.Placement) {
	switch {
	case !inst.IsZero():
		p.Clusters, p.Selector, p.Field = inst.Clusters, inst.Selector, "placement"
	case !stack.IsZero():
		p.Clusters, p.Selector, p.Field = stack.Clusters, stack.Selector, "schema.placement"
	}
}

// placementResolver is a deployer that can say which clusters a placement picks (argocd).
type placementResolver interface {
	Resolve(ctx context.Context, p deploy.Placement) ([]argocd.Cluster, error)
}

// checkPlacement refuses, before anything changes, a placement that picks no cluster the
// deployer knows: a named cluster it lacks, or a selector that matches none.
func (a *Activities) checkPlacement(ctx context.Context, stack *config.Stack, inst *config.Instance) error {
	var p deploy.Placement
	if stack.Schema != nil {
		placeOn(&p, stack.Schema.Placement, inst.Placement)
	} else {
		placeOn(&p, config.Placement{}, inst.Placement)
	}
	r, ok := a.Deployer.(placementResolver)
	if !p.Several() || !ok {
		return nil
	}
	_, err := r.Resolve(ctx, p)
	var bad *argocd.InvalidInputError
	if errors.As(err, &bad) {
		return invalidConfig(&config.StackError{Stack: stack.Name, Errors: []config.FieldError{{Field: bad.Field, Message: bad.Reason}}})
	}
	return classify(err)
}
