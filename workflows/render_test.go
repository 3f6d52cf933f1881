package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Every merge records what slipway rendered, and every later pipeline verifies main's files
// against the last record before terraform or a hook runs.
func TestMergesRecordTheRenderAndPipelinesVerifyIt(t *testing.T) {
	w := newWorld(t)
	update := op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: webYAML + "  replicas: 2\n"})
	destroy := op(lifecycle.OpDestroy, contract.OperationRequest{})
	reqs := append(deployed(), update, destroy)
	w.run(contract.Settings{}, reqs...)
	require.Equal(t, lifecycle.Destroyed, destroy.result.State)

	require.Len(t, w.records, 3, "provision and the update merged; the plain deploy found main holding its render")
	provision, plain, updated := w.records[0], w.records[1], w.records[2]
	require.Equal(t, "head-"+reqs[0].result.OperationID, provision.Commit, "the record reads slipway's own commit, not main")
	require.Equal(t, "merge-"+provision.Commit, provision.Revision)
	require.Equal(t, contract.RecordRenderInput{Ref: plain.Ref, Commit: "rev-1", Revision: "rev-1"}, plain, "the render it verified, unchanged")
	require.Equal(t, "merge-"+updated.Commit, updated.Revision)

	require.Len(t, w.verifies, 4, "the plain deploy (before its render and before terraform), the update and the destroy verified")
	require.Equal(t, provision.Revision, w.verifies[0].Render.Revision, "the deploy verified provision's merge before rendering it again")
	require.Equal(t, plain.Revision, w.verifies[1].Render.Revision, "and its own record before terraform")
	require.Equal(t, updated.Revision, w.verifies[2].Render.Revision, "the update verified its own merge")
	require.Equal(t, updated.Revision, w.verifies[3].Render.Revision, "the destroy verified the update's merge, kept by the instance")
	require.Equal(t, "rev-2", w.verifies[3].Revision, "at the revision it then ran terraform at")
	st := w.status(contract.OutputAll)
	require.Contains(t, step(t, st, contract.VerifyRender).Detail, "1 file(s) as rendered at merge "+updated.Revision[:12])
	require.NotNil(t, st.Render, "status -o all shows the record")
	require.Equal(t, updated.Revision, st.Render.Revision)
	require.Nil(t, w.status(contract.OutputSummary).Render)
}

// Files changed on main since slipway's merge fail the step before terraform runs, with a leftover
// naming them and the commit; compensation reads the state with slipway's own files; retry, once
// main is reverted, goes on.
func TestChangedRenderFailsTheStepUntilMainIsReverted(t *testing.T) {
	w := newWorld(t)
	destroy := op(lifecycle.OpDestroy, contract.OperationRequest{})
	retry := decision(lifecycle.DecisionRetry, contract.DecisionRequest{Actor: "bob"})
	reqs := append(deployed(), destroy, retry)
	reqs[1].arm = func() {
		w.changed = &contract.RenderChange{Dir: "instances/acme/web", Since: "merge-x", Revision: "rev-1", Changed: []string{"terraform/main.tf"},
			Commits: []forge.Commit{{SHA: "c0ffee0000000000", Author: "Mallory <m@example>", Subject: "tweak"}}}
	}
	var destroyedBefore, removedBefore int
	destroy.arm = func() {
		destroyedBefore, removedBefore = w.called(contract.ActTerraformDestroy), w.called(contract.ActRemoveApp)
	}
	w.run(contract.Settings{}, reqs...)
	require.Equal(t, lifecycle.DestroyFailed, destroy.result.State)
	f := destroy.result.Failure
	require.NotNil(t, f)
	require.Equal(t, contract.VerifyRender, f.Step)
	require.Equal(t, contract.ErrRenderChanged, f.Type)
	require.Contains(t, f.Error, "changed terraform/main.tf; by commit c0ffee000000 (Mallory <m@example>: tweak)")
	var left *contract.Leftover
	for i := range f.Leftovers {
		if f.Leftovers[i].Kind == contract.LeftoverRender {
			left = &f.Leftovers[i]
		}
	}
	require.NotNil(t, left, "%+v", f.Leftovers)
	require.Equal(t, "terraform/main.tf", left.ID)
	require.Contains(t, left.Cleanup, "revert c0ffee000000 on main")
	require.Contains(t, left.Cleanup, "slipway retry acme/web")
	require.Equal(t, 0, destroyedBefore, "terraform never ran")
	require.Equal(t, 0, removedBefore, "nothing was removed")
	require.Len(t, w.inspects, 1)
	require.Equal(t, w.records[len(w.records)-1].Revision, w.inspects[0].Revision, "the leftover check prepares slipway's files, not main's")

	require.NoError(t, retry.err)
	require.Equal(t, lifecycle.Destroyed, retry.result.State, "main holds the render again: the retry goes on")
	require.Equal(t, 1, w.called(contract.ActTerraformDestroy))
}

