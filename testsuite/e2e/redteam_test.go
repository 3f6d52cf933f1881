package e2e

// Red-team attacks by a reviewer who did not build what they attack, written from the docs alone,
// on the real components (a Temporal dev server, a real worker, git, terraform, the real OpenID
// provider and `slipway server`). Each test is one attack and asserts the SAFE outcome the docs
// promise: a failing test is a finding. Kept as regression tests once each finding was fixed.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/proxy"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// A value of acme's that only acme's readers may learn: the example stack's `initial` region
// (the non-default one) and a greeting nobody else could guess.
const (
	acmeRegion   = "us-east"
	acmeGreeting = "acme-private-greeting-7f3a9c"
)

type redWorld struct {
	*people
	mallory string
}

// newRedWorld is newPeople with acme/web created with acme's private values, and mallory signed in.
func newRedWorld(t *testing.T) *redWorld {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.alice, w.bob, w.carol = signIn(t, p, "alice"), signIn(t, p, "bob"), signIn(t, p, "carol")
	inst := writeFile(t, "stack: example\nparameters:\n  greeting: "+acmeGreeting+"\n  region: "+acmeRegion+"\n  replicas: 1\n")
	w.as(w.alice, 0, "create", acmeWeb, "-f", inst, "--wait")
	w.as(w.alice, 0, "deploy", acmeWeb, "--wait")
	var err error
	w.secrets, err = e.Activities.Secrets.Get(t.Context(), "acme", "web")
	require.NoError(t, err)
	return &redWorld{people: w, mallory: signIn(t, p, "mallory")}
}

