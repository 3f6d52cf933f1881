package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

const idp = "https://idp.test"

var (
	alice  = identity.Actor{Kind: identity.Person, Issuer: idp, Subject: "u-alice", Name: "alice", Groups: []string{"tenant:acme"}, Via: "cli"}
	bob    = identity.Actor{Kind: identity.Person, Issuer: idp, Subject: "u-bob", Name: "bob", Groups: []string{"tenant:other"}, Via: "cli"}
	carol  = identity.Actor{Kind: identity.Person, Issuer: idp, Subject: "u-carol", Name: "carol", Groups: []string{"platform-admins"}, Via: "cli"}
	dave   = identity.Actor{Kind: identity.Person, Issuer: idp, Subject: "u-dave", Name: "dave", Groups: []string{"tenant:acme"}, Via: "cli"}
	worker = identity.Actor{Kind: identity.Service, Issuer: "slipway", Subject: "worker", Name: "worker", Via: "worker"}
	// mallory is bob's forge login under alice's name: a forge login is not a person.
	mallory = identity.Actor{Kind: identity.Forge, Issuer: "gitea:http://127.0.0.1:3000", Subject: "42", Name: "alice", Via: "comment"}
)

func plan(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "plans", name+".json"))
	require.NoError(t, err)
	return raw
}

func in(actor identity.Actor, op string) Input {
	return Input{Actor: actor, Operation: op, Tenant: "acme", Name: "web", State: "running", Stack: Stack{Name: "web"}}
}

