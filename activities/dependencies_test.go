package activities

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/identity"
)

func TestConsumedOutputsFillParametersAndRefuseSensitive(t *testing.T) {
	d := config.Dependency{Name: "network", Stack: "network", Instance: "network", Outputs: map[string]string{"subnet": "subnet"}}
	dep := &contract.DependencyInstance{Ref: contract.Ref{Tenant: "acme", Name: "net"}, Outputs: map[string]string{"subnet": "10.0.1.0/24", "token": "[sensitive]"}}
	params := map[string]any{"network": "net"}
	require.NoError(t, consumed("app", 0, d, dep, params))
	require.Equal(t, "10.0.1.0/24", params["subnet"])

	require.NoError(t, consumed("app", 0, d, &contract.DependencyInstance{}, nil), "outputs not known yet: checked at the render")
	d.Outputs = map[string]string{"nosuch": "subnet"}
	require.ErrorContains(t, consumed("app", 0, d, dep, nil), "schema.dependencies[0].outputs.nosuch")
	d.Outputs = map[string]string{"token": "subnet"}
	err := consumed("app", 0, d, dep, params)
	require.ErrorContains(t, err, "schema.dependencies[0].outputs.token")
	require.ErrorContains(t, err, "sensitive")
	require.Equal(t, "10.0.1.0/24", params["subnet"], "a sensitive value never reaches a parameter")
}

func TestChangedConsumerComparesCommittedValues(t *testing.T) {
	stack := &config.Stack{Name: "app", Schema: &config.Schema{Dependencies: []config.Dependency{{Name: "network", Stack: "network",
		Instance: "network", Outputs: map[string]string{"subnet": "subnet"}, OnChange: config.OnChangeDeploy}}}}
	user := contract.Ref{Tenant: "acme", Name: "app"}
	in := contract.NotifyDependentsInput{Ref: contract.Ref{Tenant: "acme", Name: "net"}, Outputs: map[string]string{"subnet": "10.0.2.0/24"}}
	inst := &config.Instance{Stack: "app", Parameters: map[string]any{"network": "net", "subnet": "10.0.1.0/24"}}
	op, key := changedConsumer(in, user, stack, inst)
	require.Equal(t, config.OnChangeDeploy, op)
	_, again := changedConsumer(in, user, stack, inst)
	require.Equal(t, key, again, "the same change is the same request")

	inst.Parameters["subnet"] = "10.0.2.0/24"
	op, _ = changedConsumer(in, user, stack, inst)
	require.Empty(t, op, "a dependent that has the value already is not sent anything")

	inst.Parameters["network"] = "other"
	inst.Parameters["subnet"] = "x"
	op, _ = changedConsumer(in, user, stack, inst)
	require.Empty(t, op, "a dependent of another network is not this one's")
}

// graph is a Dependencies over a fixed map of TENANT/NAME to what each depends on.
type graph map[string][]string

func (g graph) Instance(_ context.Context, ref contract.Ref) (*contract.DependencyInstance, error) {
	deps, ok := g[ref.String()]
	if !ok {
		return nil, nil
	}
	return &contract.DependencyInstance{Ref: ref, Stack: "relay", Dependencies: deps}, nil
}
func (g graph) Users(context.Context, contract.Ref) ([]contract.Ref, error)      { return nil, nil }
func (g graph) Plan(context.Context, contract.Ref, string, string, string) error { return nil }

func TestDependencyTargetsRefuseCycles(t *testing.T) {
	stack := &config.Stack{Name: "relay", Schema: &config.Schema{Dependencies: []config.Dependency{{Name: "up", Stack: "relay", Instance: "upstream"}}}}
	a := &Activities{Dependencies: graph{"acme/b": {"acme/c"}, "acme/c": {"acme/a"}, "acme/d": {"acme/d"}}}
	self := contract.Ref{Tenant: "acme", Name: "a"}
	_, err := a.dependencyTargets(context.Background(), self, stack, &config.Instance{Parameters: map[string]any{"upstream": "b"}})
	require.ErrorContains(t, err, "a cycle of dependencies: acme/a -> acme/b -> acme/c -> acme/a")
	require.ErrorContains(t, err, "parameters.upstream")
	_, err = a.dependencyTargets(context.Background(), self, stack, &config.Instance{Parameters: map[string]any{"upstream": "a"}})
	require.ErrorContains(t, err, "names the instance itself")
	_, err = a.dependencyTargets(context.Background(), self, stack, &config.Instance{Parameters: map[string]any{"upstream": "other/b"}})
	require.ErrorContains(t, err, "same tenant")
	targets, err := a.dependencyTargets(context.Background(), self, stack, &config.Instance{Parameters: map[string]any{"upstream": "d"}})
	require.NoError(t, err, "a cycle elsewhere is not this instance's")
	require.Equal(t, []string{"acme/d"}, targets)
	targets, err = a.dependencyTargets(context.Background(), self, stack, &config.Instance{Parameters: map[string]any{"upstream": "new"}})
	require.NoError(t, err, "a dependency that does not exist yet is waited for")
	require.Equal(t, []string{"acme/new"}, targets)
}