func httpAs(t *testing.T, method, url, tok, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// requireNoAcmeLeak: an answer to an outsider holds none of acme's values or state.
func (w *redWorld) requireNoAcmeLeak(t *testing.T, what, body string) {
	t.Helper()
	for _, v := range []string{acmeRegion, acmeGreeting, "Deployed", "Destroying", "is busy", "waiting", "running"} {
		require.NotContains(t, body, v, "%s leaks %q to an outsider: %s", what, v, body)
	}
	for _, v := range w.secrets {
		require.NotContains(t, body, v, "%s leaks a secret", what)
	}
}

// Goal 3: bob (tenant other) and mallory (no group) learn nothing of acme/web through the
// server's write endpoints: every answer is the policy's 403 naming the tenant, whatever acme's
// instance holds, whether it exists, or what state it is in.
func TestRedteamOutsiderWritesLeakNothing(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	base := w.url + "/v1/instances/acme/web"
	for _, who := range []struct{ name, tok string }{{"bob", w.bob}, {"mallory", w.mallory}} {
		t.Run(who.name+"/deploy-with-initial-param-echo", func(t *testing.T) {
			// The example stack's `region` is initial: a deploy that changes it is refused naming the
			// value acme's instance was deployed with, if validation runs before the policy.
			body, _ := json.Marshal(map[string]any{"request": map[string]any{
				"configYAML": "stack: example\nparameters:\n  greeting: x\n  region: eu-west\n"}})
			code, ans := httpAs(t, http.MethodPost, base+"/operations/deploy", who.tok, string(body))
			t.Logf("%s deploy -f (region changed): %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "deploy with a config", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/plan-with-initial-param-echo", func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"request": map[string]any{
				"configYAML": "stack: example\nparameters:\n  greeting: x\n  region: eu-west\n"}})
			code, ans := httpAs(t, http.MethodPost, base+"/operations/plan", who.tok, string(body))
			t.Logf("%s plan -f: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "plan with a config", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/stack-change-echo", func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"request": map[string]any{
				"configYAML": "stack: nosuchstack\nparameters: {}\n"}})
			code, ans := httpAs(t, http.MethodPost, base+"/operations/deploy", who.tok, string(body))
			t.Logf("%s deploy -f (stack changed): %d %s", who.name, code, ans)
			require.NotContains(t, ans, `"example"`, "the answer names acme/web's stack")
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/existence-oracle", func(t *testing.T) {
			code1, ans1 := httpAs(t, http.MethodPost, base+"/operations/deploy", who.tok, `{"request":{}}`)
			code2, ans2 := httpAs(t, http.MethodPost, w.url+"/v1/instances/acme/nosuch/operations/deploy", who.tok, `{"request":{}}`)
			t.Logf("existing: %d %s; missing: %d %s", code1, ans1, code2, ans2)
			require.Equal(t, code1, code2, "an outsider tells an existing instance of acme from a missing one")
		})
		for _, d := range []string{"retry", "resolve", "abandon"} {
			t.Run(who.name+"/decision-"+d+"-state-echo", func(t *testing.T) {
				code, ans := httpAs(t, http.MethodPost, base+"/decisions/"+d, who.tok, `{"request":{"reason":"x"}}`)
				t.Logf("%s %s: %d %s", who.name, d, code, ans)
				w.requireNoAcmeLeak(t, d, ans)
				require.Equal(t, http.StatusForbidden, code, ans)
			})
		}
		t.Run(who.name+"/cancel-state-echo", func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, base+"/cancel", who.tok, `{}`)
			t.Logf("%s cancel: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "cancel", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/gate-remove-echo", func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, base+"/gates/remove", who.tok, `{"name":"nosuch"}`)
			t.Logf("%s gate remove: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "gate remove", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/approve-when-nothing-waits", func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, base+"/approvals/approve", who.tok, `{"plan":"0000000"}`)
			t.Logf("%s approve: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "approve", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/recreate-state-echo", func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, base+"/operations/archive", who.tok, `{"request":{"recreate":true}}`)
			t.Logf("%s archive recreate: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "recreate", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
	}

	// bob creates in acme: refused, and no instance of acme appears for it (no squatting).
	t.Run("bob/create-in-acme", func(t *testing.T) {
		cfg, _ := json.Marshal(map[string]any{"request": map[string]any{"configYAML": "stack: example\nparameters:\n  greeting: hi\n"}})
		code1, ans1 := httpAs(t, http.MethodPost, w.url+"/v1/instances/acme/squat/operations/create", w.bob, string(cfg))
		code2, ans2 := httpAs(t, http.MethodPost, w.url+"/v1/instances/acme/web/operations/create", w.bob, string(cfg))
		t.Logf("bob create acme/squat: %d %s; acme/web: %d %s", code1, ans1, code2, ans2)
		require.Equal(t, http.StatusForbidden, code1, ans1)
		if code1 != code2 {
			t.Errorf("bob tells an existing instance of acme from a missing one by creating it: %d vs %d: %s", code1, code2, ans2)
		}
		code, list := httpAs(t, http.MethodGet, w.url+"/v1/instances?tenant=acme&all=true", w.alice, "")
		t.Logf("alice's list: %d %.500s", code, list)
		if strings.Contains(list, "squat") {
			t.Errorf("bob's refused create left a running instance workflow in acme: %s", list)
		}
		t.Setenv("SLIPWAY_TOKEN", w.alice)
		r := w.e.CLI("--server", w.url, "create", "acme/squat", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: alices\n"), "--wait")
		t.Logf("alice creates acme/squat after bob: %d %s %s", r.Code, r.Stdout, r.Stderr)
	})

	// acme/gated: alice's provision waits at a scheduling gate whose name is acme's business.
	w.as(w.alice, 0, "create", "acme/gated", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hi\nschedulingGates: [project-nightingale]\n"))
	require.Eventually(t, func() bool { return e.Status("acme/gated").Waiting != nil }, time.Minute, 100*time.Millisecond)
	for _, who := range []struct{ name, tok string }{{"bob", w.bob}, {"mallory", w.mallory}} {
		for _, rq := range []struct{ path, body string }{
			{"/v1/instances/acme/gated/operations/deploy", `{"request":{}}`},
			{"/v1/instances/acme/gated/gates/remove", `{"name":"nosuch"}`},
			{"/v1/instances/acme/gated/decisions/retry", `{"request":{}}`},
		} {
			t.Run(who.name+"/gate-names "+rq.path, func(t *testing.T) {
				code, ans := httpAs(t, http.MethodPost, w.url+rq.path, who.tok, rq.body)
				t.Logf("%s %s: %d %s", who.name, rq.path, code, ans)
				require.NotContains(t, ans, "nightingale", "an outsider learns acme's gate names")
				require.Equal(t, http.StatusForbidden, code, ans)
			})
		}
	}

	t.Run("mallory/acts-on-gated", func(t *testing.T) {
		for _, rq := range []struct{ path, body string }{
			{"/v1/instances/acme/gated/gates/remove", `{"name":"project-nightingale"}`},
			{"/v1/instances/acme/gated/cancel", `{"reason":"x"}`},
			{"/v1/instances/acme/gated/gates/add", `{"name":"mallorys"}`},
		} {
			code, ans := httpAs(t, http.MethodPost, w.url+rq.path, w.mallory, rq.body)
			t.Logf("mallory %s: %d %s", rq.path, code, ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		}
		st := e.Status("acme/gated")
		require.NotNil(t, st.Waiting, "the provision still waits")
		require.Len(t, st.Gates, 1, "the gates are alice's: %+v", st.Gates)
	})

	// acme/web busy: alice's destroy waits for a platform approval.
	out := w.as(w.alice, 0, "destroy", acmeWeb).Stdout
	_, requestID, _ := strings.Cut(strings.TrimSpace(out), "(request ")
	requestID = strings.TrimSuffix(requestID, ")")
	require.NotEmpty(t, requestID, out)
	awaitApproval(t, w.people, acmeWeb)
	for _, who := range []struct{ name, tok string }{{"bob", w.bob}, {"mallory", w.mallory}} {
		for _, rd := range []struct{ method, path, body string }{
			{http.MethodGet, "/v1/instances/acme/web/requests/" + requestID + "?wait=1s", ""},
			{http.MethodGet, "/v1/instances/acme/web/requests/nosuch?wait=1s", ""},
			{http.MethodPost, "/v1/instances/acme/web/refresh", "{}"},
			{http.MethodGet, "/v1/instances/acme/web/status?output=all", ""},
			{http.MethodGet, "/v1/instances/acme/web/events?from=0", ""},
			{http.MethodGet, "/v1/instances?tenant=acme&all=true", ""},
			{http.MethodGet, "/v1/instances?all=true&awaitingApproval=true", ""},
			{http.MethodGet, "/v1/stacks/example/counts", ""},
			{http.MethodGet, "/v1/deliveries?limit=100", ""},
			{http.MethodGet, "/v1/audit?tenant=acme", ""},
			{http.MethodGet, "/v1/drift?tenant=acme", ""},
			{http.MethodPost, "/v1/rollouts/plan", `{"stack":"example","tenant":"acme","set":[{"key":"replicas","value":"3"}]}`},
			{http.MethodPost, "/v1/rollouts/plan", `{"stack":"example","set":[{"key":"region","value":"eu-west"}]}`},
		} {
			t.Run(who.name+"/read "+rd.method+" "+rd.path, func(t *testing.T) {
				code, ans := httpAs(t, rd.method, w.url+rd.path, who.tok, rd.body)
				t.Logf("%s %s %s: %d %.600s", who.name, rd.method, rd.path, code, ans)
				w.requireNoAcmeLeak(t, rd.path, ans)
				require.NotContains(t, ans, "acme/web", "an outsider's answer names acme/web")
				require.NotContains(t, ans, `"web"`)
			})
		}
	}
	for _, who := range []struct{ name, tok string }{{"bob", w.bob}, {"mallory", w.mallory}} {
		t.Run(who.name+"/busy-echo", func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, base+"/operations/deploy", who.tok, `{"request":{}}`)
			t.Logf("%s deploy while busy: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "deploy while busy", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
		t.Run(who.name+"/approve-wrong-hash-while-waiting", func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, base+"/approvals/approve", who.tok, `{"plan":"0000000"}`)
			t.Logf("%s approve: %d %s", who.name, code, ans)
			w.requireNoAcmeLeak(t, "approve", ans)
			require.Equal(t, http.StatusForbidden, code, ans)
		})
	}
	st := e.Status(acmeWeb)
	require.Equal(t, lifecycle.Destroying, st.State, "nothing the outsiders sent changed acme/web")

	// Goal 5: a read-only person with the raw history (no codec) finds neither the plan hash (nor
	// the 7 digits an approval needs) nor acme's values, in any payload, failure, ID, memo or
	// search attribute of any workflow of this world.
	t.Run("raw-history-holds-no-hash", func(t *testing.T) {
		hash := st.Approval.Hash
		require.Len(t, hash, 64)
		var hits []string
		for id, h := range e.Histories(t) {
			raw, err := protojson.Marshal(h)
			require.NoError(t, err)
			var plain strings.Builder
			plain.Write(raw)
			_ = proxy.VisitPayloads(context.Background(), h, proxy.VisitPayloadsOptions{
				Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
					for _, p := range ps {
						plain.Write(p.GetData())
						for k, v := range p.GetMetadata() {
							plain.WriteString(k + "=" + string(v) + "\n")
						}
					}
					return ps, nil
				},
			})
			txt := plain.String()
			for _, needle := range []string{hash[:7], hash[len(hash)-7:], acmeGreeting} {
				if strings.Contains(txt, needle) {
					hits = append(hits, id+": "+needle)
				}
			}
		}
		require.Empty(t, hits, "plaintext in raw history")
	})

	// Goal 5 (people): alice, who asked for the destroy and may not approve it, reads everything she
	// may read of acme; the hash (or the 7 digits an approval takes) is nowhere in it, nor in the
	// GitOps repository (commits, branches, messages).
	t.Run("alice-reads-no-hash", func(t *testing.T) {
		hash := st.Approval.Hash
		for _, path := range []string{"/v1/instances/acme/web/status?output=all", "/v1/instances/acme/web/status?output=detail",
			"/v1/instances/acme/web/events?from=0", "/v1/instances?tenant=acme&awaitingApproval=true",
			"/v1/audit?tenant=acme", "/v1/instances/acme/web/requests/" + requestID + "?wait=1s"} {
			code, ans := httpAs(t, http.MethodGet, w.url+path, w.alice, "")
			require.Equal(t, http.StatusOK, code, "%s: %s", path, ans)
			require.NotContains(t, ans, hash[:7], "alice reads the plan hash at %s", path)
		}
		all := testsuite.Git(t, e.GitOpsRepo, "log", "--all", "-p", "--format=%H %s%n%b")
		require.NotContains(t, all, hash[:7], "the GitOps repository holds the plan hash")
	})

	// Goal 7: the durable audit log (the server's --state-dir here) holds the server's own
	// refusals (bob's and mallory's plan, a read) with the verified actor.
	t.Run("audit-holds-outsider-refusals", func(t *testing.T) {
		audit := e.MustCLI(0, "audit", "--tenant", "acme", "--state-dir", e.StateDir).Stdout
		got := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(audit), "\n") {
			var entry client.AuditEntry
			require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
			if entry.Decision == "denied" {
				got[entry.Actor+" "+entry.Operation]++
			}
		}
		t.Logf("audit denied: %v", got)
		// Every write of an outsider is refused at the read of the instance, before anything else.
		for _, want := range []string{"bob read", "mallory read"} {
			require.Positive(t, got[want], "the audit lacks %s", want)
		}
	})
}

