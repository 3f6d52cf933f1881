package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// StackItem answers GET /v1/stacks: a stack the person may create instances of in the tenant.
type StackItem struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Schema is the path of its parameters' JSON Schema.
	Schema string `json:"schema"`
	// Releases are the versions cut of the stack (its releases file on main), oldest first; empty without releases.
	Releases []string `json:"releases"`
}

// stackTenant is the tenant a stack read is for: the policy decides per tenant, and a portal
// knows which tenant it creates in.
func stackTenant(r *http.Request) (string, error) {
	t := r.URL.Query().Get("tenant")
	if !names.IsLabel(t) {
		return "", badRequest("tenant: %q is not a tenant name; the stacks are those a tenant may use", t)
	}
	return t, nil
}

// usable says whether the policy lets the actor create an instance of stack in tenant (an
// approval it would wait for is a yes). It only filters what is shown, so it is not recorded.
func (s *Server) usable(ctx context.Context, a identity.Actor, tenant, stack string) (bool, string, error) {
	ok, reason, _, err := s.o.Authorize(ctx, Check{Actor: a, Operation: string(lifecycle.OpProvision), Tenant: tenant, Stack: stack, Waits: true})
	if err != nil {
		return false, "", fmt.Errorf("policy: %w", err)
	}
	return ok, reason, nil
}

// stacks lists the stacks the actor may create instances of in ?tenant=, a tenant they may read:
// those on main, and those only in the stacks repository that have releases (StackSchemas).
func (s *Server) stacks(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	tenant, err := stackTenant(r)
	if err != nil {
		return 0, nil, err
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: OpRead, Tenant: tenant}); err != nil {
		return 0, nil, err
	}
	all, err := s.o.Client.StackSchemas(ctx, "")
	if err != nil {
		return 0, nil, err
	}
	out := []StackItem{}
	for _, st := range all {
		ok, _, err := s.usable(ctx, a, tenant, st.Name)
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			continue
		}
		sch, err := config.ParseSchema([]byte(st.SchemaYAML))
		if err != nil {
			s.log.Warn("a stack's schema.yaml does not parse: not listed", zap.String("stack", st.Name), zap.Error(err))
			continue
		}
		out = append(out, StackItem{Name: st.Name, Description: sch.Description, Schema: "/v1/stacks/" + st.Name + "/schema", Releases: append([]string{}, st.Releases...)})
	}
	return http.StatusOK, out, nil
}

// stackSchema is a stack's parameters as JSON Schema, for those who may create its instances
// in ?tenant=; ?deployed=true marks the initial ones readOnly (a form to update an instance).
func (s *Server) stackSchema(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	tenant, err := stackTenant(r)
	if err != nil {
		return 0, nil, err
	}
	stack := r.PathValue("stack")
	if !names.IsLabel(stack) {
		return 0, nil, badRequest("stack: %q is not a stack name", stack)
	}
	deployed := false
	if v := r.URL.Query().Get("deployed"); v != "" {
		if deployed, err = strconv.ParseBool(v); err != nil {
			return 0, nil, badRequest("deployed: %q is not true or false", v)
		}
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: OpRead, Tenant: tenant}); err != nil {
		return 0, nil, err
	}
	ok, reason, err := s.usable(ctx, a, tenant, stack)
	if err != nil {
		return 0, nil, err
	}
	if !ok {
		return 0, nil, &client.RefusedError{Message: reason}
	}
	got, err := s.o.Client.StackSchemas(ctx, stack)
	if err != nil {
		return 0, nil, err
	}
	if len(got) == 0 {
		return 0, nil, badRequest("stack: no stack %q on main, nor a release of it from the stacks repository", stack)
	}
	sch, err := config.ParseSchema([]byte(got[0].SchemaYAML))
	if err != nil {
		return 0, nil, fmt.Errorf("stack %s: %w", stack, err)
	}
	return http.StatusOK, sch.JSONSchema(stack, deployed), nil
}
