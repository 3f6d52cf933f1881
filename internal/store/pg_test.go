package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/secrets"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

func keys(t *testing.T, ids ...string) (*codec.Keyring, []string) {
	t.Helper()
	var lines []string
	for _, id := range ids {
		line, err := codec.Generate(id)
		require.NoError(t, err)
		lines = append(lines, line)
	}
	k, err := codec.Parse("test", strings.Join(lines, ","))
	require.NoError(t, err)
	return k, lines
}

func open(t *testing.T, conn string, k *codec.Keyring, opts ...Option) *PG {
	t.Helper()
	s, err := OpenPG(t.Context(), conn, k, opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

var ws = terraform.Workspace{Tenant: "acme", Name: "web"}

func plan(body string) terraform.SavedPlan {
	return terraform.SavedPlan{SHA256: strings.Repeat("a", 64), Plan: []byte(body),
		Files: map[string][]byte{"main.tf": []byte(`resource "terraform_data" "x" {}`)}}
}

func TestPlansAreSealedAndSurviveRotation(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "store")
	k1, lines := keys(t, "k1")
	s := open(t, conn, k1)

	require.NoError(t, s.SavePlan(ctx, ws, "3-ab", plan("PLANBYTES-marker")))
	dump := pg.Query(t, "store", "select encode(sealed, 'escape') || encode(data_key, 'escape') from slipway_plans")
	assert.NotContains(t, dump, "PLANBYTES-marker", "plans are sealed at rest")
	assert.NotContains(t, dump, "terraform_data")

	got, err := s.LoadPlan(ctx, ws, "3-ab")
	require.NoError(t, err)
	assert.Equal(t, plan("PLANBYTES-marker"), got)
	_, err = s.LoadPlan(ctx, ws, "4-cd")
	var none *terraform.PlanNotStoredError
	require.ErrorAs(t, err, &none)

	k2line, err := codec.Generate("k2")
	require.NoError(t, err)
	rotated, err := codec.Parse("test", k2line+","+lines[0])
	require.NoError(t, err)
	got, err = open(t, conn, rotated).LoadPlan(ctx, ws, "3-ab")
	require.NoError(t, err, "a rotated keyring still opens rows sealed with the old key")
	assert.Equal(t, "PLANBYTES-marker", string(got.Plan))

	k2only, _ := keys(t, "k2")
	_, err = open(t, conn, k2only).LoadPlan(ctx, ws, "3-ab")
	require.Error(t, err)
	assert.True(t, IsUnreadable(err))
	assert.Contains(t, err.Error(), `key id "k1"`)
	assert.Contains(t, err.Error(), `plan "3-ab" of acme/web`)

	// A row copied to another instance does not open there.
	pg.Query(t, "store", "insert into slipway_plans select 'other', name, plan, sha256, key_id, data_key, sealed, created from slipway_plans")
	_, err = s.LoadPlan(ctx, terraform.Workspace{Tenant: "other", Name: "web"}, "3-ab")
	assert.True(t, IsUnreadable(err), "%v", err)
}

func TestOnlyTheNewestPlansAreKept(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	k, _ := keys(t, "k1")
	s := open(t, pg.CreateDB(t, "store"), k)
	for i := range keepPlans + 3 {
		require.NoError(t, s.SavePlan(ctx, ws, fmt.Sprintf("%d-op", i), plan("p")))
	}
	require.NoError(t, s.SavePlan(ctx, terraform.Workspace{Tenant: "acme", Name: "other"}, "0-op", plan("p")))
	assert.Equal(t, fmt.Sprint(keepPlans), pg.Query(t, "store", "select count(*) from slipway_plans where tenant = 'acme' and name = 'web'"))
	_, err := s.LoadPlan(ctx, ws, fmt.Sprintf("%d-op", keepPlans+2))
	require.NoError(t, err, "the newest is kept")
	_, err = s.LoadPlan(ctx, ws, "0-op")
	var none *terraform.PlanNotStoredError
	require.ErrorAs(t, err, &none, "the oldest is gone")
	_, err = s.LoadPlan(ctx, terraform.Workspace{Tenant: "acme", Name: "other"}, "0-op")
	require.NoError(t, err, "other instances keep theirs")
}

func TestAppliedMarkers(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	k, _ := keys(t, "k1")
	s := open(t, pg.CreateDB(t, "store"), k)
	sha := strings.Repeat("b", 64)
	done, err := s.Applied(ctx, ws, sha)
	require.NoError(t, err)
	assert.False(t, done)
	require.NoError(t, s.MarkApplied(ctx, ws, sha, "3-ab"))
	require.NoError(t, s.MarkApplied(ctx, ws, sha, "3-ab"), "marking twice is fine")
	done, err = s.Applied(ctx, ws, sha)
	require.NoError(t, err)
	assert.True(t, done)
	done, err = s.Applied(ctx, terraform.Workspace{Tenant: "acme", Name: "other"}, sha)
	require.NoError(t, err)
	assert.False(t, done, "markers are per instance")
}

// Workers racing on a first deploy, each with its own connections, agree on one value each.
func TestEnsureRacingWorkersAgree(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "store")
	k, _ := keys(t, "k1")
	const workers = 8
	names := []string{"admin_password", "api_key"}
	stores := make([]*PG, workers)
	for i := range stores {
		stores[i] = open(t, conn, k)
	}
	created := make([][]string, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			created[i], errs[i] = stores[i].Ensure(ctx, "acme", "web", names)
		}()
	}
	close(start)
	wg.Wait()
	count := map[string]int{}
	for i := range stores {
		require.NoError(t, errs[i])
		for _, n := range created[i] {
			count[n]++
		}
	}
	assert.Equal(t, map[string]int{"admin_password": 1, "api_key": 1}, count, "each secret is created exactly once")
	first, err := stores[0].Get(ctx, "acme", "web")
	require.NoError(t, err)
	require.Len(t, first, 2)
	for i := 1; i < workers; i++ {
		got, err := stores[i].Get(ctx, "acme", "web")
		require.NoError(t, err)
		assert.Equal(t, first, got)
	}
	// escape shows printable bytes as they are, so a plaintext value would be found.
	dump := pg.Query(t, "store", "select string_agg(encode(sealed, 'escape') || encode(data_key, 'escape'), '') from slipway_secrets")
	for _, v := range first {
		assert.NotContains(t, dump, v, "secrets are sealed at rest")
	}

	k2, _ := keys(t, "k2")
	_, err = open(t, conn, k2).Get(ctx, "acme", "web")
	assert.True(t, IsUnreadable(err))
	assert.Contains(t, err.Error(), `key id "k1"`)
	assert.Contains(t, err.Error(), "acme/web")
}

