package terraform

import (
	"context"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// Destroy runs `terraform destroy -auto-approve`, removing everything in the workspace's state.
func (r *Runner) Destroy(ctx context.Context, ws Workspace) error {
	c, err := r.open(ctx, ws, "destroy")
	if err != nil {
		return err
	}
	defer c.close()
	return c.recorded(ctx, func() error {
		tctx, cancel := c.interruptible(ctx)
		defer cancel()
		return c.fail(c.tf.Destroy(tctx, tfexec.LockTimeout("0s")))
	})
}
