package notify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeReporter records what a forge sink asks of the forge.
type fakeReporter struct {
	statuses []statusCall
	comments []commentCall
	err      error
}

type statusCall struct {
	SHA    string
	Status forge.CommitStatus
}

type commentCall struct {
	MR        forge.MergeRequest
	Key, Body string
}

func (f *fakeReporter) SetStatus(_ context.Context, sha string, s forge.CommitStatus) error {
	f.statuses = append(f.statuses, statusCall{sha, s})
	return f.err
}

func (f *fakeReporter) Comment(_ context.Context, mr forge.MergeRequest, key, body string) error {
	f.comments = append(f.comments, commentCall{mr, key, body})
	return f.err
}

var forgeSink = Sink{Name: "reviews", Kind: SinkForge}

func TestForgeStatusAndComment(t *testing.T) {
	rep := &fakeReporter{}
	ev := failedEvent()
	require.NoError(t, NewSender(WithReporter(rep)).Deliver(context.Background(), forgeSink, ev))

	require.Len(t, rep.statuses, 1)
	assert.Equal(t, statusCall{SHA: "abc123", Status: forge.CommitStatus{
		State: forge.StatusFailure, Context: "slipway/acme/web",
		Description: "terraform apply: timeout <waiting> & gave up",
	}}, rep.statuses[0])

	require.Len(t, rep.comments, 1)
	c := rep.comments[0]
	assert.Equal(t, *ev.MR, c.MR)
	assert.Equal(t, ev.ID, c.Key, "the comment key is the delivery ID, so a retry never posts twice")
	assert.Equal(t, "**slipway: Failed** · acme/web\n\n"+
		"- State: `DeploymentFailed`\n"+
		"- Operation: `deploy`\n"+
		"- Step: `apply`\n"+
		"- Plan: 1 to add, 0 to change, 0 to destroy\n"+
		"\n> terraform apply: timeout &lt;waiting&gt; & gave up\n", c.Body)
}

func TestForgeStates(t *testing.T) {
	tests := []struct {
		ev      Event
		state   forge.StatusState
		context string
	}{
		{Event{Kind: KindReady, Instance: "acme/web"}, forge.StatusSuccess, "slipway/acme/web"},
		{Event{Kind: KindFailed, Instance: "acme/web"}, forge.StatusFailure, "slipway/acme/web"},
		{Event{Kind: KindAwaitingApproval, Instance: "acme/web"}, forge.StatusPending, "slipway/acme/web"},
		{Event{Kind: KindDrifted, Instance: "acme/web"}, forge.StatusError, "slipway/acme/web"},
		{Event{Kind: KindRolloutBatch, Rollout: "r-1", State: "BatchDone"}, forge.StatusSuccess, "slipway/rollout/r-1"},
		{Event{Kind: KindRolloutBatch, Rollout: "r-1", State: "BatchFailed"}, forge.StatusFailure, "slipway/rollout/r-1"},
	}
	for _, tt := range tests {
		rep := &fakeReporter{}
		tt.ev.ID, tt.ev.Revision = "id-1", "deadbeef"
		require.NoError(t, NewSender(WithReporter(rep)).Deliver(context.Background(), forgeSink, tt.ev))
		require.Len(t, rep.statuses, 1)
		assert.Equal(t, tt.state, rep.statuses[0].Status.State, tt.ev.Kind)
		assert.Equal(t, tt.context, rep.statuses[0].Status.Context)
		assert.Empty(t, rep.comments, "no MR, no comment")
	}
}

func TestForgeOnlyMR(t *testing.T) {
	rep := &fakeReporter{}
	ev := failedEvent()
	ev.Revision = ""
	require.NoError(t, NewSender(WithReporter(rep)).Deliver(context.Background(), forgeSink, ev))
	assert.Empty(t, rep.statuses)
	assert.Len(t, rep.comments, 1)
}

func TestForgeNothingToReport(t *testing.T) {
	rep := &fakeReporter{}
	ev := Event{ID: "drift-1", Kind: KindDrifted, Instance: "acme/web", Message: "drifted"}
	require.NoError(t, NewSender(WithReporter(rep)).Deliver(context.Background(), forgeSink, ev))
	assert.Empty(t, rep.statuses)
	assert.Empty(t, rep.comments)
	// Nothing to report needs no reporter either.
	require.NoError(t, NewSender().Deliver(context.Background(), forgeSink, ev))
}

func TestForgeErrors(t *testing.T) {
	err := NewSender().Deliver(context.Background(), forgeSink, failedEvent())
	assert.True(t, IsPermanent(err), "no reporter: %v", err)

	boom := errors.New("forge unavailable")
	err = NewSender(WithReporter(&fakeReporter{err: boom})).Deliver(context.Background(), forgeSink, failedEvent())
	assert.True(t, IsTransient(err))
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "notify sink reviews: set status slipway/acme/web on abc123: forge unavailable")

	gone := &DeliveryError{Sink: "github", Status: 404, Permanent: true}
	err = NewSender(WithReporter(&fakeReporter{err: gone})).Deliver(context.Background(), forgeSink, failedEvent())
	assert.True(t, IsPermanent(err), "a reporter can say an error is permanent")
}

func TestStatusDescriptionTruncated(t *testing.T) {
	rep := &fakeReporter{}
	ev := failedEvent()
	ev.Message = strings.Repeat("é", 200)
	require.NoError(t, NewSender(WithReporter(rep)).Deliver(context.Background(), forgeSink, ev))
	d := rep.statuses[0].Status.Description
	assert.Equal(t, 140, len([]rune(d)))
	assert.True(t, strings.HasSuffix(d, "…"))
	assert.Equal(t, "short", truncate("short", 140))
}

func TestCommentCode(t *testing.T) {
	assert.Equal(t, "`a`", code("a"))
	assert.Equal(t, "``a`b``", code("a`b"))
	assert.Equal(t, "`` `a ``", code("`a"))
}
