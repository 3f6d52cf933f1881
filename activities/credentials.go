package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/hooks"
)

// stackFactsCache caches what terraform steps read of each stack at each commit (its credentials
// and budgets): a commit never changes, and each step would otherwise read the stack once more.
var stackFactsCache = struct {
	sync.Mutex
	m map[string]stackFacts
}{m: map[string]stackFacts{}}

// stackFacts is what a terraform step needs of its stack's schema.
type stackFacts struct {
	// credentials are the names of schema.credentials; not nil for a stack that loads, so the
	// runner drops a list the stack no longer has.
	credentials []string
	// budgets are schema.timeouts; nil keeps the defaults.
	budgets *contract.Budgets
}

// lookupEnv reads the worker's variables the mapping names.
var lookupEnv = os.LookupEnv

// maxCachedStacks bounds the cache; it starts over when full.
const maxCachedStacks = 4096

// stackCredentials are the credentials stack names at rev ("" = main, never cached); not nil
// for a stack that loads, so the runner drops a list the stack no longer has.
func (a *Activities) stackCredentials(ctx context.Context, rev, stack string) ([]string, error) {
	f, err := a.stackFacts(ctx, rev, stack)
	return f.credentials, err
}

// stackFacts reads what terraform steps need of stack at rev ("" = main, never cached); zero for
// a stack broken or gone since the deploy, which must not block destroying it (as ResolveRevision).
func (a *Activities) stackFacts(ctx context.Context, rev, stack string) (stackFacts, error) {
	key := rev + "\x00" + stack
	if rev != "" {
		stackFactsCache.Lock()
		f, ok := stackFactsCache.m[key]
		stackFactsCache.Unlock()
		if ok {
			return f, nil
		}
	}
	// stack is the instance file's stack: field, so a pinned instance's facts are its release's.
	s, _, err := a.instanceStack(ctx, rev, &config.Instance{Stack: stack})
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.NonRetryable() {
		// Then the credentials this workspace recorded hold, and the default budgets.
		return stackFacts{}, nil
	}
	if err != nil {
		return stackFacts{}, err
	}
	f := stackFacts{credentials: []string{}}
	if s.Schema != nil {
		if s.Schema.Credentials != nil {
			f.credentials = s.Schema.Credentials
		}
		f.budgets = budgets(s.Schema.Timeouts)
	}
	if rev != "" {
		stackFactsCache.Lock()
		if len(stackFactsCache.m) >= maxCachedStacks {
			stackFactsCache.m = map[string]stackFacts{}
		}
		stackFactsCache.m[key] = f
		stackFactsCache.Unlock()
	}
	return f, nil
}

// checkCredentials refuses a stack naming a credential the operator maps to no source for
// this tenant and stack, naming its field, before anything changes.
func (a *Activities) checkCredentials(stack *config.Stack, ref contract.Ref) error {
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
func (a *Activities) hookCredentials(ref contract.Ref, stack *config.Stack) (env []string, files []hooks.File, secrets []string, err error) {
	if stack.Schema == nil || len(stack.Schema.Credentials) == 0 {
		return nil, nil, nil, nil
	}
	vals, err := a.Credentials.Resolve(ref.Tenant, stack.Name, stack.Schema.Credentials, lookupEnv)
	if err != nil {
		return nil, nil, nil, nonRetryable(contract.ErrRefused, err)
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
