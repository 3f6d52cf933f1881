package terraform

import (
	"context"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// Init runs `terraform init` with the workspace's backend configuration. Local state lives
// outside the working directory; pg state lives in schema SchemaName(ws), with the connection
// string passed only through the environment so it is never written to disk.
func (r *Runner) Init(ctx context.Context, ws Workspace) error {
	c, err := r.open(ws, "init")
	if err != nil {
		return err
	}
	var backendConfig string
	if r.Backend() == backendPG {
		backendConfig = "schema_name=" + SchemaName(ws)
	} else {
		sp := r.statePath(ws)
		if err := os.MkdirAll(filepath.Dir(sp), dirPerm); err != nil {
			return &CommandError{Command: "init", Workspace: ws, Err: err}
		}
		backendConfig = "path=" + sp
	}
	// No -reconfigure: a changed backend must fail loudly rather than start from empty state.
	// Creating a new pg workspace takes the creation lock, so init is recorded too.
	return c.recorded(ctx, func() error { return c.fail(c.tf.Init(ctx, tfexec.BackendConfig(backendConfig))) })
}
