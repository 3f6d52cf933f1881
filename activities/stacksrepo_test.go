package activities

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// With a stacks repository (SLIPWAY_STACKS_REPO) a release is cut from it and names it; an
// instance pinned to it renders the stacks repository's files at the release's commit, checked
// against the tree hash, whatever either repository's main holds since. A --from off the stacks
// repository's main is refused naming --from; a worker without that repository refuses the
// release naming SLIPWAY_STACKS_REPO; a release cut before (no repo) still renders from the GitOps repo.
func TestReleaseFromTheStacksRepository(t *testing.T) {
	ctx := context.Background()
	stackFiles := func(v string) map[string][]byte {
		return map[string][]byte{"schema.yaml": []byte("parameters: []\n"), "terraform/main.tf.tmpl": []byte("# " + v + "\n")}
	}
	seed := func(v string) map[string][]byte {
		out := map[string][]byte{}
		for p, b := range stackFiles(v) {
			out["stacks/s/"+p] = b
		}
		return out
	}
	gitops, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), seed("gitops"))
	require.NoError(t, err)
	stacks, err := localgit.Init(filepath.Join(t.TempDir(), "stacks.git"), seed("stacks-v1"))
	require.NoError(t, err)
	key, err := attest.Generate()
	require.NoError(t, err)
	seals, err := attest.Parse("test", key)
	require.NoError(t, err)
	pushes := 0
	open := func(f forge.Forge, dir string, files map[string][]byte) forge.MergeRequest {
		t.Helper()
		pushes++
		mr, err := f.Open(ctx, forge.Change{Branch: fmt.Sprintf("test/push-%d", pushes), Title: "t", Dir: dir, Files: files})
		require.NoError(t, err)
		return mr
	}
	push := func(f forge.Forge, dir string, files map[string][]byte) {
		t.Helper()
		_, err := f.Merge(ctx, open(f, dir, files))
		require.NoError(t, err)
	}
	cut := func(a *Activities, version, from string) (contract.StackResult, error) {
		return a.Stack(ctx, contract.StackRequest{Op: contract.StackOpRelease, Stack: "s", Version: version, From: from, CutBy: "carol", ID: "cut-" + version})
	}
	loaded := func(a *Activities, pin string) (string, error) {
		st, _, err := a.instanceStack(ctx, "", &config.Instance{Stack: pin})
		if err != nil {
			return "", err
		}
		return string(st.Files["terraform/main.tf.tmpl"]), nil
	}

	// A release cut before the stacks repository was configured: of the GitOps repository, no repo.
	plain := &Activities{Forge: gitops, Seals: seals}
	res, err := cut(plain, "0.9.0", "")
	require.NoError(t, err)
	require.Empty(t, res.Releases[0].Repo)

	a := &Activities{Forge: gitops, Stacks: stacks, Seals: seals}
	res, err = cut(a, "1.0.0", "")
	require.NoError(t, err)
	rel := res.Releases[1]
	require.Equal(t, stacks.RepoURL(), rel.Repo, "the release names the stacks repository")
	stacksHead, err := stacks.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, stacksHead, rel.Commit, "cut from the stacks repository's head")
	data, err := gitops.ReadDir(ctx, "", config.ReleasesDir("s"))
	require.NoError(t, err)
	require.Contains(t, string(data[config.ReleasesFile]), "repo: "+stacks.RepoURL(), "the releases file stays in the GitOps repository")

	push(stacks, "stacks/s", stackFiles("stacks-v2"))
	push(gitops, "stacks/s", stackFiles("gitops-v2"))
	for pin, want := range map[string]string{"s@1.0.0": "# stacks-v1\n", "s@0.9.0": "# gitops\n", "s": "# gitops-v2\n"} {
		got, err := loaded(a, pin)
		require.NoError(t, err, pin)
		require.Equal(t, want, got, "%s: the stacks repository's head moved since 1.0.0, the GitOps repository's since 0.9.0; unpinned renders the GitOps main", pin)
	}

	// --from must be on the stacks repository's main; its own commits cut.
	off := open(stacks, "stacks/s", stackFiles("unmerged"))
	_, err = cut(a, "1.1.0", off.HeadSHA)
	require.ErrorContains(t, err, "--from: "+off.HeadSHA+" is not on main's history")
	res, err = cut(a, "1.1.0", stacksHead)
	require.NoError(t, err, "the stacks repository's commit is on its main")
	got, err := loaded(a, "s@1.1.0")
	require.NoError(t, err)
	require.Equal(t, "# stacks-v1\n", got)

	// A worker without the stacks repository, or with another, refuses the release, naming it and the variable.
	other, err := localgit.Init(filepath.Join(t.TempDir(), "other.git"), seed("other"))
	require.NoError(t, err)
	for _, w := range []*Activities{plain, {Forge: gitops, Stacks: other, Seals: seals}} {
		_, err = loaded(w, "s@1.0.0")
		require.ErrorContains(t, err, "release s@1.0.0 was cut from the stacks repository "+stacks.RepoURL())
		require.ErrorContains(t, err, "SLIPWAY_STACKS_REPO")
		var ae *temporal.ApplicationError
		require.ErrorAs(t, err, &ae)
		require.True(t, ae.NonRetryable(), "a worker's setting, not a blip")
		got, err := loaded(w, "s@0.9.0")
		require.NoError(t, err, "a release without repo reads the GitOps repository on any worker")
		require.Equal(t, "# gitops\n", got)
	}

	// A release whose tree hash is not its files' at the stacks repository's commit is refused.
	r, err := a.readReleases(ctx, "", "s")
	require.NoError(t, err)
	r.Releases[1].Tree = config.TreeHash(stackFiles("rewritten"))
	a.seal(r)
	push(gitops, config.ReleasesDir("s"), map[string][]byte{config.ReleasesFile: r.Encode()})
	_, err = loaded(a, "s@1.0.0")
	require.ErrorContains(t, err, "release s@1.0.0: the files of stacks/s at")
}

