package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// Issue 37 end to end on the real dev server, git and terraform: 1.0.0 and 1.1.0 of a stack,
// where 1.1.0 changes an attribute of terraform_data.app everywhere and, where debug is on,
// replaces terraform_data.db, which the stack marks stateful; 1.1.0 also asks for an approval of
// every deploy. Six instances in three tenants run 1.0.0. The preview shows two plan shapes, the
// replace flagged; the upgrade rollout's deploys wait, grouped by the same fingerprints; carol
// (not the starter) approves the update-only shape once and its four instances go ahead, while the
// two with the replace keep waiting, named; then the rollout is undone back to 1.0.0 (through
// slipway server, as the preview: alice, a tenant member, is refused the undo), and a tenant's
// deploy -f renders its pinned release.
func TestUpgradeApprovedOncePerPlanShapeThenUndone(t *testing.T) {
	w := newPeople(t)
	e := w.e
	base := filepath.Join("..", "..", "examples", "stacks", "example")
	schema, err := os.ReadFile(filepath.Join(base, "schema.yaml"))
	require.NoError(t, err)
	tf, err := os.ReadFile(filepath.Join(base, "terraform", "main.tf.tmpl"))
	require.NoError(t, err)
	stack := func(app, db, extra string) map[string][]byte {
		return map[string][]byte{
			"stacks/example/schema.yaml": []byte(string(schema) + "stateful: [terraform_data.db]\n" + extra),
			"stacks/example/terraform/main.tf.tmpl": []byte(strings.Replace(string(tf), "    debug    = {{ .Params.debug }}\n",
				"    debug    = {{ .Params.debug }}\n"+app, 1) + "\nresource \"terraform_data\" \"db\" {\n  triggers_replace = " + db + "\n}\n"),
		}
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: 1.0 adds a database", stack("", `"v1"`, ""))
	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "a database")
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: 1.1 adds a tier, a new database where debug is on, approvals",
		stack("    tier     = \"1.1\"\n", `{{ if .Params.debug }}"v2"{{ else }}"v1"{{ end }}`, "approval: {policy: always}\n"))
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "tier; debug instances get a new database")

	refs := []string{acmeWeb, "acme/two", "beta/one", "beta/two", "gamma/one", "gamma/two"}
	debug := map[string]bool{"acme/two": true, "gamma/two": true}
	for _, ref := range refs {
		file := writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n  debug: "+map[bool]string{true: "true", false: "false"}[debug[ref]]+"\n")
		if ref == acmeWeb {
			e.MustCLI(0, "deploy", ref, "-f", file, "--wait") // newPeople's instance, pinned
			continue
		}
		e.MustCLI(0, "create", ref, "-f", file, "--wait")
		e.MustCLI(0, "deploy", ref, "--wait")
	}

	require.Eventually(t, func() bool {
		return strings.Count(e.MustCLI(0, "list", "--stack", "example").Stdout, "1.0.0") == 6
	}, time.Minute, 200*time.Millisecond, "visibility lists the six on 1.0.0")
	out := w.as(w.carol, 0, "stack", "preview", "example", "--to", "1.1.0", "-o", "json") // through slipway server
	var pv contract.PreviewResult
	require.NoError(t, json.Unmarshal([]byte(out.Stdout), &pv), out.Stdout)
	require.Len(t, pv.Groups, 2, "two plan shapes: %+v; %+v", pv.Groups, pv.Instances)
	update, replace := pv.Groups[0], pv.Groups[1]
	require.Len(t, update.Instances, 4)
	require.Empty(t, update.Stateful)
	require.Len(t, replace.Instances, 2)
	require.Equal(t, []string{"terraform_data.db"}, replace.Stateful, "the replace of a stateful resource is flagged")
	require.Contains(t, e.MustCLI(0, "stack", "preview", "show", pv.Spec.ID).Stdout, "stateful!")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.PreviewWorkflowID(pv.Spec.ID), "stack-preview")

	e.MustCLI(0, "rollout", "start", "--stack", "example", "--to", "1.1.0", "--batch", "6", "--id", "shape-up")
	var ro contract.RolloutStatus
	require.Eventually(t, func() bool {
		ro = rolloutStatus(t, e, "shape-up")
		n := 0
		for _, g := range ro.Groups {
			n += len(g.Refs)
		}
		return n == 6
	}, 2*time.Minute, 200*time.Millisecond, "every deploy waits: %+v", ro.Groups)
	fps := map[string]bool{}
	for _, g := range ro.Groups {
		fps[g.Fingerprint] = true
	}
	require.Equal(t, map[string]bool{update.Hash: true, replace.Hash: true}, fps, "the rollout's shapes are the preview's: %+v; %+v", ro.Groups, pv.Groups)

	w.as(w.carol, 0, "rollout", "approve", "shape-up", "--fingerprint", update.Hash, "--reason", "tier only")
	for _, ref := range refs {
		if debug[ref] {
			continue
		}
		require.Eventually(t, func() bool {
			st := e.Status(ref)
			return st.State == lifecycle.Deployed && st.Approval == nil && st.Operation.Result == contract.ResultSucceeded
		}, 2*time.Minute, 200*time.Millisecond, ref)
		require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/"+ref+"/instance.yaml"), "stack: example@1.1.0")
	}
	text := e.MustCLI(0, "rollout", "status", "shape-up").Stdout
	for ref := range debug {
		require.NotNil(t, e.Status(ref).Approval, "%s waits for its own approval", ref)
		require.Regexp(t, ref+`\s.*awaits approval of plan shape `+replace.Hash, text)
	}
	require.Contains(t, text, update.Hash+"  4 instance(s)")
	require.Contains(t, text, "[approved by carol]")

	e.MustCLI(0, "rollout", "abort", "shape-up", "--reason", "the database replace needs a plan of its own")
	r := w.as(w.alice, 3, "rollout", "undo", "shape-up", "--id", "shape-down")
	require.Contains(t, r.Stderr, "denied by policy: alice may not", "an undo across every tenant is a platform admin's")
	w.as(w.carol, 0, "rollout", "undo", "shape-up", "--id", "shape-down", "--wait")
	for _, ref := range refs {
		if !debug[ref] {
			require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/"+ref+"/instance.yaml"), "stack: example@1.0.0", ref)
		}
	}
	// An ID is a rollout's for good: starting another under an ended one's is refused, not handed
	// the old run back.
	r = e.MustCLI(2, "rollout", "start", "--stack", "example", "--to", "1.1.0", "--id", "shape-down")
	require.Contains(t, r.Stderr, "--id shape-down: a rollout with that ID exists already")
	// A tenant's deploy -f after the undo renders its pinned 1.0.0 (no tier), main's head has 1.1.0's files.
	e.MustCLI(0, "deploy", "beta/one", "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hola\n  debug: false\n"), "--wait")
	tfm := testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/beta/one/terraform/main.tf")
	require.Contains(t, tfm, `"hola"`)
	require.NotContains(t, tfm, "tier", "deploy -f renders the pinned release, not main's head")
}
