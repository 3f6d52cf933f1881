package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUpsertApplicationCreatesThenReplaces(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	app := NewDeployer(c).desired(testApp())

	got, err := c.UpsertApplication(ctx, app)
	require.NoError(t, err)
	require.Equal(t, "acme-web", got.Metadata.Name)
	require.Equal(t, []string{"upsert=true&validate=false"}, f.lastWriteQuery)

	app.Spec.Source.TargetRevision = "other"
	got, err = c.UpsertApplication(ctx, app)
	require.NoError(t, err)
	require.Equal(t, "other", got.Spec.Source.TargetRevision)
}

func TestUpsertSendsNoStatusOrOperation(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	app := NewDeployer(c).desired(testApp())
	app.Status.Sync.Status = SyncSynced
	app.Operation = &Operation{Sync: &SyncOperation{Revision: "x"}}
	_, err := c.UpsertApplication(context.Background(), app)
	require.NoError(t, err)
	require.Len(t, f.created, 1)
	require.Nil(t, f.created[0].Operation)
	require.Empty(t, f.created[0].Status.Sync.Status)
}

func TestUpsertConflictIsTyped(t *testing.T) {
	f := newFake(t)
	f.conflictsOnWrite = 1
	c := f.client(t)
	_, err := c.UpsertApplication(context.Background(), NewDeployer(c).desired(testApp()))
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, ce.Message, "already exists")
}

func TestUpdateApplication(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	app := NewDeployer(c).desired(testApp())

	_, err := c.UpdateApplication(ctx, app)
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf, "an update of a missing app is a 404")

	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}})
	got, err := c.UpdateApplication(ctx, app)
	require.NoError(t, err)
	require.Equal(t, testRev, got.Spec.Source.TargetRevision)
	require.Contains(t, f.callList(), "PUT /api/v1/applications/acme-web?project=default&validate=false")
}
