package terraform

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindBinaryMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvBinary, "")
	for _, explicit := range []string{"", "/nonexistent/terraform"} {
		_, err := FindBinary(explicit)
		var nf *NotFoundError
		require.ErrorAs(t, err, &nf, explicit)
		assert.Contains(t, err.Error(), "SLIPWAY_TERRAFORM")
		assert.Contains(t, err.Error(), "releases.hashicorp.com")
	}
	_, err := New(t.TempDir())
	var nf *NotFoundError
	assert.ErrorAs(t, err, &nf, "New without WithBinary looks the binary up")
}

func TestFindBinaryOrder(t *testing.T) {
	dir := t.TempDir()
	onPath := filepath.Join(dir, "terraform")
	require.NoError(t, os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755))
	fromEnv := filepath.Join(t.TempDir(), "tf-from-env")
	require.NoError(t, os.WriteFile(fromEnv, []byte("#!/bin/sh\n"), 0o755))
	notExec := filepath.Join(t.TempDir(), "tf-not-exec")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	t.Setenv("PATH", dir)

	t.Setenv(EnvBinary, "")
	got, err := FindBinary("")
	require.NoError(t, err)
	assert.Equal(t, onPath, got)

	t.Setenv(EnvBinary, fromEnv)
	got, err = FindBinary("")
	require.NoError(t, err)
	assert.Equal(t, fromEnv, got, "$SLIPWAY_TERRAFORM wins over PATH")

	got, err = FindBinary(onPath)
	require.NoError(t, err)
	assert.Equal(t, onPath, got, "an explicit path wins over everything")

	_, err = FindBinary(notExec)
	var nf *NotFoundError
	require.True(t, errors.As(err, &nf))
	assert.Contains(t, nf.Reason, "not executable")
	t.Setenv(EnvBinary, dir)
	_, err = FindBinary("")
	require.ErrorAs(t, err, &nf)
	assert.Contains(t, err.Error(), "is a directory")
}