// Goal 4: a network peer with frontend access and no key copies carol's attested destroy update
// (its sealed header and arguments, byte for byte, from the instance's history) and sends it again
// under a new update ID, after alice deployed acme/web again and within the attestation's ten
// minutes. The docs: a copied request "changes nothing"; only the current operation acts. The
// SAFE outcome: acme/web stays Deployed and no destroy runs.
func TestRedteamReplayedUpdateHeaderChangesNothing(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	w.as(w.carol, 0, "destroy", acmeWeb, "--wait")
	require.Equal(t, lifecycle.Destroyed, e.Status(acmeWeb).State)
	w.as(w.alice, 0, "deploy", acmeWeb, "--wait")
	before := e.Status(acmeWeb)
	require.Equal(t, lifecycle.Deployed, before.State)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := sdkclient.Dial(sdkclient.Options{HostPort: e.Address, Logger: logging.NewTemporal(logging.Nop())})
	require.NoError(t, err)
	defer c.Close()
	const id = "instance/acme/web"
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowId = '" + id + "' AND TaskQueue = '" + e.TaskQueue + "'", PageSize: 100})
	require.NoError(t, err)
	var copied *updatepb.Request
	for _, ex := range resp.Executions {
		it := c.GetWorkflowHistory(ctx, id, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == "destroy" {
				copied = a.GetAcceptedRequest()
			}
		}
	}
	require.NotNil(t, copied, "carol's destroy update is in the history")
	t.Logf("copied header keys: %v", keysOf(copied.GetInput().GetHeader().GetFields()))

	for i, uid := range []string{uuid.NewString(), copied.GetMeta().GetUpdateId()} {
		_, err = c.WorkflowService().UpdateWorkflowExecution(ctx, &workflowservice.UpdateWorkflowExecutionRequest{
			Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: id},
			Request:    &updatepb.Request{Meta: &updatepb.Meta{UpdateId: uid, Identity: "mallory"}, Input: copied.GetInput()},
			WaitPolicy: &updatepb.WaitPolicy{LifecycleStage: enumspb.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED},
		})
		t.Logf("replay %d (update ID %s): %v", i, uid, err)
	}
	time.Sleep(10 * time.Second)
	after := e.Status(acmeWeb)
	t.Logf("after the replay: %s, operation %s %s", after.State, after.Operation.ID, after.Operation.Kind)
	for _, l := range strings.Split(e.MustCLI(0, "audit", "--tenant", "acme", "--state-dir", e.StateDir).Stdout, "\n") {
		if strings.Contains(l, `"destroy"`) {
			t.Logf("audit: %.400s", l)
		}
	}
	require.Equal(t, lifecycle.Deployed, after.State, "a copied destroy header destroyed acme/web")
	require.Equal(t, before.Operation.ID, after.Operation.ID, "a copied destroy header started an operation")
}