// A rollout to a release of the stacks repository (rollout start --to) is checked against that
// release's files, not the GitOps repository's stacks/ (which has no such stack): it plans the
// re-pin with the release's stateful: list, and so does an undo's pins. --set beside --to is
// refused naming --to, as the CLI refuses it; an unknown release names --to; a worker without
// the stacks repository names SLIPWAY_STACKS_REPO; --set alone plans against the instance's release; a
// read that fails is returned to be retried.
func TestRolloutToAReleaseOfTheStacksRepository(t *testing.T) {
	ctx := context.Background()
	gitops, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"instances/acme/web/instance.yaml": []byte("stack: s@1.0.0\nparameters:\n  greeting: hi\n")})
	require.NoError(t, err)
	stacks, err := localgit.Init(filepath.Join(t.TempDir(), "stacks.git"), map[string][]byte{
		"stacks/s/schema.yaml":            []byte("parameters:\n  - {name: greeting, type: string, default: hi}\nstateful: [aws_db_instance]\n"),
		"stacks/s/terraform/main.tf.tmpl": []byte("# s\n")})
	require.NoError(t, err)
	a := &Activities{Forge: gitops, Stacks: stacks}
	cutReleases(t, a, "s", "1.0.0", "1.1.0")
	head, err := gitops.Head(ctx)
	require.NoError(t, err)
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	plan := func(a *Activities, spec contract.RolloutSpec) (*rolloutTarget, contract.RolloutAction, error) {
		spec.Stack = "s"
		tgt, err := a.rolloutTarget(ctx, spec, head)
		if err != nil {
			return nil, contract.RolloutAction{}, err
		}
		act, err := a.rolloutAction(ctx, tgt, contract.ListedInstance{Ref: ref, State: "Deployed", Ready: "True"})
		return tgt, act, err
	}

	blip := errors.New("connection reset by peer")
	_, _, err = plan(&Activities{Forge: gitops, Stacks: &blipForge{Forge: stacks, errs: []error{blip, blip, blip}}}, contract.RolloutSpec{To: "1.1.0"})
	require.ErrorIs(t, err, blip, "a read of the release that fails is tried again, not refused")

	tgt, act, err := plan(a, contract.RolloutSpec{To: "1.1.0"})
	require.NoError(t, err, "the release's files are in the stacks repository")
	require.Equal(t, contract.ActionUpdate, act.Action)
	require.Equal(t, "stack=s@1.0.0", act.Current)
	require.Equal(t, "stack=s@1.1.0", act.Desired)
	require.Equal(t, []string{"aws_db_instance"}, tgt.stateful, "the release's stateful: list")

	tgt, act, err = plan(a, contract.RolloutSpec{Pins: map[string]string{"acme/web": "1.0.0"}, Undoes: "r-1", AllowDowngrade: true})
	require.NoError(t, err, "an undo's pins are releases too")
	require.Equal(t, contract.ReasonAtTarget, act.Reason)
	require.Equal(t, []string{"aws_db_instance"}, tgt.stateful)

	for _, spec := range []contract.RolloutSpec{
		{To: "1.1.0", Set: []contract.Setting{{Key: "greeting", Value: "hello"}}},
		{To: "1.1.0", Set: []contract.Setting{{Key: "nope", Value: "1"}}},
		{To: "1.1.0", StackRev: head},
	} {
		_, _, err = plan(a, spec)
		require.ErrorContains(t, err, "--to 1.1.0: a re-pin rolls out a release alone; roll --set or --stack-rev out separately")
	}
	_, _, err = plan(a, contract.RolloutSpec{To: "9.9.9"})
	require.ErrorContains(t, err, "--to 9.9.9: ")
	require.ErrorContains(t, err, "unknown release s@9.9.9; releases: 1.0.0, 1.1.0")
	_, _, err = plan(&Activities{Forge: gitops}, contract.RolloutSpec{To: "1.1.0"})
	require.ErrorContains(t, err, "--to 1.1.0: ")
	require.ErrorContains(t, err, "release s@1.1.0 was cut from the stacks repository "+stacks.RepoURL())
	require.ErrorContains(t, err, "SLIPWAY_STACKS_REPO is not set")
	_, act, err = plan(a, contract.RolloutSpec{Set: []contract.Setting{{Key: "greeting", Value: "hello"}}})
	require.NoError(t, err, "--set is checked against the instance's release (TestSetRolloutOfAStackOfTheStacksRepository)")
	require.Equal(t, "greeting=hello", act.Desired)
}

