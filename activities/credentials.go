package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/steps"
)

// credentialNames caches the credentials each stack names at each commit: a commit never
// changes, and terraform steps would otherwise read the stack once more each.
var credentialNames = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

// lookupEnv reads the worker's variables the mapping names.
var lookupEnv = os.LookupEnv

// maxCachedStacks bounds the cache; it starts over when full.
const maxCachedStacks = 4096

// stackCredentials are the credentials stack names at rev ("" = main, never cached); not nil
// for a stack that loads, so the runner drops a list the stack no longer has.
func (a *Activities) stackCredentials(ctx context.Context, rev, stack string) ([]string, error) {
	key := rev + "\x00" + stack
	if rev != "" {
		credentialNames.Lock()
		names, ok := credentialNames.m[key]
		credentialNames.Unlock()
		if ok {
			return names, nil
		}
	}
	s, err := a.loadStack(ctx, rev, stack)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.NonRetryable() {
		// A stack broken or gone since the deploy must not block destroying it (as ResolveRevision):
		// the names this workspace recorded hold.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := []string{}
	if s.Schema != nil && s.Schema.Credentials != nil {
		names = s.Schema.Credentials
	}
	if rev != "" {
		credentialNames.Lock()
		if len(credentialNames.m) >= maxCachedStacks {
			credentialNames.m = map[string][]string{}
		}
		credentialNames.m[key] = names
		credentialNames.Unlock()
	}
	return names, nil
}

// checkCredentials refuses a stack naming a credential the operator maps to no source for
// this tenant and stack, naming its field, before anything changes.
func (a *Activities) checkCredentials(stack *config.Stack, ref steps.Ref) error {
	if stack.Schema == nil {
		return nil
	}
	var errs []config.FieldError
	for i, name := range stack.Schema.Credentials {
		if !a.Credentials.Mapped(ref.Tenant, stack.Name, name) {
			errs = append(errs, config.FieldError{Field: fmt.Sprintf("schema.credentials[%d]", i),
				Message: fmt.Sprintf("credential %q is mapped to no source for stack %s and tenant %s: the operator maps it in %s",
					name, stack.Name, ref.Tenant, credentials.Var)})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return invalidConfig(&config.StackError{Stack: stack.Name, Errors: errs})
}

// hookCredentials are the stack's credentials as an exec hook gets them: variables in its
// environment, files in its scratch dir; and the values to redact from its output.
func (a *Activities) hookCredentials(ref steps.Ref, stack *config.Stack) (env []string, files []hooks.File, secrets []string, err error) {
	if stack.Schema == nil || len(stack.Schema.Credentials) == 0 {
		return nil, nil, nil, nil
	}
	vals, err := a.Credentials.Resolve(ref.Tenant, stack.Name, stack.Schema.Credentials, lookupEnv)
	if err != nil {
		return nil, nil, nil, nonRetryable(steps.ErrRefused, err)
	}
	for _, v := range vals {
		if v.File {
			files = append(files, hooks.File{Env: v.As, Name: v.Name, Data: v.Data})
		} else {
			env = append(env, v.As+"="+string(v.Data))
		}
	}
	return env, files, credentials.Secrets(vals), nil
}
