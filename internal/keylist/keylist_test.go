package keylist

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitSkipsCommentsAndBlanksAndKeepsLines(t *testing.T) {
	got := Split("# keys\n a , b,,\n\n#c\nd\n")
	require.Equal(t, []Entry{{2, "a"}, {2, "b"}, {5, "d"}}, got)
	require.Empty(t, Split(" \n# only a comment\n"))
}
