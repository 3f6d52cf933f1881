package client

import (
	"context"
	"fmt"
	"os"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/nameclaim"
	"github.com/slipway-dev/slipway/internal/names"
)

// CheckNames refuses a provision of ref whose derived names another instance holds, before
// anything is sent. The provision claims the names itself, atomically; this only lets a
// request that does not wait get the refusal too.
func (c *Client) CheckNames(ctx context.Context, ref contract.Ref) error {
	// The worker checks its own list again; this one lets a request that does not wait see it.
	reserved, err := names.ReservedFromEnv(os.Getenv)
	if err != nil {
		return &RejectedError{Message: err.Error()}
	}
	if err := reserved.Check(ref.Tenant, ref.Name); err != nil {
		return &RejectedError{Message: err.Error()}
	}
	reg := nameclaim.New(c.Temporal, c.TaskQueue)
	for _, cl := range names.Derive(ref.Tenant, ref.Name).Claims() {
		holder, running, err := reg.Holder(ctx, cl)
		if err != nil {
			return err
		}
		if running && holder != ref.String() {
			taken := &names.TakenError{Claim: cl, Holder: holder}
			return &RejectedError{Message: fmt.Sprintf("%s: %v; choose another name", ref, taken)}
		}
	}
	return nil
}
