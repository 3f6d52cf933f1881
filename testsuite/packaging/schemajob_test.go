package packaging

import (
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// compose's temporal-schema job (deploy/temporal/setup-schema.sh) brings an empty PostgreSQL to
// Temporal v1.29.1's schema with the real temporal-sql-tool, and a second run (every `up`) changes
// nothing and does not fail.
func TestComposeSchemaJobOnRealPostgres(t *testing.T) {
	bins, err := temporalcluster.FindBinaries("")
	var missing *temporalcluster.MissingBinaryError
	if errors.As(err, &missing) && os.Getenv("SLIPWAY_REQUIRE_TEMPORAL_CLUSTER") != "1" {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	pg := postgres.Start(t)
	u, err := url.Parse(pg.ConnString)
	require.NoError(t, err)

	// The admin-tools image has the tool on PATH and the schema at /etc/temporal/schema.
	path := t.TempDir()
	require.NoError(t, os.Symlink(bins.SQLTool, filepath.Join(path, "temporal-sql-tool")))
	run := func() string {
		cmd := exec.Command("sh", filepath.Join(Root(), "deploy", "temporal", "setup-schema.sh"))
		cmd.Env = append(os.Environ(), "PATH="+path+":"+os.Getenv("PATH"),
			"SQL_HOST="+u.Hostname(), "SQL_PORT="+u.Port(), "SQL_USER="+u.User.Username(), "SQL_PASSWORD=unused-on-trust",
			"DBNAME=temporal", "VISIBILITY_DBNAME=temporal_visibility",
			"TEMPORAL_SCHEMA_DIR="+filepath.Join(bins.SchemaDir, "postgresql", "v12"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "setup-schema.sh: %s", out)
		return string(out)
	}
	out := run()
	require.Contains(t, out, "temporal schema of temporal is current")
	require.Contains(t, out, "temporal schema of temporal_visibility is current")
	version := func(db string) string {
		return strings.TrimSpace(pg.Query(t, db, "SELECT curr_version FROM schema_version"))
	}
	main, vis := version("temporal"), version("temporal_visibility")
	require.NotEqual(t, "0.0", main, "update-schema applied no version")
	require.NotEqual(t, "0.0", vis, "update-schema applied no version")
	require.NotEmpty(t, pg.Query(t, "temporal", "SELECT 1 FROM information_schema.tables WHERE table_name = 'executions'"))
	t.Logf("schema versions: temporal %s, temporal_visibility %s", main, vis)

	run()
	require.Equal(t, main, version("temporal"), "a second run changed the schema version")
	require.Equal(t, vis, version("temporal_visibility"))
}
