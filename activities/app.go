package activities

import (
	"context"
	"maps"
	"strings"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/steps"
)

// DeployApp ensures the instance's app at the revision and waits for it until the
// deadline the workflow set (so a worker restart does not extend it).
func (a *Activities) DeployApp(ctx context.Context, in steps.AppInput) (steps.AppStatus, error) {
	app, err := a.app(ctx, in.Ref, in.Revision)
	if err != nil {
		return steps.AppStatus{}, err
	}
	if app.Secrets, err = a.Secrets.Get(ctx, in.Ref.Tenant, in.Ref.Name); err != nil {
		return steps.AppStatus{}, err
	}
	outputs, err := a.secretOutputs(ctx, in.Ref, in.Revision)
	if err != nil {
		return steps.AppStatus{}, err
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
	var st steps.AppStatus
	err = withHeartbeat(ctx, "deploy app", func(ctx context.Context) error {
		st, err = a.Deployer.Deploy(ctx, app, in.Deadline)
		return err
	})
	st.Observer = a.observer(ctx)
	// Whatever the cluster or ArgoCD echo back must not carry a secret into history.
	r := newRedactor(app.Secrets)
	return r.status(st), r.error(classify(err))
}

// RemoveApp deletes the app and its namespace; config and infrastructure stay.
func (a *Activities) RemoveApp(ctx context.Context, in steps.AppInput) (steps.AppStatus, error) {
	app, err := a.app(ctx, in.Ref, in.Revision)
	if err != nil {
		return steps.AppStatus{}, err
	}
	var st steps.AppStatus
	err = withHeartbeat(ctx, "remove app", func(ctx context.Context) error {
		st, err = a.Deployer.Remove(ctx, app)
		return err
	})
	return st, classify(err)
}

// app describes the instance's manifests at a revision for the deployer.
func (a *Activities) app(ctx context.Context, ref steps.Ref, rev string) (deploy.App, error) {
	cref := configRef(ref)
	derived := ref.Derived()
	app := deploy.App{Ref: ref, Namespace: derived.Namespace, Application: derived.Application,
		RepoURL: a.repoURL(ctx), Path: cref.Dir() + "/manifests", Revision: rev}
	files, err := a.Forge.ReadDir(ctx, rev, cref.Dir())
	if err != nil {
		return app, classify(err)
	}
	manifests := map[string][]byte{}
	for p, data := range files {
		if strings.HasPrefix(p, "manifests/") {
			manifests[p] = data
		}
	}
	objs, err := config.ManifestObjects(manifests)
	if err != nil {
		return app, invalidConfig(err)
	}
	for _, o := range objs {
		app.Objects = append(app.Objects, deploy.Object{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
	}
	return app, nil
}