// The stack catalog (GET /v1/stacks, through ValidateInput.Stacks) lists a stack kept only in the
// stacks repository once it has releases, with the schema of its default channel's release, else
// of its last cut; a worker without the stacks repository leaves it out of the list and, asked
// for it by name, says why. The GitOps repository's stacks list as before.
func TestStackCatalogListsTheStacksRepositorysReleasedStacks(t *testing.T) {
	ctx := context.Background()
	webSchema := "parameters: []\n"
	gitops, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{"stacks/web/schema.yaml": []byte(webSchema)})
	require.NoError(t, err)
	v1 := "description: one\nparameters:\n  - {name: greeting, type: string, default: hi}\n"
	v2 := "description: two\nparameters:\n  - {name: greeting, type: string, default: hi}\n  - {name: debug, type: bool, default: false}\n"
	stacks, err := localgit.Init(filepath.Join(t.TempDir(), "stacks.git"), map[string][]byte{"stacks/s/schema.yaml": []byte(v1)})
	require.NoError(t, err)
	a := &Activities{Forge: gitops, Stacks: stacks}
	catalog := func(a *Activities, name string) ([]contract.StackSchema, error) {
		out, err := a.ValidateConfig(ctx, contract.ValidateInput{Stacks: true, Stack: name})
		return out.StackSchemas, err
	}
	all, err := catalog(a, "")
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "web", SchemaYAML: webSchema}}, all, "no release of s yet")

	cutReleases(t, a, "s", "1.0.0")
	_, err = stacks.Merge(ctx, func() forge.MergeRequest {
		mr, err := stacks.Open(ctx, forge.Change{Branch: "test/v2", Title: "v2", Dir: "stacks/s", Files: map[string][]byte{"schema.yaml": []byte(v2)}})
		require.NoError(t, err)
		return mr
	}())
	require.NoError(t, err)
	cutReleases(t, a, "s", "1.1.0")
	all, err = catalog(a, "")
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "s", SchemaYAML: v2, Releases: []string{"1.0.0", "1.1.0"}}, {Name: "web", SchemaYAML: webSchema}}, all, "the last cut's schema")
	one, err := catalog(a, "s")
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "s", SchemaYAML: v2, Releases: []string{"1.0.0", "1.1.0"}}}, one)

	_, err = a.Stack(ctx, contract.StackRequest{Op: contract.StackOpChannel, Stack: "s", Channel: "stable", Version: "1.0.0", Default: true, ID: "ch"})
	require.NoError(t, err)
	one, err = catalog(a, "s")
	require.NoError(t, err)
	require.Equal(t, v1, one[0].SchemaYAML, "the default channel's release's schema")

	plain := &Activities{Forge: gitops}
	all, err = catalog(plain, "")
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "web", SchemaYAML: webSchema}}, all, "a worker without the stacks repository lists the others")
	_, err = catalog(plain, "s")
	require.ErrorContains(t, err, "SLIPWAY_STACKS_REPO is not set")
}

