package activities

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// An operation's branch name is predictable: a branch someone pushed there first, with files
// slipway would not write, is refused rather than merged (and its files recorded as rendered);
// slipway's own branch passes.
func TestAnMRBranchSomeoneElsePushedIsRefused(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"instances/acme/web/instance.yaml": []byte("stack: s\n"), "instances/acme/web/terraform/main.tf": []byte("# slipway's\n")})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	// The tenant pushes the deprovision's branch before slipway opens it.
	_, err = f.Open(ctx, forge.Change{Branch: contract.BranchFor(ref, "deprovision", "7-e"), Title: "mine", Dir: ref.Dir(),
		Files: map[string][]byte{"terraform/main.tf": []byte("# the tenant's\n")}})
	require.NoError(t, err)
	_, err = a.OpenMergeRequest(ctx, contract.OpenMRInput{Ref: ref, Operation: "deprovision", OpID: "7-e", Remove: true})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Message(), "branch slipway/acme/web/deprovision-7-e holds files under instances/acme/web that slipway did not render (terraform/main.tf)")

	mr, err := a.OpenMergeRequest(ctx, contract.OpenMRInput{Ref: ref, Operation: "deprovision", OpID: "8-e", Remove: true})
	require.NoError(t, err, "slipway's own branch")
	require.NoError(t, a.checkBranch(ctx, mr, ref.Dir(), nil), "a retry finds it as it was")
}
