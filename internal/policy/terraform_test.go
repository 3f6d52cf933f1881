package policy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/terraform"
)

// The fixtures' configuration, planned by the real terraform here: a replace of the stateful
// database waits for platform-admins, and so does the same plan as the worker gives the policy
// (terraform.PolicyJSON, sensitive values masked).
func TestRealTerraformPlanReplacingStatefulNeedsPlatformApproval(t *testing.T) {
	bin, err := terraform.FindBinary("")
	require.NoError(t, err, "terraform runs in every test of plans")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "plans", "main.tf"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.tf"), src, 0o644))
	tf := func(args ...string) []byte {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && errors.As(err, &ee) {
			t.Fatalf("terraform %v: %v\n%s", args, err, ee.Stderr)
		}
		require.NoError(t, err)
		return out
	}
	tf("init", "-no-color")
	tf("apply", "-auto-approve", "-no-color")
	tf("plan", "-no-color", "-var", "generation=2", "-out", "replace.tfplan")
	raw := tf("show", "-json", "replace.tfplan")
	var parsed tfjson.Plan
	require.NoError(t, json.Unmarshal(raw, &parsed))
	masked, err := terraform.PolicyJSON(&parsed)
	require.NoError(t, err)

	for _, p := range [][]byte{raw, masked} {
		i := in(alice, "deploy")
		i.Stack.Stateful = []string{"terraform_data.db"}
		i.Plan = p
		d, err := Default().Decide(context.Background(), i)
		require.NoError(t, err)
		require.True(t, d.Allow)
		require.Equal(t, &Requirement{Groups: []string{"platform-admins"}, Count: 1}, d.Approval)
		require.Contains(t, d.Reason, "the plan replaces terraform_data.db, which the stack marks stateful")
	}

	// Unmarked, the same replace follows the stack (never).
	i := in(alice, "deploy")
	i.Plan = raw
	d, err := Default().Decide(context.Background(), i)
	require.NoError(t, err)
	require.True(t, d.Allow)
	require.Nil(t, d.Approval)
}