// The shipped policies, on the three users of the e2e and a real terraform plan.
func TestDefaultPolicyDecides(t *testing.T) {
	never := approval.Rule{Policy: approval.Never}
	destructive := approval.Rule{Policy: approval.Destructive, Approvers: []string{"dave", "group:platform-admins"}}
	platform := &Requirement{Groups: []string{"platform-admins"}, Count: 1}

	for _, tc := range []struct {
		name     string
		in       Input
		allow    bool
		approval *Requirement
		reason   string // a part of the reason
	}{
		{name: "alice deploys acme", in: in(alice, "deploy"), allow: true, reason: "member of tenant acme"},
		{name: "bob cannot deploy acme", in: in(bob, "deploy"), reason: "bob may not deploy instances of tenant acme"},
		{name: "bob cannot read acme's plan", in: in(bob, "plan"), reason: "tenant acme"},
		{name: "bob cannot cancel acme's operation", in: in(bob, "cancel"), reason: "tenant acme"},
		{name: "carol deploys acme", in: in(carol, "deploy"), allow: true, reason: "platform admin"},
		{name: "the worker refreshes", in: in(worker, "refresh"), allow: true},
		{name: "carol moves acme/web to a new run", in: in(carol, "new-run"), allow: true, reason: "platform admin"},
		{name: "bob cannot move acme/web to a new run", in: in(bob, "new-run"), reason: "bob may not new-run instances of tenant acme"},
		{name: "an unmapped forge login is nobody's member", in: in(mallory, "deploy"), reason: "tenant acme"},
		{
			name: "alice's destroy waits for platform-admins though the stack says never",
			in: func() Input {
				i := in(alice, "destroy")
				i.Stack.Approval = never
				i.Plan = plan(t, "destroy")
				return i
			}(),
			allow: true, approval: platform, reason: "destroy needs a platform approval",
		},
		{name: "alice's deprovision waits for platform-admins", in: in(alice, "deprovision"), allow: true, approval: platform},
		{name: "carol's own deprovision is the platform's approval", in: in(carol, "deprovision"), allow: true, reason: "platform admin"},
		{
			name: "carol's destroy still follows the stack's destructive",
			in: func() Input {
				i := in(carol, "destroy")
				i.Stack.Approval = approval.Rule{Policy: approval.Destructive}
				return i
			}(),
			allow: true, approval: &Requirement{Groups: []string{"tenant:acme", "platform-admins"}, Count: 1},
			reason: "destroy removes the app or its data",
		},
		{
			name: "carol's plan replacing a stateful resource goes on",
			in: func() Input {
				i := in(carol, "deploy")
				i.Stack.Stateful = []string{"terraform_data.db"}
				i.Plan = plan(t, "replace")
				return i
			}(),
			allow: true,
		},
		{name: "tenant * is every tenant", in: func() Input { i := fleet(alice, "drift"); i.Tenant, i.Name = "*", "*"; return i }(), reason: "across every tenant"},
		{
			name: "a plan replacing a stateful address waits for platform-admins though the stack says never",
			in: func() Input {
				i := in(alice, "deploy")
				i.Stack.Stateful = []string{"terraform_data.db"}
				i.Stack.Approval = never
				i.Plan = plan(t, "replace")
				return i
			}(),
			allow: true, approval: platform, reason: "the plan replaces terraform_data.db, which the stack marks stateful",
		},
		{
			name: "a stateful type counts too",
			in: func() Input {
				i := in(alice, "deploy")
				i.Stack.Stateful = []string{"terraform_data"}
				i.Plan = plan(t, "replace")
				return i
			}(),
			allow: true, approval: platform, reason: "replaces terraform_data.db",
		},
		{
			name: "a replace of nothing stateful follows the stack's never",
			in: func() Input {
				i := in(alice, "deploy")
				i.Stack.Stateful = []string{"terraform_data.cache"} // updated in place, not replaced
				i.Stack.Approval = never
				i.Plan = plan(t, "replace")
				return i
			}(),
			allow: true,
		},
		{
			name: "a create-only plan under destructive needs nothing",
			in: func() Input {
				i := in(alice, "deploy")
				i.Stack.Approval = destructive
				i.Plan = plan(t, "create")
				return i
			}(),
			allow: true,
		},
		{
			name: "the stack's destructive names its approvers: a person and a group",
			in: func() Input {
				i := in(alice, "deploy")
				i.Stack.Approval = destructive
				i.Plan = plan(t, "replace")
				return i
			}(),
			allow: true, approval: &Requirement{Groups: []string{"user:dave", "platform-admins"}, Count: 1},
			reason: "the plan deletes or replaces terraform_data.db",
		},
		{
			name: "the stack's always with no approvers: the tenant's members or platform-admins, not oneself",
			in: func() Input {
				i := in(alice, "deploy")
				i.Stack.Approval = approval.Rule{Policy: approval.Always}
				return i
			}(),
			allow: true, approval: &Requirement{Groups: []string{"tenant:acme", "platform-admins"}, Count: 1},
		},
		{name: "carol starts a rollout across every tenant", in: fleet(carol, "rollout"), allow: true},
		{name: "alice cannot", in: fleet(alice, "rollout"), reason: "alice may not rollout across every tenant: only platform-admins may"},
		{name: "alice checks her tenant's drift", in: func() Input { i := fleet(alice, "drift"); i.Tenant = "acme"; return i }(), allow: true},
		{name: "bob cannot check acme's", in: func() Input { i := fleet(bob, "drift"); i.Tenant = "acme"; return i }(), reason: "tenant acme"},
		{name: "carol approves alice's destroy", in: approve(carol, alice, platform), allow: true, reason: "carol may approve"},
		{name: "alice cannot approve her own destroy", in: approve(alice, alice, &Requirement{Groups: []string{"tenant:acme", "platform-admins"}, Count: 1}), reason: "self-approval is refused"},
		{name: "alice approves her own when the policy allows it", in: approve(alice, alice, &Requirement{Groups: []string{"tenant:acme"}, Count: 1, AllowSelf: true}), allow: true},
		{name: "bob cannot approve acme's destroy", in: approve(bob, alice, platform), reason: "not one of the approvers (platform-admins)"},
		{name: "bob cannot reject it either", in: func() Input { i := approve(bob, alice, platform); i.Operation = "reject"; return i }(), reason: "may not reject"},
		{name: "dave approves as the named person", in: approve(dave, alice, &Requirement{Groups: []string{"user:dave"}, Count: 1}), allow: true},
		{name: "a forge login named alice is not the person alice", in: approve(mallory, bob, &Requirement{Groups: []string{"user:alice"}, Count: 1}), reason: "not one of the approvers"},
		{name: "the worker cannot approve", in: approve(worker, alice, platform), reason: "only a person may approve"},
		{
			name: "carol cannot approve twice",
			in: func() Input {
				i := approve(carol, alice, &Requirement{Groups: []string{"platform-admins"}, Count: 2})
				i.Approval.Approvals = []identity.Actor{carol}
				return i
			}(),
			reason: "already approved",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Default().Decide(context.Background(), tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.allow, d.Allow, d.Reason)
			require.Equal(t, tc.approval, d.Approval)
			require.Contains(t, d.Reason, tc.reason)
			require.Equal(t, Default().Hash(), d.PolicyHash)
			// No reason ever carries a plan hash (nor anything that looks like one).
			require.False(t, regexp.MustCompile(`[0-9a-f]{7,}`).MatchString(d.Reason), d.Reason)
		})
	}
}