func keysOf[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// Goal 2: rule 5 says destroy and deprovision need a platform approval (one member of
// platform-admins, not the requester), whatever the stack says. alice deprovisions her tenant's
// instances from every state a deprovision starts from; the SAFE outcome is that each waits for
// carol, never reaching Deprovisioned on alice's word alone (deprovision is final: it deletes the
// secrets from the store).
func TestRedteamDeprovisionWithoutPlatformApproval(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	w.as(w.alice, 0, "create", "acme/fresh", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hi\n"), "--wait")
	w.as(w.alice, 0, "archive", acmeWeb, "--wait")
	require.Equal(t, lifecycle.Archived, e.Status(acmeWeb).State)
	for _, ref := range []string{"acme/fresh", acmeWeb} {
		t.Run(ref, func(t *testing.T) {
			before := e.Status(ref)
			code, ans := httpAs(t, http.MethodPost, w.url+"/v1/instances/"+ref+"/operations/deprovision", w.alice,
				`{"request":{"confirm":true,"reason":"alice alone"}}`)
			t.Logf("alice deprovision %s from %s: %d %s", ref, before.State, code, ans)
			var st = before
			deadline := time.Now().Add(40 * time.Second)
			for time.Now().Before(deadline) {
				st = e.Status(ref)
				if st.State == lifecycle.Deprovisioned || (st.Approval != nil && st.Approval.Hash != "") {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			t.Logf("%s: %s, approval %+v", ref, st.State, st.Approval)
			require.NotEqual(t, lifecycle.Deprovisioned, st.State, "alice deprovisioned %s from %s without a platform approval", ref, before.State)
		})
	}
}

// Goal 6: a signed `[slipway][plan]` push delivery replayed under a new delivery ID, once in the
// same run and once after `slipway new-run` continued the instance as new (Temporal forgets
// update IDs across runs). The docs: the request claim outlives the runs; the replay starts
// nothing. SAFE: no second plan operation.
func TestRedteamWebhookReplayAfterNewRun(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	secret := []byte("github-hmac-secret-redteam")
	fake := fakegithub.New(t)
	fake.AddRepo("acme", "gitops", "main")
	commit := func(msg string, files map[string][]byte) string {
		return fake.CommitFiles("acme", "gitops", "main", msg, files)
	}
	commit("the example stack", seedExample(t))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = workerapp.Forge{Kind: "github", URL: fake.URL, Repo: "acme/gitops", Token: fake.Token}
	})
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{
		"github": {Secret: secret, Repos: []string{"acme/gitops"}}}}, e.Client)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hook := forgeHook{t: t, url: srv.URL + "/github", provider: "github", key: secret}
	const ref = "acme/web"

	sha := commit("web v1", map[string][]byte{"instances/acme/web/instance.yaml": instanceFile("v1")})
	code, resp := hook.send("c1", hook.pushEvent("acme/gitops", "alice", sha, "Alice", "alice@acme.test", "web v1\n\n[slipway][create] "+ref))
	require.Equal(t, http.StatusAccepted, code, "%+v", resp)
	waitState(t, e, ref, lifecycle.ConfigurationCreated)

	sha = commit("docs", map[string][]byte{"README.md": []byte("hello\n")})
	plan := hook.pushEvent("acme/gitops", "alice", sha, "Alice", "alice@acme.test", "docs\n\n[slipway][plan] "+ref)
	code, resp = hook.send("p1", plan)
	require.Equal(t, http.StatusAccepted, code, "%+v", resp)
	waitDone(t, e, ref, 2)

	code, resp = hook.send("p1-replay-same-run", plan)
	t.Logf("same run: %d %+v", code, resp)
	if resp.Workflow != "" {
		t.Logf("outcomes: %+v", outcomes(t, e, resp.Workflow))
	}
	e.MustCLI(0, "new-run", ref)
	time.Sleep(2 * time.Second)
	code, resp = hook.send("p1-replay-new-run", plan)
	t.Logf("after new-run: %d %+v", code, resp)
	if resp.Workflow != "" {
		t.Logf("outcomes: %+v", outcomes(t, e, resp.Workflow))
	}
	time.Sleep(5 * time.Second)
	st := e.Status(ref)
	t.Logf("operations: current %s %s, history %d", st.Operation.ID, st.Operation.Kind, len(st.History))
	require.Len(t, st.History, 1, "a replayed signed delivery started another operation")
}