// usersFor is a Dependencies that records whom it was asked for and finds no users.
type usersFor struct {
	Dependencies
	asked []string
}

func (u *usersFor) Users(ctx context.Context, _ contract.Ref) ([]contract.Ref, error) {
	a, _ := identity.From(ctx)
	u.asked = append(u.asked, a.Name)
	return nil, nil
}

// A dependency cascade is sent for who asked for the deploy that changed the outputs: every
// plan and deploy it sends goes out with them on its context.
func TestNotifyDependentsSendsOnBehalfOfTheRequester(t *testing.T) {
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-alice", Name: "alice"}
	deps := &usersFor{}
	a := &Activities{Dependencies: deps}
	in := contract.NotifyDependentsInput{Ref: contract.Ref{Tenant: "acme", Name: "net"}, Outputs: map[string]string{"subnet": "10.0.2.0/24"}, OnBehalfOf: &alice}
	_, err := a.NotifyDependents(t.Context(), in)
	require.NoError(t, err)
	in.OnBehalfOf = nil
	_, err = a.NotifyDependents(t.Context(), in)
	require.NoError(t, err)
	require.Equal(t, []string{"alice", ""}, deps.asked)
}

// cascade is an Instances and Dependencies whose dependents refuse the deploy: busy ones as busy.
type cascade struct {
	Instances
	Dependencies
	users []contract.Ref
	busy  map[string]bool
}

func (c *cascade) Users(context.Context, contract.Ref) ([]contract.Ref, error) { return c.users, nil }

func (c *cascade) Deploy(_ context.Context, ref contract.Ref, _, _, _, _ string, _ int) error {
	return &RefusedError{Err: fmt.Errorf("%s is DeploymentFailed", ref), Busy: c.busy[ref.String()]}
}

// A cascade the dependents refuse names them: those that refused are stale at once, those still
// busy are in the error's details, so the dependency can mark them once its retries run out.
func TestNotifyDependentsNamesTheDependentsItCouldNotReach(t *testing.T) {
	schema := "parameters:\n  - {name: network, type: string, required: true}\n  - {name: subnet, type: string, default: \"\"}\n" +
		"dependencies:\n  - {name: network, stack: network, instance: network, outputs: {subnet: subnet}, onChange: deploy}\n"
	inst := "stack: app\nparameters:\n  network: net\n  subnet: 10.0.1.0/24\n"
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{"stacks/app/schema.yaml": []byte(schema),
		"instances/acme/a/instance.yaml": []byte(inst), "instances/acme/b/instance.yaml": []byte(inst)})
	require.NoError(t, err)
	c := &cascade{users: []contract.Ref{{Tenant: "acme", Name: "a"}, {Tenant: "acme", Name: "b"}}, busy: map[string]bool{"acme/a": true}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(&Activities{Forge: f, Instances: c, Dependencies: c})
	in := contract.NotifyDependentsInput{Ref: contract.Ref{Tenant: "acme", Name: "net"}, Outputs: map[string]string{"subnet": "10.0.2.0/24"}}
	_, err = env.ExecuteActivity(contract.ActNotifyDependents, in)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, contract.ErrDependentsBusy, app.Type())
	var busy []string
	require.NoError(t, app.Details(&busy))
	require.Equal(t, []string{"acme/a"}, busy)

	c.busy = nil
	v, err := env.ExecuteActivity(contract.ActNotifyDependents, in)
	require.NoError(t, err)
	var out contract.NotifyDependentsOutput
	require.NoError(t, v.Get(&out))
	require.Equal(t, []string{"acme/a", "acme/b"}, out.Stale)
	require.Contains(t, out.Refused[1], "acme/b is DeploymentFailed")
}