func fleet(actor identity.Actor, op string) Input {
	return Input{Actor: actor, Operation: op, Stack: Stack{Name: "web"}}
}

func approve(actor, requester identity.Actor, req *Requirement) Input {
	i := in(actor, "approve")
	i.Approval = &ApprovalInput{Requester: requester, Required: *req}
	return i
}

// The forge mapping is the policy's data: an operator's bundle maps logins to people.
func TestForgeUsersMapToPeople(t *testing.T) {
	dir := copyDefault(t)
	write(t, dir, "data.json", `{"slipway": {"groups": ["platform-admins", "tenant:*"],
		"forge_users": {"gitea": {"alice-git": "alice"}},
		"people": {"alice": {"groups": ["tenant:acme"]}}}}`)
	e, err := Load(dir)
	require.NoError(t, err)
	forgeAlice := identity.Actor{Kind: identity.Forge, Issuer: "gitea:http://127.0.0.1:3000", Subject: "7", Name: "alice-git", Via: "comment"}

	d, err := e.Decide(context.Background(), in(forgeAlice, "deploy"))
	require.NoError(t, err)
	require.True(t, d.Allow, d.Reason)

	d, err = e.Decide(context.Background(), approve(forgeAlice, bob, &Requirement{Groups: []string{"user:alice"}, Count: 1}))
	require.NoError(t, err)
	require.True(t, d.Allow, d.Reason)

	// The same person through the forge still cannot approve what she asked for on the CLI.
	d, err = e.Decide(context.Background(), approve(forgeAlice, alice, &Requirement{Groups: []string{"tenant:acme"}, Count: 1}))
	require.NoError(t, err)
	require.False(t, d.Allow)
	require.Contains(t, d.Reason, "self-approval")
}

// The bundle's own Rego tests pass, through the same runner as `slipway policy test`.
func TestDefaultBundleRegoTests(t *testing.T) {
	var out bytes.Buffer
	passed, err := Test(context.Background(), "", &out, false)
	require.NoError(t, err)
	require.True(t, passed, out.String())
	require.Regexp(t, `PASS: \d+/\d+`, out.String())
}

func TestRegoTestFailureIsReported(t *testing.T) {
	dir := copyDefault(t)
	write(t, dir, "extra_test.rego", "package slipway_test\n\nimport data.slipway\n\ntest_bob_deploys_acme if {\n\tslipway.decision.allow with input as req(bob, \"deploy\")\n}\n")
	var out bytes.Buffer
	passed, err := Test(context.Background(), dir, &out, false)
	require.NoError(t, err)
	require.False(t, passed)
	require.Contains(t, out.String(), "test_bob_deploys_acme")
	require.Contains(t, out.String(), "FAIL: 1/")
}

// The hash is sha256 over the files by path, so any edit (a test's too) changes it.
func TestHash(t *testing.T) {
	dir := copyDefault(t)
	e, err := Load(dir)
	require.NoError(t, err)
	require.Equal(t, Default().Hash(), e.Hash(), "the same files hash the same wherever they are")

	h := sha256.New()
	for _, f := range []string{"data.json", "slipway.rego", "slipway_test.rego"} {
		src, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		h.Write([]byte(f + "\x00"))
		h.Write(src)
		h.Write([]byte{0})
	}
	require.Equal(t, hex.EncodeToString(h.Sum(nil)), e.Hash())

	write(t, dir, "slipway_test.rego", readFile(t, filepath.Join(dir, "slipway_test.rego"))+"\n# edited\n")
	e2, err := Load(dir)
	require.NoError(t, err)
	require.NotEqual(t, e.Hash(), e2.Hash())
}

