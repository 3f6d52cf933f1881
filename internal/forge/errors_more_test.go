package forge

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/slipway-dev/slipway/internal/errkind"
)

// authErr is a backend's refused credential: its kind, not its type, makes it final.
type authErr struct{}

func (authErr) Error() string        { return "backend error" }
func (authErr) Is(target error) bool { return target == errkind.Auth }

func TestIsNonRetryableHeadChangedRateLimitAndAuthKind(t *testing.T) {
	cases := map[string]struct {
		err  error
		want bool
	}{
		"head changed":          {&HeadChangedError{Branch: "b", Want: "1", Got: "2"}, true},
		"wrapped merged":        {fmt.Errorf("close: %w", &MergedError{MR: MergeRequest{ID: "7", State: StateMerged}}), true},
		"wrapped head changed":  {fmt.Errorf("merge: %w", &HeadChangedError{Branch: "b", Want: "1"}), true},
		"rate limit":            {&RateLimitError{RetryAfter: time.Minute}, false},
		"wrapped rate limit":    {fmt.Errorf("open: %w", &RateLimitError{RetryAfter: time.Second}), false},
		"wrapped auth kind":     {fmt.Errorf("x: %w", authErr{}), true},
		"wrapped auth sentinel": {fmt.Errorf("x: %w", errkind.Auth), true},
		"plain":                 {errors.New("boom"), false},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, IsNonRetryable(tc.err), name)
	}
}

func TestHeadChangedAndRateLimitMessages(t *testing.T) {
	assert.EqualError(t, &HeadChangedError{Branch: "slipway/a", Want: "aaa", Got: "bbb"},
		"branch slipway/a moved: head is bbb, expected aaa")
	assert.EqualError(t, &HeadChangedError{Branch: "slipway/a", Want: "aaa"},
		"branch slipway/a moved: its head is no longer aaa")
	assert.EqualError(t, &RateLimitError{RetryAfter: 90 * time.Second, Message: "API rate limit exceeded"},
		"rate limited: retry after 1m30s: API rate limit exceeded")
	var rl *RateLimitError
	assert.True(t, errors.As(fmt.Errorf("w: %w", &RateLimitError{RetryAfter: time.Second}), &rl))
	assert.Equal(t, time.Second, rl.RetryAfter)
}

func TestMergedErrorNamesTheMergeRequest(t *testing.T) {
	assert.EqualError(t, &MergedError{MR: MergeRequest{ID: "7", Branch: "slipway/a", State: StateMerged, MergeSHA: "abc"}},
		"merge request 7 of branch slipway/a is already merged (as abc); it cannot be closed")
	assert.EqualError(t, &MergedError{MR: MergeRequest{ID: "7", Branch: "slipway/a", State: StateMerged}},
		"merge request 7 of branch slipway/a is already merged; it cannot be closed")
}
