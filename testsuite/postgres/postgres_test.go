package postgres

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartCreateDBQueryStop(t *testing.T) {
	s := Start(t)
	assert.Equal(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port), s.ConnString)
	assert.Equal(t, "postgres", s.Query(t, "postgres", "select current_user"))

	conn := s.CreateDB(t, "slipway_it")
	assert.Equal(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/slipway_it?sslmode=disable", s.Port), conn)
	s.Query(t, "slipway_it", "create table t (v text); insert into t values ('kept')")
	assert.Equal(t, "kept", s.Query(t, "slipway_it", "select v from t"))
	// Loopback only: the server must not listen on a wildcard address.
	assert.Equal(t, "127.0.0.1", s.Query(t, "postgres", "show listen_addresses"))

	require.True(t, s.Running())
	s.Stop(t)
	assert.False(t, s.Running(), "postmaster still running after Stop")
	err := exec.Command(filepath.Join(s.BinDir, "pg_isready"), "-q", "-h", s.Host, "-p", strconv.Itoa(s.Port)).Run()
	assert.Error(t, err, "server still accepts connections after Stop")
	s.Stop(t) // idempotent; the t.Cleanup call must not fail either
}

func TestTwoServersAreIndependent(t *testing.T) {
	a, b := Start(t), Start(t)
	require.NotEqual(t, a.Port, b.Port)
	a.CreateDB(t, "only_in_a")
	assert.Equal(t, "1", a.Query(t, "postgres", "select count(*) from pg_database where datname = 'only_in_a'"))
	assert.Equal(t, "0", b.Query(t, "postgres", "select count(*) from pg_database where datname = 'only_in_a'"))
}