// Bad policies are refused at Load with the file and line, and nothing loads.
func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // parts of the error, in order
	}{
		{
			name:  "a syntax error names file:line",
			files: map[string]string{"extra.rego": "package slipway.extra\n\nx := 1\n\ny if {\n\tinput.a ==\n}\n"},
			want:  []string{"extra.rego:7: rego_parse_error", "unexpected } token"},
		},
		{
			name:  "an unsafe variable names file:line",
			files: map[string]string{"extra.rego": "package slipway.extra\n\nx if {\n\ty > 1\n}\n"},
			want:  []string{"extra.rego:4: rego_unsafe_var_error", "var y is unsafe"},
		},
		{
			name:  "an unknown function names file:line",
			files: map[string]string{"extra.rego": "package slipway.extra\n\n\nx := nope(1)\n"},
			want:  []string{"extra.rego:4: rego_type_error", "undefined function nope"},
		},
		{
			name:  "a test that does not parse",
			files: map[string]string{"extra_test.rego": "package slipway_test\n\ntest_x if {\n\tz ==\n}\n"},
			want:  []string{"extra_test.rego:5: rego_parse_error"},
		},
		{
			name:  "an approval by an undeclared group names it",
			files: map[string]string{"extra.rego": "package slipway.extra\n\nreq := {\"groups\": [\"platform-admin\"], \"count\": 1}\n"},
			want:  []string{"extra.rego:3: group \"platform-admin\" is not declared in data.slipway.groups"},
		},
		{
			name:  "a membership test on an undeclared group names it",
			files: map[string]string{"extra.rego": "package slipway.extra\n\ndba if \"dbas\" in input.actor.groups\n"},
			want:  []string{"extra.rego:3: group \"dbas\" is not declared"},
		},
		{
			name:  "a list of groups held by a rule",
			files: map[string]string{"extra.rego": "package slipway.extra\n\nadmin_groups := {\"ops\"}\n"},
			want:  []string{"extra.rego:3: group \"ops\" is not declared"},
		},
		{
			name:  "a call to the network",
			files: map[string]string{"extra.rego": "package slipway.extra\n\nok if {\n\thttp.send({\"method\": \"GET\", \"url\": \"http://127.0.0.1:1/\"}).status_code == 200\n}\n"},
			want:  []string{"extra.rego:4: rego_type_error: unsafe built-in function calls in expression: http.send"},
		},
		{
			name:  "a read of the worker's environment",
			files: map[string]string{"extra.rego": "package slipway.extra\n\nkey := opa.runtime().env.SLIPWAY_CODEC_KEY\n"},
			want:  []string{"extra.rego:3: rego_type_error: unsafe built-in function calls in expression: opa.runtime"},
		},
		{
			name:  "a package outside slipway",
			files: map[string]string{"extra.rego": "package other\n\nx := 1\n"},
			want:  []string{"extra.rego:1: package other: a policy's package is slipway or slipway.*"},
		},
		{
			name:  "data that does not parse",
			files: map[string]string{"data.json": "{\"slipway\": "},
			want:  []string{"data.json: unexpected EOF"},
		},
		{
			name:  "groups that are not a list",
			files: map[string]string{"data.json": `{"slipway": {"groups": "platform-admins"}}`},
			want:  []string{"data.slipway.groups: a list of group names"},
		},
		{
			name:  "no entry point",
			files: map[string]string{"slipway.rego": "package slipway\n\nallow := true\n", "slipway_test.rego": "package slipway_test\n\ntest_ok if true\n"},
			want:  []string{"no rule defines data.slipway.decision"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDefault(t)
			for name, src := range tc.files {
				write(t, dir, name, src)
			}
			e, err := Load(dir)
			require.Nil(t, e)
			var le *LoadError
			require.ErrorAs(t, err, &le)
			msg := err.Error()
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				require.GreaterOrEqual(t, i, 0, "%q not in:\n%s", w, msg)
				msg = msg[i+len(w):]
			}
			if strings.Contains(tc.want[0], ".rego:") {
				require.Contains(t, err.Error(), filepath.Join(dir, strings.SplitN(tc.want[0], ":", 2)[0]), "names the file by its path")
			}

			// The same bundle stops a worker (FromEnv) with the same message, and `policy test`.
			t.Setenv(EnvDir, dir)
			_, envErr := FromEnv()
			require.ErrorContains(t, envErr, EnvDir+": ")
			require.ErrorContains(t, envErr, tc.want[0])
			_, testErr := Test(context.Background(), dir, &bytes.Buffer{}, false)
			require.ErrorAs(t, testErr, &le)
		})
	}
}

