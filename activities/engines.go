package activities

import (
	"errors"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// engineLister is a Terraform that can say which engine binaries this worker has.
type engineLister interface{ Engines() terraform.Engines }

// checkEngine refuses, at the validate step, a stack whose engine or version this worker lacks,
// naming the stack's field and what the worker has. A worker knows only its own binaries; the
// workers of a pool run one image, so this one's answer is the pool's.
func (a *Activities) checkEngine(stack *config.Stack) error {
	if stack.Schema == nil || stack.Schema.Engine.IsZero() {
		return nil // the worker's own terraform, as before engine: existed
	}
	el, ok := a.Terraform.(engineLister)
	if !ok {
		return nil // a stand-in that runs no engine
	}
	e := stack.Schema.Engine.WithDefault()
	_, err := el.Engines().Pick(e.Name, e.Version)
	var ue *terraform.EngineUnavailableError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &ue):
		return invalidConfig(err)
	}
	have := "none"
	if len(ue.Have) > 0 {
		have = strings.Join(ue.Have, ", ")
	}
	fe := config.FieldError{Field: "schema.engine", Message: fmt.Sprintf("%q: no worker of this pool has %s (this worker has: %s)", e.Name, e.Name, have)}
	if !ue.NoEngine {
		fe = config.FieldError{Field: "schema.engineVersion", Message: fmt.Sprintf("%q: no worker of this pool has %s matching it (this worker has: %s)", e.Version, e.Name, have)}
	}
	return invalidConfig(&config.StackError{Stack: stack.Name, Errors: []config.FieldError{fe}})
}