// Goal 4: a network peer without a key re-runs alice's finished rollout, after alice set the value
// the rollout changed back: by a Reset of the rollout workflow to its first task, and by starting
// its copied start event (input and sealed header) again under its workflow ID. The docs: a copied
// or reset request changes nothing. SAFE: acme/web keeps alice's later config; no deploy runs.
func TestRedteamReRunFinishedRollout(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w.as(w.alice, 0, "rollout", "start", "--id", "r1", "--stack", "example", "--tenant", "acme", "--set", "replicas=2")
	require.NoError(t, e.Client.Temporal.GetWorkflow(ctx, "rollout/r1", "").Get(ctx, nil))
	require.Eventually(t, func() bool {
		st := e.Status(acmeWeb)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded
	}, 2*time.Minute, 200*time.Millisecond)
	back := writeFile(t, "stack: example\nparameters:\n  greeting: "+acmeGreeting+"\n  region: "+acmeRegion+"\n  replicas: 1\n")

	c, err := sdkclient.Dial(sdkclient.Options{HostPort: e.Address, Logger: logging.NewTemporal(logging.Nop())})
	require.NoError(t, err)
	defer c.Close()
	check := func(t *testing.T, before contract.Status) {
		time.Sleep(15 * time.Second)
		after := e.Status(acmeWeb)
		t.Logf("acme/web after: %s op %s %s (before: op %s)", after.State, after.Operation.ID, after.Operation.Kind, before.Operation.ID)
		require.Equal(t, before.Operation.ID, after.Operation.ID, "the re-run rollout deployed acme/web again")
	}

	t.Run("reset", func(t *testing.T) {
		w.as(w.alice, 0, "deploy", acmeWeb, "-f", back, "--wait")
		before := e.Status(acmeWeb)
		desc, err := c.DescribeWorkflowExecution(ctx, "rollout/r1", "")
		require.NoError(t, err)
		res, err := c.ResetWorkflowExecution(ctx, &workflowservice.ResetWorkflowExecutionRequest{
			Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: "rollout/r1", RunId: desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()},
			Reason: "mallory", WorkflowTaskFinishEventId: 3, RequestId: uuid.NewString(),
		})
		t.Logf("reset: %v %v", res, err)
		check(t, before)
	})
	t.Run("copied-start", func(t *testing.T) {
		_ = c.TerminateWorkflow(ctx, "rollout/r1", "", "settle")
		w.as(w.alice, 0, "deploy", acmeWeb, "-f", back, "--wait")
		before := e.Status(acmeWeb)
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowId = 'rollout/r1' AND TaskQueue = '" + e.TaskQueue + "'", PageSize: 100})
		require.NoError(t, err)
		var first *historypb.WorkflowExecutionStartedEventAttributes
		for _, ex := range resp.Executions {
			it := c.GetWorkflowHistory(ctx, "rollout/r1", ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			ev, err := it.Next()
			require.NoError(t, err)
			if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil && a.GetOriginalExecutionRunId() == ex.Execution.RunId {
				first = a
			}
		}
		require.NotNil(t, first)
		run, err := c.WorkflowService().StartWorkflowExecution(ctx, &workflowservice.StartWorkflowExecutionRequest{
			Namespace: "default", WorkflowId: "rollout/r1", WorkflowType: first.GetWorkflowType(),
			TaskQueue: first.GetTaskQueue(), Input: first.GetInput(), Header: first.GetHeader(), Memo: first.GetMemo(),
			SearchAttributes: first.GetSearchAttributes(), Identity: "mallory", RequestId: uuid.NewString(),
			WorkflowIdReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		})
		t.Logf("copied start: %v %v", run, err)
		check(t, before)
	})
}

