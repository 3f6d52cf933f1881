package activities

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/identity"
)

// A rollout changes an instance's parameters, never its policy: the approval it tightened and
// the pool it names and its labels (which choose its change windows) stay in the config the rollout deploys.
func TestRolloutKeepsTheInstancePolicy(t *testing.T) {
	ctx := context.Background()
	schema := "parameters:\n  - {name: greeting, type: string, required: true}\napproval: destructive\ncontrolPlanes: [observability]\nexpiry: {max: 168h, required: true}\n"
	inst := "stack: web\nparameters:\n  greeting: hi\napproval: {policy: always}\ncontrolPlane: observability\nlabels: {tier: gold}\nexpires: 72h\n"
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/web/schema.yaml": []byte(schema), "instances/acme/web/instance.yaml": []byte(inst)})
	require.NoError(t, err)
	head, err := f.Head(ctx)
	require.NoError(t, err)
	a := &Activities{Forge: f}
	stack, err := a.loadStack(ctx, head, "web")
	require.NoError(t, err)
	tgt := &rolloutTarget{spec: contract.RolloutSpec{Stack: "web"}, head: head, stack: stack, set: map[string]any{"greeting": "hello"}}
	_, des, err := a.compare(ctx, tgt, contract.Ref{Tenant: "acme", Name: "web"})
	require.NoError(t, err)
	assert.Contains(t, des.yaml, "greeting: hello")
	assert.Contains(t, des.yaml, "approval:\n  policy: always\n")
	assert.Contains(t, des.yaml, "controlPlane: observability\n")
	assert.Contains(t, des.yaml, "labels:\n  tier: gold\n")
	assert.Contains(t, des.yaml, "expires: 72h", "a stack requiring an expiry would refuse the deploy without it; the instance workflow keeps the end it has")
}

// onBehalf is an Instances that records whom each request is sent for.
type onBehalf struct {
	Instances
	sentFor []string
}

func (o *onBehalf) Retry(ctx context.Context, _ contract.Ref, _, _ string) error {
	a, _ := identity.From(ctx)
	o.sentFor = append(o.sentFor, a.Name)
	return nil
}

func (o *onBehalf) Deploy(ctx context.Context, ref contract.Ref, _, _, _, requestID string, _ int) error {
	return o.Retry(ctx, ref, "", requestID)
}

func (o *onBehalf) CheckDrift(ctx context.Context, ref contract.Ref, _, requestID string) (contract.DriftOutput, error) {
	return contract.DriftOutput{Drifted: true}, o.Retry(ctx, ref, "", requestID)
}

// A rollout's deploys are sent for the person who started it, so the instance records them as
// the requester (and they may not approve it); a rollout from before names nobody.
func TestRolloutDeploySendsOnBehalfOfItsStarter(t *testing.T) {
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-alice", Name: "alice"}
	inst := &onBehalf{}
	a := &Activities{Instances: inst}
	in := contract.RolloutDeployInput{Rollout: "rollout/r", Spec: contract.RolloutSpec{ID: "r"}, Ref: contract.Ref{Tenant: "acme", Name: "web"},
		RequestID: "rollout/r/acme/web/1", Retry: true, OnBehalfOf: &alice}
	out, err := a.RolloutDeploy(t.Context(), in)
	require.NoError(t, err)
	require.Equal(t, contract.DeployStarted, out.Outcome)
	in.OnBehalfOf = nil
	_, err = a.RolloutDeploy(t.Context(), in)
	require.NoError(t, err)
	require.Equal(t, []string{"alice", ""}, inst.sentFor)
}

// A sweep's check and its remediating deploy are sent for the sweep's requester.
func TestDriftInstanceChecksAndRemediatesOnBehalfOfTheSweepsRequester(t *testing.T) {
	carol := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-carol", Name: "carol"}
	inst := &onBehalf{}
	out, err := (&Activities{Instances: inst}).DriftInstance(t.Context(), contract.DriftInstanceInput{Ref: contract.Ref{Tenant: "acme", Name: "web"},
		Sweep: "drift-sweep/x", Remediate: contract.RemediateDeploy, OnBehalfOf: &carol})
	require.NoError(t, err)
	require.Equal(t, contract.DriftRemediated, out.Outcome)
	require.Equal(t, []string{"carol", "carol"}, inst.sentFor, "the check, then the deploy")
}