func step(t *testing.T, st contract.Status, name string) contract.StepRecord {
	t.Helper()
	for i := len(st.Operation.Steps) - 1; i >= 0; i-- {
		if st.Operation.Steps[i].Name == name {
			return st.Operation.Steps[i]
		}
	}
	t.Fatalf("no step %s in %+v", name, st.Operation.Steps)
	return contract.StepRecord{}
}

// An operator who reviewed the change accepts main's files at the failed revision as rendered
// (resolve --accept-render): recorded as a decision, and later pipelines verify against them.
func TestResolveAcceptRenderRecordsTheReviewedFiles(t *testing.T) {
	w := newWorld(t)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	early := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Actor: "bob", Reason: "x", AcceptRender: true})
	destroy := op(lifecycle.OpDestroy, contract.OperationRequest{})
	accept := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Actor: "bob", Reason: "reviewed: a comment", AcceptRender: true})
	reqs := append(provisioned(), deploy, early, decision(lifecycle.DecisionRetry, contract.DecisionRequest{}), destroy, accept)
	reqs[0].arm = func() { w.failNext(contract.ActTerraformApply, 1) }
	reqs[3].arm = func() {
		w.changed = &contract.RenderChange{Dir: "instances/acme/web", Since: "m", Revision: "rev-1", Changed: []string{"terraform/main.tf"},
			Added: []string{"terraform/extra.tf"}, Diff: "--- a/instances/acme/web/terraform/main.tf\n+++ b/instances/acme/web/terraform/main.tf\n@@ -1 +1 @@\n-# ok\n+# hand edit\n"}
	}
	w.run(contract.Settings{}, reqs...)
	require.Equal(t, lifecycle.DeploymentFailed, deploy.result.State)
	require.ErrorContains(t, early.err, "--accept-render: the operation did not fail verifying its rendered files (it failed at step tf-apply)")
	require.Equal(t, lifecycle.DestroyFailed, destroy.result.State)
	require.Equal(t, contract.VerifyRender, destroy.result.Failure.Step)
	require.NoError(t, accept.err)
	require.Equal(t, lifecycle.Destroyed, accept.result.State)
	last := w.records[len(w.records)-1]
	require.Equal(t, contract.RecordRenderInput{Ref: last.Ref, Commit: "rev-1", Revision: "rev-1"}, last, "the files at the failed revision are recorded")
	require.Equal(t, "rev-1", w.verifies[len(w.verifies)-1].Render.Revision, "and verified against")
	st := w.status(contract.OutputAll)
	d := st.Decisions[len(st.Decisions)-1]
	require.Equal(t, "rev-1", d.AcceptedRender)
	require.Equal(t, []string{"terraform/main.tf", "terraform/extra.tf"}, d.AcceptedFiles, "the decision names what it accepted")
	require.Contains(t, d.AcceptedDiff, "+# hand edit\n", "and its change")
	require.Equal(t, "bob", d.Actor)
	require.Equal(t, "reviewed: a comment", d.Reason)
}

// A deploy whose manifests use outputs merges them rendered after the apply, records that merge
// (so the next verify accepts slipway's own commit) and deploys the app at it.
func TestDeployRendersOutputsAndDeploysThatMerge(t *testing.T) {
	w := newWorld(t)
	w.outputsMR = &forge.MergeRequest{ID: "outputs", State: forge.StateMerged, HeadSHA: "outputs-head", MergeSHA: "outputs-merge"}
	reqs := deployed()
	w.run(contract.Settings{}, reqs...)
	require.Equal(t, lifecycle.Deployed, reqs[len(reqs)-1].result.State)
	require.Len(t, w.outputs, 1)
	require.Equal(t, "rev-1", w.outputs[0].Revision, "rendered at the revision the deploy applied")
	last := w.records[len(w.records)-1]
	require.Equal(t, contract.RecordRenderInput{Ref: last.Ref, Commit: "outputs-head", Revision: "outputs-merge"}, last)
	st := w.status(contract.OutputAll)
	require.Equal(t, "outputs-merge", st.Deployed, "the app deployed the outputs merge")
	require.Equal(t, "outputs-merge", st.Render.Revision)
	require.Contains(t, step(t, st, contract.RenderOutputs).Detail, "2 file(s) rendered with the outputs, merged as outputs-merg; 1 rendered file(s) recorded")
}

// A stack whose manifests use no output deploys without the step.
func TestDeployWithoutOutputsHasNoRenderOutputsStep(t *testing.T) {
	w := newWorld(t)
	w.run(contract.Settings{}, deployed()...)
	require.Empty(t, w.outputs)
	for _, s := range w.status(contract.OutputAll).Operation.Steps {
		require.NotEqual(t, contract.RenderOutputs, s.Name)
	}
}
