package errkind

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// kinded is a backend type that says its kind with an Is method and wraps a cause.
type kinded struct {
	kind  Kind
	cause error
}

func (e *kinded) Error() string        { return "backend: " + string(e.kind) }
func (e *kinded) Is(target error) bool { return target == e.kind }
func (e *kinded) Unwrap() error        { return e.cause }

type limited struct{ wait time.Duration }

func (e limited) Error() string        { return "slow down" }
func (e limited) Is(target error) bool { return target == RateLimited }
func (e limited) Delay() time.Duration { return e.wait }

func TestOfSaysTheOutermostKind(t *testing.T) {
	cases := map[string]struct {
		err  error
		want Kind
	}{
		"nil":                      {nil, ""},
		"plain":                    {errors.New("boom"), ""},
		"a kind itself":            {Busy, Busy},
		"wrapped with %w":          {fmt.Errorf("open: %w", NotFound), NotFound},
		"a type's Is":              {&kinded{kind: Conflict}, Conflict},
		"a type wrapped twice":     {fmt.Errorf("a: %w", fmt.Errorf("b: %w", &kinded{kind: Auth})), Auth},
		"outer kind wins":          {&kinded{kind: Auth, cause: &kinded{kind: Invalid}}, Auth},
		"kind below a plain cause": {fmt.Errorf("a: %w", &kinded{kind: NotAllowed, cause: errors.New("x")}), NotAllowed},
		"joined":                   {errors.Join(errors.New("x"), fmt.Errorf("y: %w", Invalid)), Invalid},
		"rate limited":             {fmt.Errorf("merge: %w", limited{wait: time.Second}), RateLimited},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, Of(tc.err), name)
	}
}

func TestIsMatchesAKindAnywhereInTheChain(t *testing.T) {
	err := fmt.Errorf("deploy: %w", &kinded{kind: Auth, cause: &kinded{kind: Invalid}})
	assert.ErrorIs(t, err, Auth)
	assert.ErrorIs(t, err, Invalid, "the inner kind is still there for errors.Is")
	assert.NotErrorIs(t, err, NotFound)
	assert.NotErrorIs(t, errors.New("not found"), NotFound, "a message is not a kind")
}

func TestDelayReadsTheWaitOfARateLimit(t *testing.T) {
	d, ok := Delay(fmt.Errorf("open: %w", limited{wait: 42 * time.Second}))
	assert.True(t, ok)
	assert.Equal(t, 42*time.Second, d)
	_, ok = Delay(fmt.Errorf("open: %w", RateLimited))
	assert.False(t, ok, "the bare kind says no wait")
}

func TestErrorfSaysItsKindAndOnlyItsText(t *testing.T) {
	cause := errors.New("taken")
	err := Errorf(NotAllowed, "acme/web: %v; choose another name", cause)
	assert.EqualError(t, err, "acme/web: taken; choose another name")
	assert.Equal(t, NotAllowed, Of(err))
	assert.NotErrorIs(t, err, cause, "%v does not wrap")

	wrapped := Errorf(NotFound, "no config: %w", cause)
	assert.ErrorIs(t, wrapped, cause, "%w wraps")
	assert.ErrorIs(t, wrapped, NotFound)
}