// Goals 2 and 4 together: carol (platform-admins) reviewed alice's first edit of acme/web's
// rendered main.tf and accepted it (`resolve --accept-render`). alice then pushes a second edit,
// which her deploy's verify-render refuses; a network peer (or alice, with frontend access) copies
// carol's attested resolve update from the history and sends it again under a new update ID.
// Rule 8: only another platform admin may accept a render, after review. SAFE: the deploy stays
// DeploymentFailed and alice's second edit never runs.
func TestRedteamReplayedAcceptRender(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	const tf = "instances/acme/web/terraform/main.tf"
	rendered := testsuite.Git(t, e.GitOpsRepo, "show", "main:"+tf)
	failedAtVerify := func() {
		t.Helper()
		require.Eventually(t, func() bool {
			st := e.Status(acmeWeb)
			return st.State == lifecycle.DestroyFailed && st.Failure != nil && st.Failure.Step == contract.VerifyRender
		}, time.Minute, 100*time.Millisecond)
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "alice: a comment", map[string][]byte{tf: []byte(rendered + "\n# reviewed comment\n")})
	w.as(w.alice, 0, "destroy", acmeWeb)
	failedAtVerify()
	code, body := postAs(t, w.url+"/v1/instances/acme/web/decisions/resolve", w.carol, `{"request":{"reason":"reviewed: a comment","acceptRender":true}}`)
	require.Equal(t, http.StatusAccepted, code, body)
	// The destroy resumes past verify-render and waits for a platform approval; carol rejects it.
	a := awaitApproval(t, w.people, acmeWeb)
	code, body = postAs(t, w.url+"/v1/instances/acme/web/approvals/reject", w.carol, `{"plan":"`+a.Hash+`","reason":"not now"}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Eventually(t, func() bool {
		st := e.Status(acmeWeb)
		return st.State == lifecycle.Deployed && st.Operation.Result != contract.ResultRunning
	}, time.Minute, 100*time.Millisecond)

	testsuite.PushFiles(t, e.GitOpsRepo, "alice: more", map[string][]byte{tf: []byte(rendered + "\n# reviewed comment\nresource \"terraform_data\" \"alices\" {\n  input = \"never reviewed\"\n}\n")})
	w.as(w.alice, 0, "destroy", acmeWeb)
	failedAtVerify()
	// Goal 2 first: alice overrides her own failed destroy by every decision and argument.
	for _, tc := range []struct{ d, body string }{
		{"retry", `{"request":{"reason":"x","acceptRender":true}}`},
		{"abandon", `{"request":{"reason":"x","acceptRender":true}}`},
		{"resolve", `{"request":{"reason":"x","skipHook":true}}`},
		{"resolve", `{"request":{"reason":"x","forceUnlock":"lock-1"}}`},
		{"retry", `{"request":{"reason":"x","to":"Destroyed"}}`},
		{"resolve", `{"request":{"reason":"x","AcceptRender":true}}`},
	} {
		t.Run("alice-"+tc.d+" "+tc.body, func(t *testing.T) {
			b := e.Status(acmeWeb)
			code, ans := postAs(t, w.url+"/v1/instances/acme/web/decisions/"+tc.d, w.alice, tc.body)
			t.Logf("alice %s %s: %d %s", tc.d, tc.body, code, ans)
			a := e.Status(acmeWeb)
			require.Equal(t, b.Operation.Attempt, a.Operation.Attempt, "alice's %s resumed her destroy", tc.d)
			require.Equal(t, len(b.Decisions), len(a.Decisions), "alice's %s recorded a decision", tc.d)
			require.Equal(t, lifecycle.DestroyFailed, a.State)
		})
	}
	before := e.Status(acmeWeb)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := sdkclient.Dial(sdkclient.Options{HostPort: e.Address, Logger: logging.NewTemporal(logging.Nop())})
	require.NoError(t, err)
	defer c.Close()
	const id = "instance/acme/web"
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowId = '" + id + "' AND TaskQueue = '" + e.TaskQueue + "'", PageSize: 100})
	require.NoError(t, err)
	var copied *updatepb.Request
	for _, ex := range resp.Executions {
		it := c.GetWorkflowHistory(ctx, id, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == "resolve" && copied == nil {
				copied = a.GetAcceptedRequest() // the first: carol's (alice's own come after it)
			}
		}
	}
	require.NotNil(t, copied, "carol's resolve is in the history")
	_, err = c.WorkflowService().UpdateWorkflowExecution(ctx, &workflowservice.UpdateWorkflowExecutionRequest{
		Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: id},
		Request:    &updatepb.Request{Meta: &updatepb.Meta{UpdateId: uuid.NewString(), Identity: "mallory"}, Input: copied.GetInput()},
		WaitPolicy: &updatepb.WaitPolicy{LifecycleStage: enumspb.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED},
	})
	t.Logf("replayed resolve: %v", err)
	time.Sleep(10 * time.Second)
	after := e.Status(acmeWeb)
	t.Logf("after: %s, attempt %d (before %d)", after.State, after.Operation.Attempt, before.Operation.Attempt)
	if n := len(after.Decisions); n > 0 {
		t.Logf("last decision: %+v", after.Decisions[n-1])
	}
	for _, r := range e.Resources(web) {
		require.NotEqual(t, "terraform_data.alices", r.Address, "alice's unreviewed HCL ran on a replayed accept-render")
	}
	require.Equal(t, before.Operation.Attempt, after.Operation.Attempt, "a replayed accept-render resumed alice's destroy")
	require.Equal(t, len(before.Decisions), len(after.Decisions), "a replayed accept-render recorded a decision")
}

const poisonTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_static" "t" {}
resource "terraform_data" "probe" {
  input = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    command = <<-EOT
      {
        echo "cache: $TF_PLUGIN_CACHE_DIR"
        ls -laR .terraform/providers
        touch "$TF_PLUGIN_CACHE_DIR/poison" && echo TOUCHED
        mkdir -p "$TF_PLUGIN_CACHE_DIR/registry.terraform.io/evil" && echo MKDIR
        for f in $(find "$TF_PLUGIN_CACHE_DIR" -type f); do echo "#!/bin/sh" >> "$f" && echo "WROTE $f"; done
        for f in $(find -L .terraform/providers -type f); do echo "#!/bin/sh" >> "$f" && echo "WROTE-LOCAL $f"; done
        real=$(readlink -f .terraform/providers/registry.terraform.io/hashicorp/time/%s/linux_amd64)
        echo "real: $real"
        touch "$real/poison2" && echo TOUCHED-REAL
        chmod 777 "$real" && echo CHMOD-REAL
        d=.terraform/providers/registry.terraform.io/hashicorp/time/%s
        rm -rf "$d" && ln -s "$TF_PLUGIN_CACHE_DIR/registry.terraform.io/hashicorp/time/%s" "$d" && echo PLANTED
      } > probe.out 2>&1
    EOT
  }
}
`

// Goal 1: a tenant's terraform (a local-exec, on a worker with default settings and a provider
// mirror) tries to poison the worker's shared provider plugin cache: write into it, append to the
// cached provider binary through its own .terraform's links, and plant a link in its .terraform
// that points into the cache for its next init (when the cache is writable). The docs: the plugin
// cache is read-only but during init; nothing of one instance changes what another runs. SAFE:
// every file of the cache is the same afterwards, and another instance's deploy still runs the
// mirror's provider.
func TestRedteamTenantTerraformCannotPoisonThePluginCache(t *testing.T) {
	requireWorkingBwrap(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	bin := buildWorker(t)
	mirror := tfmirror.Layout(t, tfmirror.Time())
	startDefaultWorker(t, e, bin, "SLIPWAY_PROVIDER_MIRROR="+filepath.Join(mirror.Dir))
	v := tfmirror.TimeVersion
	tf := fmt.Sprintf(poisonTF, v, v, v, v)
	testsuite.PushFiles(t, e.GitOpsRepo, "two stacks on hashicorp/time", map[string][]byte{
		"stacks/victim/schema.yaml": []byte(brokenSchema), "stacks/victim/manifests/app.yaml.tmpl": []byte(brokenManifest),
		"stacks/victim/terraform/main.tf.tmpl": fmt.Appendf(nil, `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_static" "t" {}
resource "terraform_data" "sums" {
  input = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    command = "sha256sum $(find -L .terraform/providers -type f) > victim.sums 2>&1"
  }
}
`, tfmirror.TimeVersion),
		"stacks/evil/schema.yaml": []byte(brokenSchema), "stacks/evil/manifests/app.yaml.tmpl": []byte(brokenManifest),
		"stacks/evil/terraform/main.tf.tmpl": []byte(tf),
	})
	cacheDir := filepath.Join(e.StateDir, "plugin-cache")
	sums := func() map[string]string {
		out := map[string]string{}
		_ = filepath.Walk(cacheDir, func(p string, fi os.FileInfo, err error) error {
			switch {
			case err != nil || fi.IsDir():
			case fi.Mode()&os.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				out[p] = "-> " + target
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					_ = filepath.Walk(p+"/", func(q string, fj os.FileInfo, err error) error {
						if err == nil && !fj.IsDir() {
							b, _ := os.ReadFile(q)
							out[q] = fmt.Sprintf("%x %v", sha256.Sum256(b), fj.Mode())
						}
						return nil
					})
				}
			default:
				b, _ := os.ReadFile(p)
				out[p] = fmt.Sprintf("%x %v", sha256.Sum256(b), fi.Mode())
			}
			return nil
		})
		return out
	}
	e.MustCLI(0, "create", "acme/victim", "-f", writeFile(t, "stack: victim\nparameters:\n  greeting: v1\n"), "--wait")
	e.MustCLI(0, "deploy", "acme/victim", "--wait")
	clean := sums()
	require.NotEmpty(t, clean, "the victim's init filled the cache")
	t.Logf("cache: %v", clean)

	e.MustCLI(0, "create", "other/evil", "-f", writeFile(t, "stack: evil\nparameters:\n  greeting: e1\n"), "--wait")
	r0 := e.CLI("deploy", "other/evil", "--wait")
	t.Logf("first evil deploy: %d", r0.Code)
	evilDir := filepath.Join(e.StateDir, "work", "other", "evil")
	t.Logf("probe 1:\n%s", readOut(t, evilDir, "probe.out"))
	e.MustCLI(0, "resolve", "other/evil", "--reason", "again")
	// A second deploy: init runs with the cache writable, over the link the first one planted.
	r := e.CLI("deploy", "other/evil", "-f", writeFile(t, "stack: evil\nparameters:\n  greeting: e2\n"), "--wait")
	t.Logf("second evil deploy: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	if b, err := os.ReadFile(filepath.Join(evilDir, "probe.out")); err == nil {
		t.Logf("probe 2:\n%s", b)
	}
	require.Equal(t, clean, sums(), "the tenant's terraform changed the shared plugin cache")

	e.MustCLI(0, "deploy", "acme/victim", "-f", writeFile(t, "stack: victim\nparameters:\n  greeting: v2\n"), "--wait")
	require.Equal(t, clean, sums(), "the shared plugin cache after the victim's next init")
}

// Goal 7: through `slipway server`, alice sets each field only slipway's components set, in the
// JSON spellings a decoder takes; each is refused (400, naming the field) before anything changes.
func TestRedteamComponentOnlyFieldsAreRefused(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	before := e.Status(acmeWeb)
	carol := `{"kind":"person","issuer":"x","subject":"c","name":"carol","groups":["platform-admins"]}`
	for _, tc := range []struct{ path, body, field string }{
		{"/v1/instances/acme/web/operations/deploy", `{"request":{"rollout":"rollout/x"}}`, "request.rollout"},
		{"/v1/instances/acme/web/operations/deploy", `{"request":{"ROLLOUT":"rollout/x"}}`, "request.rollout"},
		{"/v1/instances/acme/web/operations/deploy", `{"Request":{"Rollout":"rollout/x"}}`, "request.rollout"},
		{"/v1/instances/acme/new/operations/create", `{"request":{"configYAML":"stack: example\nparameters:\n  greeting: hi\n","adopt":"` + strings.Repeat("a", 40) + `"}}`, "request.adopt"},
		{"/v1/instances/acme/new/operations/create", `{"request":{"configYAML":"stack: example\nparameters:\n  greeting: hi\n","aDoPt":"` + strings.Repeat("a", 40) + `"}}`, "request.adopt"},
		{"/v1/instances/acme/web/approvals/approve", `{"plan":"0000000","mr":"1"}`, "mr"},
		{"/v1/instances/acme/web/approvals/approve", `{"plan":"0000000","MR":"1"}`, "mr"},
		{"/v1/drift/check", `{"tenant":"acme","resume":{"left":[{"ref":{"tenant":"other","name":"db"}}]}}`, "resume"},
		{"/v1/drift/check", `{"tenant":"acme","schedule":"drift/x"}`, "schedule"},
		{"/v1/drift/check", `{"tenant":"acme","requester":` + carol + `}`, "requester"},
		{"/v1/drift/check", `{"tenant":"acme","Requester":` + carol + `}`, "requester"},
		{"/v1/drift/schedules", `{"id":"x","every":3600000000000,"scope":{"tenant":"acme","requester":` + carol + `}}`, "scope.requester"},
		{"/v1/drift/schedules", `{"id":"x","every":3600000000000,"scope":{"tenant":"acme","schedule":"drift/y"}}`, "scope.schedule"},
	} {
		t.Run(tc.path+" "+tc.field, func(t *testing.T) {
			code, ans := httpAs(t, http.MethodPost, w.url+tc.path, w.alice, tc.body)
			t.Logf("%s %s: %d %s", tc.path, tc.body, code, ans)
			require.Equal(t, http.StatusBadRequest, code, ans)
			require.Contains(t, ans, tc.field+": only slipway sets it")
		})
	}
	after := e.Status(acmeWeb)
	require.Equal(t, before.Operation.ID, after.Operation.ID)
}

// Goal 6: a webhook sender without the secret: a delivery signed with another key, one with the
// signature of another body, and one with no signature start nothing (401).
func TestRedteamWebhookWithoutTheSecret(t *testing.T) {
	secret := []byte("github-hmac-secret-redteam")
	e := testsuite.NewEnv(t)
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{
		"github": {Secret: secret, Repos: []string{"acme/gitops"}}}}, e.Client)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	good := forgeHook{t: t, url: srv.URL + "/github", provider: "github", key: secret}
	bad := forgeHook{t: t, url: srv.URL + "/github", provider: "github", key: []byte("guess")}
	body := good.pushEvent("acme/gitops", "mallory", strings.Repeat("b", 40), "M", "m@x", "[slipway][create] acme/evil")
	code, _ := bad.send("x1", body)
	require.Equal(t, http.StatusUnauthorized, code, "another key")
	for _, hdr := range []string{"", "sha256=", "sha1=00", "sha256=" + strings.Repeat("0", 64)} {
		req, _ := http.NewRequest(http.MethodPost, good.url, strings.NewReader(string(body)))
		req.Header.Set("X-GitHub-Event", "push")
		req.Header.Set("X-GitHub-Delivery", "x2"+hdr)
		if hdr != "" {
			req.Header.Set("X-Hub-Signature-256", hdr)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "signature %q", hdr)
	}
	// The gitlab and gitea endpoints are not served without their own secret.
	for _, p := range []string{"/gitlab", "/gitea", "/forgejo"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+p, strings.NewReader(string(body)))
		req.Header.Set("X-Gitlab-Token", string(secret))
		req.Header.Set("X-Gitea-Signature", "00")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.NotEqual(t, http.StatusAccepted, resp.StatusCode, p)
	}
}

