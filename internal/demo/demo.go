// Package demo runs the full lifecycle of an example instance on the embedded
// default and checks, after each step, what really happened in git and terraform.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Ref is the demo's instance.
var Ref = contract.Ref{Tenant: "demo", Name: "web"}

// derived are the names the demo's provision records: it runs this code, so Derive's.
var derived = names.Derive(Ref.Tenant, Ref.Name)

type step struct {
	op    lifecycle.Operation
	req   contract.OperationRequest
	want  lifecycle.State
	check func(ctx context.Context, res contract.OperationResult) (string, error)
	// app is what the cluster must hold afterwards: the ConfigMap's replicas, or "" for no namespace.
	app string
}

// Run drives create → deploy → plan → update → archive → deploy → destroy →
// deprovision and returns an error at the first step that did not really happen.
func Run(ctx context.Context, env *devenv.Env, out io.Writer) error {
	web, err := examples.FS.ReadFile("instances/web.yaml")
	if err != nil {
		return err
	}
	updated, err := withParam(web, "replicas", 2)
	if err != nil {
		return err
	}
	v := &verifier{env: env, dir: contract.Ref{Tenant: Ref.Tenant, Name: Ref.Name}.Dir()}
	plan := []step{
		{lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: string(web)}, lifecycle.ConfigurationCreated, v.merges(1), ""},
		{lifecycle.OpDeploy, contract.OperationRequest{}, lifecycle.Deployed, v.resources(true), "1"},
		{lifecycle.OpPlan, contract.OperationRequest{}, lifecycle.Deployed, v.noChanges, "1"},
		{lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: string(updated)}, lifecycle.Deployed, v.updated, "2"},
		{lifecycle.OpArchive, contract.OperationRequest{}, lifecycle.Archived, v.all(v.resources(true), v.merges(3)), ""},
		{lifecycle.OpDeploy, contract.OperationRequest{}, lifecycle.Deployed, v.all(v.resources(true), v.merges(4)), "2"},
		{lifecycle.OpDestroy, contract.OperationRequest{}, lifecycle.Destroyed, v.resources(false), ""},
		{lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true}, lifecycle.Deprovisioned, v.configGone, ""},
	}
	deployer := env.Deployer
	if env.Argo != nil {
		deployer += " (ArgoCD " + env.Argo.ArgoURL + " on kube-apiserver " + env.Argo.KubeURL + ")"
	}
	fmt.Fprintf(out, "slipway demo: instance %s, temporal %s, GitOps repo %s, deployer %s\n", Ref, env.Address, env.GitOpsRepo, deployer)
	state := lifecycle.NoConfiguration
	start := time.Now()
	for i, s := range plan {
		s.req.Actor = "slipway-demo"
		t0 := time.Now()
		h, err := env.Client.Submit(identity.With(ctx, devenv.LocalAdmin()), Ref, s.op, s.req, "")
		if err != nil {
			return fmt.Errorf("step %d %s: %w", i+1, s.op, err)
		}
		res, err := h.Get(ctx)
		if err != nil {
			return fmt.Errorf("step %d %s: %w", i+1, s.op, err)
		}
		if res.Result != contract.ResultSucceeded || res.State != s.want {
			msg := ""
			if res.Failure != nil {
				msg = fmt.Sprintf(" at %s: %s", res.Failure.Step, res.Failure.Error)
			}
			return fmt.Errorf("step %d %s: %s, state %s, want %s%s", i+1, s.op, res.Result, res.State, s.want, msg)
		}
		detail, err := s.check(ctx, res)
		if err == nil && env.Argo != nil {
			var onCluster string
			onCluster, err = v.cluster(ctx, s.app)
			detail += "; " + onCluster
		}
		if err != nil {
			return fmt.Errorf("step %d %s reached %s but: %w", i+1, s.op, res.State, err)
		}
		fmt.Fprintf(out, "  %d. %-12s %-21s -> %-21s %6s  %s\n", i+1, s.op, state, res.State,
			time.Since(t0).Round(time.Millisecond), detail)
		state = res.State
	}
	fmt.Fprintf(out, "demo passed: %d operations in %s, every check held\n", len(plan), time.Since(start).Round(time.Millisecond))
	return nil
}

