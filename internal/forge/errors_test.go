package forge

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsNonRetryable(t *testing.T) {
	cases := map[error]bool{
		&ConflictError{Branch: "b", Paths: []string{"a"}}:          true,
		&NotFoundError{What: "branch b"}:                           true,
		&InvalidError{Field: "dir", Problem: "must not be empty"}:  true,
		fmt.Errorf("merge: %w", &ConflictError{Branch: "b"}):       true,
		fmt.Errorf("localgit: merge b: %w 50 times", ErrBaseMoved): false,
		errors.New("git exited 128"):                               false,
		nil:                                                        false,
	}
	for err, want := range cases {
		assert.Equal(t, want, IsNonRetryable(err), "%v", err)
	}
}

func TestErrorMessagesNameWhatIsWrong(t *testing.T) {
	assert.EqualError(t, &ConflictError{Branch: "slipway/a/b/deploy-1", Paths: []string{"x/a.yaml", "x/b.yaml"}},
		"merge conflict: branch slipway/a/b/deploy-1 conflicts with the base in x/a.yaml, x/b.yaml")
	assert.EqualError(t, &InvalidError{Field: "files[a]", Value: "../a", Problem: "must not contain .."},
		`invalid files[a] "../a": must not contain ..`)
	assert.EqualError(t, &NotFoundError{What: "branch x"}, "branch x not found")
}

func TestCheckClosed(t *testing.T) {
	assert.NoError(t, CheckClosed(MergeRequest{ID: "7", State: StateClosed}, "close #7"))
	var merged *MergedError
	assert.ErrorAs(t, CheckClosed(MergeRequest{ID: "7", State: StateMerged}, "close #7"), &merged)
	assert.True(t, IsNonRetryable(merged))
	open := CheckClosed(MergeRequest{ID: "7", State: StateOpen}, "close #7")
	assert.EqualError(t, open, "close #7: still open after closing it")
	assert.False(t, IsNonRetryable(open), "the next attempt closes it again")
}