func TestLegacyFileStoreIsImportedOnFirstUse(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "store")
	k, _ := keys(t, "k1")
	dir := t.TempDir()
	files := secrets.NewStore(dir)
	_, err := files.Ensure(ctx, "acme", "web", []string{"admin_password"})
	require.NoError(t, err)
	old, err := files.Get(ctx, "acme", "web")
	require.NoError(t, err)

	s := open(t, conn, k, WithLegacySecrets(dir))
	created, err := s.Ensure(ctx, "acme", "web", []string{"admin_password", "token"})
	require.NoError(t, err)
	assert.Equal(t, []string{"token"}, created, "the imported value is kept, not regenerated")
	got, err := open(t, conn, k).Get(ctx, "acme", "web")
	require.NoError(t, err, "other workers read it without the file")
	assert.Equal(t, old["admin_password"], got["admin_password"])
	_, err = os.Stat(filepath.Join(dir, "acme", "web.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the plaintext file is gone once imported")

	require.NoError(t, s.SavePlan(ctx, ws, "3-ab", plan("p")))
	require.NoError(t, s.MarkApplied(ctx, ws, strings.Repeat("a", 64), "3-ab"))
	require.NoError(t, s.Forget(ctx, "acme", "web"))
	require.NoError(t, s.Forget(ctx, "acme", "web"), "forgetting twice is fine")
	gone, err := s.Get(ctx, "acme", "web")
	require.NoError(t, err)
	assert.Empty(t, gone)
	_, err = s.LoadPlan(ctx, ws, "3-ab")
	var none *terraform.PlanNotStoredError
	require.ErrorAs(t, err, &none, "deprovision forgets the plans too")
	assert.Equal(t, "0", pg.Query(t, "store", "select count(*) from slipway_applied_plans"))
}

func TestOpenRefusesBadInput(t *testing.T) {
	_, err := OpenPG(t.Context(), "postgres://x", nil)
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "keys", ie.Field)
	k, _ := keys(t, "k1")
	_, err = OpenPG(t.Context(), "host=%%%% port=notaport password=hunter2", k)
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "SLIPWAY_STORE_PG_CONN", ie.Field)
	assert.NotContains(t, err.Error(), "hunter2")
}

// Lock files: the first recorded at a revision is kept, racing recorders all get it, the newest
// seeds a revision with none, and Forget deletes them.
func TestLockFilesRecordedOncePerRevision(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "store")
	k1, _ := keys(t, "k1")
	s := open(t, conn, k1)

	none, err := s.RecordedLock(ctx, ws, "")
	require.NoError(t, err)
	assert.Nil(t, none)
	var wg sync.WaitGroup
	kept := make([][]byte, 4)
	for i := range kept {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			kept[i], err = s.RecordLock(ctx, ws, "rev1", []byte(fmt.Sprintf("lock %d", i)))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	for _, k := range kept {
		assert.Equal(t, kept[0], k, "every racing recorder gets the one kept")
	}
	_, err = s.RecordLock(ctx, ws, "rev2", []byte("lock two"))
	require.NoError(t, err)
	at1, err := s.RecordedLock(ctx, ws, "rev1")
	require.NoError(t, err)
	assert.Equal(t, kept[0], at1)
	newest, err := s.RecordedLock(ctx, ws, "")
	require.NoError(t, err)
	assert.Equal(t, "lock two", string(newest))
	require.NoError(t, s.Forget(ctx, ws.Tenant, ws.Name))
	gone, err := s.RecordedLock(ctx, ws, "rev1")
	require.NoError(t, err)
	assert.Nil(t, gone)
}