// withParam returns the instance file with one parameter changed.
func withParam(data []byte, name string, value any) ([]byte, error) {
	inst, err := config.ParseInstance(data)
	if err != nil {
		return nil, err
	}
	inst.Parameters[name] = value
	return inst.Canonical(), nil
}

type verifier struct {
	env *devenv.Env
	dir string
}

func (v *verifier) merges(want int) func(context.Context, contract.OperationResult) (string, error) {
	return func(ctx context.Context, _ contract.OperationResult) (string, error) {
		n, err := devenv.CountMerges(ctx, v.env.GitOpsRepo, v.dir)
		if err != nil {
			return "", err
		}
		if n != want {
			return "", fmt.Errorf("%d merge(s) touch %s on main, want %d", n, v.dir, want)
		}
		return fmt.Sprintf("merge %d of %s on main", n, v.dir), nil
	}
}

// all runs each check in turn and joins what they found; the first error ends it.
func (v *verifier) all(checks ...func(context.Context, contract.OperationResult) (string, error)) func(context.Context, contract.OperationResult) (string, error) {
	return func(ctx context.Context, res contract.OperationResult) (string, error) {
		var found []string
		for _, check := range checks {
			s, err := check(ctx, res)
			if err != nil {
				return "", err
			}
			found = append(found, s)
		}
		return strings.Join(found, "; "), nil
	}
}

func (v *verifier) resources(want bool) func(context.Context, contract.OperationResult) (string, error) {
	return func(ctx context.Context, _ contract.OperationResult) (string, error) {
		res, err := v.env.Activities.Terraform.Resources(ctx, terraform.Workspace{Tenant: Ref.Tenant, Name: Ref.Name, Schema: derived.Schema})
		if err != nil {
			return "", err
		}
		if want != (len(res) > 0) {
			return "", fmt.Errorf("terraform state holds %d resource(s)", len(res))
		}
		return fmt.Sprintf("terraform state: %d resource(s)", len(res)), nil
	}
}

func (v *verifier) noChanges(_ context.Context, res contract.OperationResult) (string, error) {
	if res.Plan == nil || !res.Plan.NoChanges || res.Diff != "" {
		return "", fmt.Errorf("plan of an unchanged instance shows changes: %+v diff %q", res.Plan, res.Diff)
	}
	return "plan: no changes", nil
}

func (v *verifier) updated(ctx context.Context, res contract.OperationResult) (string, error) {
	if res.Plan == nil || res.Plan.Change == 0 {
		return "", fmt.Errorf("update applied no change: %+v", res.Plan)
	}
	if _, err := v.merges(2)(ctx, res); err != nil {
		return "", err
	}
	return fmt.Sprintf("replicas 1 -> 2: %d change(s), merge 2 on main", res.Plan.Change), nil
}

func (v *verifier) configGone(ctx context.Context, res contract.OperationResult) (string, error) {
	files, err := v.env.Activities.Forge.ReadDir(ctx, "", v.dir)
	if err != nil {
		return "", err
	}
	if len(files) > 0 {
		return "", fmt.Errorf("%s still holds %d file(s) on main", v.dir, len(files))
	}
	if _, err := v.merges(5)(ctx, res); err != nil {
		return "", err
	}
	return "config removed from main by merge 5; state empty", nil
}

// cluster checks the real kube-apiserver: the app's ConfigMap with the expected
// replicas, or (want "") no namespace at all.
func (v *verifier) cluster(ctx context.Context, replicas string) (string, error) {
	ns := derived.Namespace
	if replicas == "" {
		code, _, err := v.env.Argo.Get(ctx, "/api/v1/namespaces/"+ns)
		if err != nil {
			return "", err
		}
		if code != http.StatusNotFound {
			return "", fmt.Errorf("namespace %s is still on the cluster (HTTP %d)", ns, code)
		}
		return "no namespace " + ns, nil
	}
	code, body, err := v.env.Argo.Get(ctx, "/api/v1/namespaces/"+ns+"/configmaps/app")
	if err != nil {
		return "", err
	}
	var cm struct{ Data map[string]string }
	if code != http.StatusOK || json.Unmarshal(body, &cm) != nil || cm.Data["replicas"] != replicas {
		return "", fmt.Errorf("ConfigMap %s/app: HTTP %d, data %v, want replicas %s", ns, code, cm.Data, replicas)
	}
	return fmt.Sprintf("ConfigMap %s/app replicas=%s on the cluster", ns, replicas), nil
}
