package activities

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// A rollout changes an instance's parameters, never its policy: the approval it tightened and
// the pool it names stay in the config the rollout deploys.
func TestRolloutKeepsTheInstancePolicy(t *testing.T) {
	ctx := context.Background()
	schema := "parameters:\n  - {name: greeting, type: string, required: true}\napproval: destructive\ncontrolPlanes: [observability]\n"
	inst := "stack: web\nparameters:\n  greeting: hi\napproval: {policy: always}\ncontrolPlane: observability\n"
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
}
