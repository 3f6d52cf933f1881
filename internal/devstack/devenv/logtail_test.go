package devenv

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTailBufferKeepsLastLines(t *testing.T) {
	tb := newTailBuffer(64)
	for i := range 100 {
		fmt.Fprintf(tb, "line %03d\n", i)
	}
	s := tb.String()
	assert.True(t, strings.HasSuffix(s, "line 099"), s)
	assert.True(t, strings.HasPrefix(s, "line "), "a cut tail starts at a whole line: %q", s)
	assert.LessOrEqual(t, len(s), 64)
	assert.NotContains(t, s, "line 000")

	small := newTailBuffer(64)
	fmt.Fprint(small, "only\n")
	assert.Equal(t, "only", small.String())
}
