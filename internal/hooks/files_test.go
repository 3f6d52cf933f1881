package hooks

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file credential is a private file in the hook's scratch dir, its variable holds the path,
// and it is gone with the scratch dir once the hook ends.
func TestExecFilesAreWrittenPrivatelyAndNamedByTheirVariable(t *testing.T) {
	t.Parallel()
	var rec recorder
	r := rec.runner()
	r.Files = []File{{Env: "DNS_FILE", Name: "dns", Data: []byte("dns-key-value\n")}}
	out, err := r.Run(context.Background(), execCall(`echo "path=$DNS_FILE"; stat -c %a "$DNS_FILE"; cat "$DNS_FILE"; echo 0`))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.Output), "\n")
	require.Len(t, lines, 4, out.Output)
	path := lines[0][len("path="):]
	assert.Contains(t, path, "/.credential-dns")
	assert.Equal(t, "600", lines[1])
	assert.Equal(t, "dns-key-value", lines[2])
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "the copy goes with the hook's scratch dir")
}
