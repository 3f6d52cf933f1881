package activities

import (
	"context"
	"fmt"

	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// Semaphores are the budgets' semaphore workflows (capacity.Semaphores); set from the worker's client.
type Semaphores interface {
	Acquire(ctx context.Context, req contract.CapacityRequest) (contract.CapacityPlace, error)
	Closed(ctx context.Context, holders []contract.CapacityHolder) ([]string, error)
}

// capacityOf is the stack's schema.capacity for the workflow; nil when it draws on no budget, so
// a pipeline of such a stack runs exactly as before budgets existed.
func capacityOf(c config.Capacity) *contract.Capacity {
	if c == (config.Capacity{}) {
		return nil
	}
	return &contract.Capacity{Apply: c.Apply, Destroy: c.Destroy}
}

// checkCapacity refuses a stack naming a budget the platform's file does not, naming its field.
func (a *Activities) checkCapacity(stack *config.Stack) error {
	if stack.Schema == nil {
		return nil
	}
	var errs []config.FieldError
	for _, f := range []struct{ field, name string }{{"schema.capacity.apply", stack.Schema.Capacity.Apply}, {"schema.capacity.destroy", stack.Schema.Capacity.Destroy}} {
		if _, ok := a.Budgets.Slots(f.name); f.name != "" && !ok {
			errs = append(errs, config.FieldError{Field: f.field,
				Message: fmt.Sprintf("capacity budget %q is not one the platform names in %s", f.name, capacity.Var)})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return invalidConfig(&config.StackError{Stack: stack.Name, Errors: errs})
}

// CapacityAcquire queues the pipeline for a slot of req.Budget with the budget's size now, and
// returns its place; a budget the platform no longer names is refused as invalid.
func (a *Activities) CapacityAcquire(ctx context.Context, req contract.CapacityRequest) (contract.CapacityPlace, error) {
	slots, ok := a.Budgets.Slots(req.Budget)
	if !ok {
		return contract.CapacityPlace{}, invalidConfig(fieldError("schema.capacity",
			fmt.Sprintf("capacity budget %q is not one the platform names in %s", req.Budget, capacity.Var)))
	}
	req.Slots = slots
	place, err := a.Semaphores.Acquire(ctx, req)
	return place, classify(err)
}

// CapacityClosed returns the holders whose pipelines closed: the semaphore takes their slots back.
func (a *Activities) CapacityClosed(ctx context.Context, holders []contract.CapacityHolder) ([]string, error) {
	closed, err := a.Semaphores.Closed(ctx, holders)
	return closed, classify(err)
}
