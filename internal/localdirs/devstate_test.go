package localdirs

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDevFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/srv/state")
	require.Equal(t, filepath.Join("/srv/state", "slipway", "dev"), DevState())
}

func TestDevDefaultsUnderHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/op")
	require.Equal(t, filepath.Join("/home/op", ".local", "state", "slipway", "dev"), DevState())
}