// Tests are not part of the decision: a test in package slipway cannot change one, and a test
// that does not compile fails `policy test` (naming file:line), not the worker.
func TestTestsStayOutOfDecisions(t *testing.T) {
	dir := copyDefault(t)
	write(t, dir, "sneaky_test.rego", "package slipway\n\ndeny contains \"from a test\" if true\n\ntest_x if true\n")
	e, err := Load(dir)
	require.NoError(t, err)
	d, err := e.Decide(context.Background(), in(alice, "deploy"))
	require.NoError(t, err)
	require.True(t, d.Allow, d.Reason)

	write(t, dir, "sneaky_test.rego", "package slipway_test\n\ntest_x if {\n\tz\n}\n")
	_, err = Load(dir)
	require.NoError(t, err)
	_, err = Test(context.Background(), dir, &bytes.Buffer{}, false)
	var le *LoadError
	require.ErrorAs(t, err, &le)
	require.ErrorContains(t, err, filepath.Join(dir, "sneaky_test.rego")+":4: rego_unsafe_var_error: var z is unsafe")
}

func TestLoadRefusesMissingAndEmptyDirs(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope"))
	require.ErrorContains(t, err, "no such file or directory")
	_, err = Load(t.TempDir())
	require.ErrorContains(t, err, "no .rego files")
}

// A decision that requires a group the bundle never declared is an error naming it, never a
// requirement nobody (or the wrong people) could meet.
func TestDecideRefusesUndeclaredGroup(t *testing.T) {
	i := in(alice, "deploy")
	i.Stack.Approval = approval.Rule{Policy: approval.Always, Approvers: []string{"group:dba"}}
	_, err := Default().Decide(context.Background(), i)
	var ue *UndeclaredGroupError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, "dba", ue.Group)
	require.ErrorContains(t, err, `group "dba", which data.slipway.groups does not declare`)

	// Declared, it is honoured.
	dir := copyDefault(t)
	write(t, dir, "data.json", `{"slipway": {"groups": ["platform-admins", "tenant:*", "dba"]}}`)
	e, err := Load(dir)
	require.NoError(t, err)
	d, err := e.Decide(context.Background(), i)
	require.NoError(t, err)
	require.Equal(t, &Requirement{Groups: []string{"dba"}, Count: 1}, d.Approval)
}

func TestDecideRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		field string
		mod   func(*Input)
	}{
		{"operation", func(i *Input) { i.Operation = "nuke" }},
		{"actor", func(i *Input) { i.Actor = identity.Actor{Name: "alice"} }},
		{"tenant", func(i *Input) { i.Tenant = "" }},
		{"name", func(i *Input) { i.Name = " " }},
		{"stack.approval.policy", func(i *Input) { i.Stack.Approval.Policy = "sometimes" }},
		{"stack.stateful[0]", func(i *Input) { i.Stack.Stateful = []string{""} }},
		{"plan", func(i *Input) { i.Plan = json.RawMessage(`[1]`) }},
		{"request", func(i *Input) { i.Request = "acceptRender" }},
		{"approval", func(i *Input) { i.Operation = "approve" }},
		{"approval.required.groups", func(i *Input) { *i = approve(carol, alice, &Requirement{Count: 1}) }},
		{"approval.required.count", func(i *Input) { *i = approve(carol, alice, &Requirement{Groups: []string{"platform-admins"}}) }},
		{"approval.requester", func(i *Input) {
			*i = approve(carol, identity.Actor{}, &Requirement{Groups: []string{"platform-admins"}, Count: 1})
		}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			i := in(alice, "deploy")
			tc.mod(&i)
			_, err := Default().Decide(context.Background(), i)
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, tc.field, ie.Field)
		})
	}
}