// A --set rollout of a stack kept only in the stacks repository checks each instance's new
// parameters against the release it runs (its pin, else the stack's default channel) and sends
// its file with the pin kept, so its deploy renders that release: a parameter only a later
// release has, or a value its release's schema refuses, refuses the plan naming --set and the
// instance's release. --stack-rev, and an instance with neither a pin nor a default channel, are
// refused naming --stack-rev and stack: (the stack has no files on the GitOps repository's main).
// A worker without the stacks repository refuses the plan naming SLIPWAY_STACKS_REPO; a read of
// a release that fails is returned to be retried, not made a skip.
func TestSetRolloutOfAStackOfTheStacksRepository(t *testing.T) {
	ctx := context.Background()
	gitops, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"instances/acme/a/instance.yaml": []byte("stack: s@1.0.0\nparameters:\n  greeting: hi\n"),
		"instances/acme/b/instance.yaml": []byte("stack: s@1.1.0\nparameters:\n  greeting: hi\n"),
		"instances/acme/c/instance.yaml": []byte("stack: s\nparameters:\n  greeting: hi\n")})
	require.NoError(t, err)
	v1 := "parameters:\n  - {name: greeting, type: string, default: hi}\n"
	stacks, err := localgit.Init(filepath.Join(t.TempDir(), "stacks.git"), map[string][]byte{
		"stacks/s/schema.yaml": []byte(v1), "stacks/s/terraform/main.tf.tmpl": []byte("# s\n")})
	require.NoError(t, err)
	a := &Activities{Forge: gitops, Stacks: stacks}
	cutReleases(t, a, "s", "1.0.0")
	_, err = stacks.Merge(ctx, func() forge.MergeRequest {
		mr, err := stacks.Open(ctx, forge.Change{Branch: "test/v2", Title: "v2", Dir: "stacks/s", Files: map[string][]byte{"schema.yaml": []byte(v1 +
			"  - {name: replicas, type: int, default: 1}\nstateful: [aws_db_instance]\n")}})
		require.NoError(t, err)
		return mr
	}())
	require.NoError(t, err)
	cutReleases(t, a, "s", "1.1.0")
	head, err := gitops.Head(ctx)
	require.NoError(t, err)
	set := func(kv ...string) []contract.Setting {
		var out []contract.Setting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, contract.Setting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	var tgt *rolloutTarget
	plan := func(spec contract.RolloutSpec, names ...string) ([]contract.RolloutAction, []configView, error) {
		spec.Stack = "s"
		var err error
		tgt, err = a.rolloutTarget(ctx, spec, head)
		if err != nil {
			return nil, nil, err
		}
		var acts []contract.RolloutAction
		var views []configView
		for _, n := range names {
			li := contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: n}, State: "Deployed", Ready: "True"}
			act, err := a.rolloutAction(ctx, tgt, li)
			if err != nil {
				return nil, nil, err
			}
			_, des, _ := a.compare(ctx, tgt, li.Ref)
			acts, views = append(acts, act), append(views, des)
		}
		return acts, views, nil
	}

	blip := errors.New("connection reset by peer")
	b := &Activities{Forge: gitops, Stacks: &blipForge{Forge: stacks, errs: []error{blip, blip, blip}}}
	bt, err := b.rolloutTarget(ctx, contract.RolloutSpec{Stack: "s", Set: set("greeting", "hello")}, head)
	require.NoError(t, err)
	_, err = b.rolloutAction(ctx, bt, contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: "a"}, State: "Deployed"})
	require.ErrorIs(t, err, blip, "a read of the release that fails is tried again, not a skip")
	nt, err := (&Activities{Forge: gitops}).rolloutTarget(ctx, contract.RolloutSpec{Stack: "s", Set: set("greeting", "hello")}, head)
	require.NoError(t, err)
	_, err = (&Activities{Forge: gitops}).rolloutAction(ctx, nt, contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: "a"}, State: "Deployed"})
	require.ErrorContains(t, err, "acme/a runs s@1.0.0: ", "a worker without the stacks repository refuses the plan, not skip every instance")
	require.ErrorContains(t, err, "stack: release s@1.0.0 was cut from the stacks repository "+stacks.RepoURL()+", and this worker's SLIPWAY_STACKS_REPO is not set")

	acts, views, err := plan(contract.RolloutSpec{Set: set("greeting", "hello")}, "a", "b")
	require.NoError(t, err, "the stack is in the stacks repository; each instance's release has greeting")
	for i, pin := range []string{"s@1.0.0", "s@1.1.0"} {
		require.Equal(t, contract.ActionUpdate, acts[i].Action, pin)
		require.Equal(t, "greeting=hi", acts[i].Current)
		require.Equal(t, "greeting=hello", acts[i].Desired)
		require.Contains(t, views[i].yaml, "stack: "+pin+"\n", "the deploy keeps the pin, so it renders the release")
		require.Contains(t, views[i].yaml, "greeting: hello")
	}
	acts, _, err = plan(contract.RolloutSpec{Set: set("replicas", "2")}, "b")
	require.NoError(t, err, "1.1.0 has replicas")
	require.Equal(t, "replicas=2", acts[0].Desired)
	require.Equal(t, []string{"aws_db_instance"}, tgt.stateful, "its plans fingerprint with 1.1.0's stateful: list")

	_, _, err = plan(contract.RolloutSpec{Set: set("replicas", "2")}, "b", "a")
	require.ErrorContains(t, err, `--set replicas: acme/a runs s@1.0.0, which has no parameter "replicas"`)
	_, _, err = plan(contract.RolloutSpec{Set: set("replicas", "two")}, "b")
	require.ErrorContains(t, err, "--set replicas: ")
	require.ErrorContains(t, err, "acme/b runs s@1.1.0")
	_, _, err = plan(contract.RolloutSpec{Set: set("greeting", "[1]")}, "a")
	require.ErrorContains(t, err, "--set greeting: ")
	for _, err := range []error{err, func() error { _, _, err := plan(contract.RolloutSpec{Set: set("greeting", "hello")}, "c"); return err }()} {
		var ae *temporal.ApplicationError
		require.ErrorAs(t, err, &ae)
		require.True(t, ae.NonRetryable(), "bad input: exit 2")
	}

	_, _, err = plan(contract.RolloutSpec{Set: set("greeting", "hello")}, "c")
	require.ErrorContains(t, err, "stack: acme/c runs stack s at main's head (unpinned, or on a channel holding head), and stack s has no files on the GitOps repository's main (stacks/s/ is missing): pin it to a release (stack: s@VERSION, or rollout start --to RELEASE)")
	_, _, err = plan(contract.RolloutSpec{StackRev: head}, "a")
	require.ErrorContains(t, err, "--stack-rev "+head+": stack s has no files on the GitOps repository's main (stacks/s/ is missing): it lives in the stacks repository (SLIPWAY_STACKS_REPO); roll out a release of it with --to RELEASE")

	// On a default channel, the unpinned instance runs the channel's release and takes --set as the pinned ones do.
	_, err = a.Stack(ctx, contract.StackRequest{Op: contract.StackOpChannel, Stack: "s", Channel: "stable", Version: "1.1.0", Default: true, ID: "ch"})
	require.NoError(t, err)
	head, err = gitops.Head(ctx)
	require.NoError(t, err)
	acts, views, err = plan(contract.RolloutSpec{Set: set("replicas", "3")}, "c")
	require.NoError(t, err)
	require.Equal(t, "replicas=3", acts[0].Desired)
	require.Contains(t, views[0].yaml, "stack: s\n")

	_, _, err = plan(contract.RolloutSpec{Set: set("greeting", "hello")})
	require.NoError(t, err)
	_, err = a.rolloutTarget(ctx, contract.RolloutSpec{Stack: "nope", Set: set("greeting", "x")}, head)
	require.ErrorContains(t, err, "--stack nope: no such stack on main (stacks/nope/ is missing), nor a release of it")
}