// Goal 7: bubblewrap works when the worker starts (its probe passes) but fails for every
// terraform command afterwards (a user namespace limit reached, say). The docs: terraform runs in
// bubblewrap by default, and a worker where it does not work refuses terraform steps. SAFE: the
// deploy fails and terraform's local-exec never ran unconfined.
func TestRedteamBwrapFailingAtRunTimeFailsClosed(t *testing.T) {
	requireWorkingBwrap(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	bin := buildWorker(t)
	real, err := exec.LookPath("bwrap")
	require.NoError(t, err)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran-unconfined")
	flaky := filepath.Join(dir, "bwrap")
	require.NoError(t, os.WriteFile(flaky, []byte("#!/bin/sh\ncase \"$*\" in *--info-fd*) echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1;; esac\nexec "+real+" \"$@\"\n"), 0o755))
	w := startDefaultWorker(t, e, bin, hooks.EnvBwrap+"="+flaky)
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack whose terraform leaves a mark", map[string][]byte{
		"stacks/mark/schema.yaml": []byte(brokenSchema),
		"stacks/mark/terraform/main.tf.tmpl": []byte(`resource "terraform_data" "mark" {
  input = "x"
  provisioner "local-exec" {
    command = "id -u > ` + marker + `"
  }
}
`),
		"stacks/mark/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	e.MustCLI(0, "create", "acme/mark", "-f", writeFile(t, "stack: mark\nparameters:\n  greeting: hi\n"), "--wait")
	r := e.CLI("deploy", "acme/mark", "--wait")
	t.Logf("deploy: %d\n%s", r.Code, r.Stdout)
	log, _ := os.ReadFile(w.LogPath)
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "sandbox") || strings.Contains(l, "bwrap") || strings.Contains(l, "UNCONFINED") {
			t.Logf("worker: %.300s", l)
		}
	}
	_, err = os.Stat(marker)
	require.True(t, os.IsNotExist(err), "terraform ran outside the sandbox when bwrap failed")
	require.NotEqual(t, 0, r.Code, "the deploy did not fail")
}