// A policy whose decision is of the wrong shape is an error, not an allow.
func TestDecideRefusesMalformedDecision(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "slipway.rego", "package slipway\n\ndecision := {\"allow\": \"yes\"}\n")
	e, err := Load(dir)
	require.NoError(t, err)
	_, err = e.Decide(context.Background(), in(alice, "deploy"))
	var ee *EvalError
	require.ErrorAs(t, err, &ee)
	require.ErrorContains(t, err, "data.slipway.decision is not {allow")
}

func BenchmarkDecide(b *testing.B) {
	e := Default()
	raw, err := os.ReadFile("testdata/plans/replace.json")
	require.NoError(b, err)
	i := in(alice, "deploy")
	i.Stack.Stateful = []string{"terraform_data.db"}
	i.Plan = raw
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Decide(context.Background(), i); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadDefault(b *testing.B) {
	for b.Loop() {
		if _, err := loadFS(defaultBundle(), "default"); err != nil {
			b.Fatal(err)
		}
	}
}

// copyDefault copies the embedded bundle to a temporary directory to edit.
func copyDefault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"data.json", "slipway.rego", "slipway_test.rego"} {
		write(t, dir, f, readFile(t, filepath.Join("default", f)))
	}
	return dir
}

func write(t *testing.T, dir, name, src string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	src, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(src)
}

// One engine serves every local activity of a worker at once.
func TestDecideConcurrently(t *testing.T) {
	e := Default()
	replace := plan(t, "replace")
	errs := make(chan error, 16)
	for n := range 16 {
		go func() {
			i := in(alice, "deploy")
			if n%2 == 1 {
				i = in(bob, "deploy")
			}
			i.Stack.Stateful = []string{"terraform_data.db"}
			i.Plan = replace
			d, err := e.Decide(context.Background(), i)
			switch {
			case err != nil:
				errs <- err
			case d.Allow != (n%2 == 0):
				errs <- fmt.Errorf("%d: allow %v: %s", n, d.Allow, d.Reason)
			default:
				errs <- nil
			}
		}()
	}
	for range 16 {
		require.NoError(t, <-errs)
	}
}

// Data files are read as OPA bundles read them: YAML or JSON, one in a/b/ is data.a.b, and two
// files setting one key are refused.
func TestDataFiles(t *testing.T) {
	dir := copyDefault(t)
	require.NoError(t, os.Remove(filepath.Join(dir, "data.json")))
	write(t, dir, "data.yaml", "slipway:\n  groups: [platform-admins, \"tenant:*\", dba]\n")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "slipway", "people"), 0o755))
	write(t, dir, "slipway/people/data.json", `{"dave": {"groups": ["dba"]}}`)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	write(t, dir, ".git/broken.rego", "this is not rego")
	e, err := Load(dir)
	require.NoError(t, err)

	i := in(alice, "deploy")
	i.Stack.Approval = approval.Rule{Policy: approval.Always, Approvers: []string{"group:dba"}}
	d, err := e.Decide(context.Background(), i)
	require.NoError(t, err)
	require.Equal(t, []string{"dba"}, d.Approval.Groups)
	nobody := identity.Actor{Kind: identity.Person, Issuer: idp, Subject: "u-dave", Name: "dave"}
	d, err = e.Decide(context.Background(), approve(nobody, alice, d.Approval))
	require.NoError(t, err)
	require.True(t, d.Allow, "data.slipway.people (from slipway/people/data.json) puts dave in dba: %s", d.Reason)

	write(t, dir, "slipway/data.json", `{"groups": ["ops"]}`)
	_, err = Load(dir)
	require.ErrorContains(t, err, "data.slipway.groups is set by two data files")
}

// Every lifecycle operation is one the policy decides on: a new one must be added here too, or
// every request for it would be refused as bad input.
func TestEveryLifecycleOperationIsAPolicyOperation(t *testing.T) {
	for _, op := range lifecycle.AllOperations {
		require.Contains(t, Operations, string(op))
	}
}