// A stack on the GitOps repository's main: a --set is checked against main's stack and, for a
// pinned instance, against the release it runs, which is what its deploy renders.
func TestSetRolloutChecksAPinnedInstanceAgainstItsRelease(t *testing.T) {
	ctx := context.Background()
	v1 := "parameters:\n  - {name: greeting, type: string, default: hi}\n"
	gitops, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/s/schema.yaml": []byte(v1), "stacks/s/terraform/main.tf.tmpl": []byte("# s\n"),
		"instances/acme/a/instance.yaml": []byte("stack: s@1.0.0\nparameters:\n  greeting: hi\n"),
		"instances/acme/b/instance.yaml": []byte("stack: s\nparameters:\n  greeting: hi\n")})
	require.NoError(t, err)
	a := &Activities{Forge: gitops}
	cutReleases(t, a, "s", "1.0.0")
	_, err = gitops.Merge(ctx, func() forge.MergeRequest {
		mr, err := gitops.Open(ctx, forge.Change{Branch: "test/v2", Title: "v2", Dir: "stacks/s", Files: map[string][]byte{"schema.yaml": []byte(v1 +
			"  - {name: replicas, type: int, default: 1}\n")}})
		require.NoError(t, err)
		return mr
	}())
	require.NoError(t, err)
	head, err := gitops.Head(ctx)
	require.NoError(t, err)
	tgt, err := a.rolloutTarget(ctx, contract.RolloutSpec{Stack: "s", Set: []contract.Setting{{Key: "replicas", Value: "2"}}}, head)
	require.NoError(t, err, "main's stack has replicas")
	act, err := a.rolloutAction(ctx, tgt, contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: "b"}, State: "Deployed", Ready: "True"})
	require.NoError(t, err)
	require.Equal(t, "replicas=2", act.Desired, "the unpinned instance renders main's stack")
	_, err = a.rolloutAction(ctx, tgt, contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: "a"}, State: "Deployed", Ready: "True"})
	require.ErrorContains(t, err, `--set replicas: acme/a runs s@1.0.0, which has no parameter "replicas"`,
		"the pinned instance's deploy renders 1.0.0: refused at the plan, not failed at its deploy")
}