// Goal 7: the request's free-text note (`actor` in the API body, `--note`) says "carol". The docs:
// the note is recorded beside the verified actor, never as it. SAFE: the audit and the operation's
// requester name alice; what status shows as the operation's actor names alice too.
func TestRedteamNoteCannotNameSomeoneElse(t *testing.T) {
	w := newRedWorld(t)
	e := w.e
	code, ans := postAs(t, w.url+"/v1/instances/acme/web/operations/deploy", w.alice, `{"request":{"actor":"carol","reason":"approved by carol"}}`)
	require.Equal(t, http.StatusAccepted, code, ans)
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status(acmeWeb)
		return st.Operation != nil && st.Operation.Kind == lifecycle.OpDeploy && st.Operation.Result != contract.ResultRunning && len(st.History) >= 2
	}, time.Minute, 100*time.Millisecond)
	t.Logf("operation actor as status shows it: %q", st.Operation.Actor)
	_, alicesView := httpAs(t, http.MethodGet, w.url+"/v1/instances/acme/web/status?output=all", w.alice, "")
	_, events := httpAs(t, http.MethodGet, w.url+"/v1/instances/acme/web/events?from=0", w.alice, "")
	t.Logf("events: %.1500s", events)
	require.Contains(t, st.Operation.Actor, "alice", "status names the note as the operation's actor: %q", st.Operation.Actor)
	_ = alicesView
}
