package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
	pc "github.com/slipway-dev/slipway/testsuite/portalclient"
)

// portal is a portal's view of `slipway server`: the client generated from its OpenAPI
// description, signed in as one person.
func portal(t *testing.T, url, tok string) *pc.ClientWithResponses {
	t.Helper()
	c, err := pc.NewClientWithResponses(url, pc.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		if tok != "" {
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		return nil
	}))
	require.NoError(t, err)
	return c
}

// sseEvent is one Server-Sent Event of an instance's stream.
type sseEvent struct {
	id    int
	event string
	data  string
}

// follow reads GET .../events?follow=1 (from after lastID when >= 0) to its end event.
func follow(t *testing.T, c *pc.ClientWithResponses, ref string, lastID int) []sseEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tenant, name, _ := strings.Cut(ref, "/")
	p := &pc.GetEventsParams{Follow: ptr(true)}
	if lastID >= 0 {
		p.LastEventID = &lastID
	}
	resp, err := c.ClientInterface.(*pc.Client).GetEvents(ctx, tenant, name, p)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var out []sseEvent
	cur := sseEvent{id: -1}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		switch k {
		case "id":
			cur.id, err = strconv.Atoi(v)
			require.NoError(t, err)
		case "event":
			cur.event = v
		case "data":
			cur.data = v
		case "":
			if cur.data != "" {
				out = append(out, cur)
				if cur.event == "end" {
					return out
				}
			}
			cur = sseEvent{id: -1}
		}
	}
	t.Fatalf("the stream of %s ended without its end event: %v (%v)", ref, out, sc.Err())
	return nil
}

func ptr[T any](v T) *T { return &v }

// apiDone long-polls a request's end through the generated client.
func apiDone(t *testing.T, c *pc.ClientWithResponses, ref, id string) pc.OperationResult {
	t.Helper()
	tenant, name, _ := strings.Cut(ref, "/")
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		r, err := c.GetRequestWithResponse(t.Context(), tenant, name, id, &pc.GetRequestParams{Wait: ptr("20s")})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
		if r.JSON200.Done {
			return *r.JSON200.Result
		}
	}
	t.Fatalf("request %s of %s did not end", id, ref)
	return pc.OperationResult{}
}

// submit sends an operation and wants it accepted.
func submit(t *testing.T, c *pc.ClientWithResponses, ref, op string, req pc.OperationRequest) string {
	t.Helper()
	tenant, name, _ := strings.Cut(ref, "/")
	r, err := c.SubmitOperationWithResponse(t.Context(), tenant, name, pc.SubmitOperationParamsOp(op), pc.OperationBody{Request: req})
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, r.StatusCode(), "%s %s: %s", op, ref, r.Body)
	return r.JSON202.RequestId
}

// A portal drives a whole lifecycle through the client generated from the OpenAPI description,
// signed in through the OIDC test provider, on the real dev server, git and terraform: alice
// reads the stacks acme may use and the example stack's JSON Schema, is refused bad input with
// problem details naming the field (nothing started), creates acme/web from the schema's
// parameters, follows its steps as Server-Sent Events (resuming with Last-Event-ID), deploys,
// asks for a destroy and a deprovision that carol approves from the plan summary in the status.
// bob (tenant other) and a peer with no token are refused every route on acme's instance.
func TestPortalLifecycleThroughTheGeneratedClient(t *testing.T) {
	start := time.Now()
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	alice, bob, carol := portal(t, url, signIn(t, p, "alice")), portal(t, url, signIn(t, p, "bob")), portal(t, url, signIn(t, p, "carol"))
	anon := portal(t, url, "")
	ctx := t.Context()
	const ref = acmeWeb

	// The description is served as it is in the repository.
	d, err := alice.GetOpenAPIWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, d.StatusCode())
	require.JSONEq(t, string(apiserver.OpenAPI), string(d.Body))

	// The stacks alice may create in acme, and the example's form.
	ss, err := alice.ListStacksWithResponse(ctx, &pc.ListStacksParams{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, ss.StatusCode(), "%s", ss.Body)
	var example *pc.StackItem
	for i, s := range *ss.JSON200 {
		if s.Name == "example" {
			example = &(*ss.JSON200)[i]
		}
	}
	require.NotNil(t, example, "%s", ss.Body)
	require.Equal(t, "/v1/stacks/example/schema", example.Schema)
	require.Empty(t, example.Releases)
	sr, err := alice.GetStackSchemaWithResponse(ctx, "example", &pc.GetStackSchemaParams{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, sr.StatusCode(), "%s", sr.Body)
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(sr.Body))
	require.NoError(t, err)
	comp := jsonschema.NewCompiler()
	require.NoError(t, comp.AddResource("example.json", schema))
	form, err := comp.Compile("example.json")
	require.NoError(t, err)
	params := map[string]any{"greeting": "hello", "replicas": 1}
	require.NoError(t, form.Validate(map[string]any{"greeting": "hello", "replicas": json.Number("1")}))
	region := (*sr.JSON200)["properties"].(map[string]any)["region"].(map[string]any)
	require.Equal(t, true, region["x-slipway-initial"])

	// Bad input: a problem detail naming the field, 400 or 413, and no instance started.
	instanceFile := func(stack string, params map[string]any) string {
		b, err := json.Marshal(map[string]any{"stack": stack, "parameters": params})
		require.NoError(t, err)
		return string(b) // JSON is YAML
	}
	for _, tc := range []struct {
		name, config string
		code         int
		field        string
	}{
		{"a parameter of the wrong type", instanceFile("example", map[string]any{"greeting": "hello", "replicas": "three"}), http.StatusBadRequest, "parameters.replicas"},
		{"an unknown stack", instanceFile("nope", params), http.StatusBadRequest, "stack"},
		{"a missing required field", instanceFile("example", map[string]any{"replicas": 2}), http.StatusBadRequest, "parameters.greeting"},
		{"an oversized body", instanceFile("example", map[string]any{"greeting": strings.Repeat("x", 2<<20)}), http.StatusRequestEntityTooLarge, "body"},
	} {
		r, err := alice.SubmitOperationWithResponse(ctx, "acme", "web", "create", pc.OperationBody{Request: pc.OperationRequest{ConfigYAML: &tc.config}})
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.code, r.StatusCode(), "%s: %s", tc.name, r.Body)
		require.Equal(t, "application/problem+json", r.HTTPResponse.Header.Get("Content-Type"), tc.name)
		pr := r.ApplicationproblemJSONDefault
		require.NotNil(t, pr, "%s: %s", tc.name, r.Body)
		require.Equal(t, tc.code, pr.Status)
		require.NotNil(t, pr.Errors, "%s: %s", tc.name, r.Body)
		var fields []string
		for _, f := range *pr.Errors {
			fields = append(fields, f.Field)
		}
		require.Contains(t, fields, tc.field, "%s: %s", tc.name, r.Body)
	}
	sch, err := alice.GetStackSchemaWithResponse(ctx, "nope", &pc.GetStackSchemaParams{Tenant: "acme"})
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, sch.StatusCode(), "%s", sch.Body)
	require.Equal(t, "stack", (*sch.ApplicationproblemJSONDefault.Errors)[0].Field)
	// Workflow IDs outlive a test on the shared dev server: an instance/acme/web of an earlier test may be there.
	if d, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, "instance/acme/web", ""); err == nil {
		require.True(t, d.GetWorkflowExecutionInfo().GetStartTime().AsTime().Before(start), "no bad request started the instance")
	} else {
		var nf *serviceerror.NotFound
		require.ErrorAs(t, err, &nf, "no bad request started the instance")
	}

	// alice creates from the form and follows its steps live.
	cfg := instanceFile("example", params)
	id := submit(t, alice, ref, "create", pc.OperationRequest{ConfigYAML: &cfg})
	evs := follow(t, alice, ref, -1)
	last := evs[len(evs)-1]
	require.Equal(t, "end", last.event)
	require.JSONEq(t, `{"reason":"ended"}`, last.data)
	steps := 0
	for i, ev := range evs[:len(evs)-1] {
		require.Equal(t, i, ev.id, "the entries from the first, numbered")
		var ie struct{ Kind, Step, Status string }
		require.NoError(t, json.Unmarshal([]byte(ev.data), &ie))
		if ie.Kind == "step" && ie.Step != "" {
			steps++
		}
	}
	require.Positive(t, steps, "each step's start and end: %v", evs)
	require.Equal(t, "succeeded", apiDone(t, alice, ref, id).Result)

	// deploy, following from where the last stream stopped.
	lastID := evs[len(evs)-2].id
	id = submit(t, alice, ref, "deploy", pc.OperationRequest{})
	evs = follow(t, alice, ref, lastID)
	require.Equal(t, lastID+1, evs[0].id, "resumed after Last-Event-ID")
	require.JSONEq(t, `{"reason":"ended"}`, evs[len(evs)-1].data)
	require.Equal(t, "Deployed", apiDone(t, alice, ref, id).State)

	st, err := alice.GetStatusWithResponse(ctx, "acme", "web", nil)
	require.NoError(t, err)
	require.Equal(t, "Deployed", st.JSON200.State)
	mine, err := alice.ListInstancesWithResponse(ctx, &pc.ListInstancesParams{})
	require.NoError(t, err)
	require.Len(t, *mine.JSON200, 1)
	require.Equal(t, "web", (*mine.JSON200)[0].Name)

	// bob (tenant other) sees none of acme's, and is refused each of acme's routes; a peer with no
	// token is refused all of them. Each refusal is a problem detail; nothing changes.
	theirs, err := bob.ListInstancesWithResponse(ctx, &pc.ListInstancesParams{Tenant: ptr("acme")})
	require.NoError(t, err)
	require.Empty(t, *theirs.JSON200)
	for _, who := range []struct {
		c    *pc.ClientWithResponses
		code int
	}{{bob, http.StatusForbidden}, {anon, http.StatusUnauthorized}} {
		for _, call := range []func() (*http.Response, []byte, error){
			func() (*http.Response, []byte, error) {
				r, err := who.c.ListStacksWithResponse(ctx, &pc.ListStacksParams{Tenant: "acme"})
				return r.HTTPResponse, r.Body, err
			},
			func() (*http.Response, []byte, error) {
				r, err := who.c.GetStackSchemaWithResponse(ctx, "example", &pc.GetStackSchemaParams{Tenant: "acme"})
				return r.HTTPResponse, r.Body, err
			},
			func() (*http.Response, []byte, error) {
				r, err := who.c.GetStatusWithResponse(ctx, "acme", "web", nil)
				return r.HTTPResponse, r.Body, err
			},
			func() (*http.Response, []byte, error) {
				r, err := who.c.GetEventsWithResponse(ctx, "acme", "web", &pc.GetEventsParams{Follow: ptr(true)})
				return r.HTTPResponse, r.Body, err
			},
			func() (*http.Response, []byte, error) {
				r, err := who.c.GetEventsWithResponse(ctx, "acme", "web", &pc.GetEventsParams{Follow: ptr(true), LastEventID: ptr(0)})
				return r.HTTPResponse, r.Body, err
			},
			func() (*http.Response, []byte, error) {
				r, err := who.c.SubmitOperationWithResponse(ctx, "acme", "web", "destroy", pc.OperationBody{})
				return r.HTTPResponse, r.Body, err
			},
			func() (*http.Response, []byte, error) {
				r, err := who.c.GetOpenAPIWithResponse(ctx)
				return r.HTTPResponse, r.Body, err
			},
		} {
			resp, body, err := call()
			require.NoError(t, err)
			if who.code == http.StatusForbidden && resp.Request.URL.Path == "/v1/openapi.json" {
				require.Equal(t, http.StatusOK, resp.StatusCode, "the description is no tenant's")
				continue
			}
			require.Equal(t, who.code, resp.StatusCode, "%s %s: %s", resp.Request.Method, resp.Request.URL, body)
			require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), "%s", resp.Request.URL)
			require.NotContains(t, string(body), "greeting", "nothing of acme's answers")
		}
	}
	st, err = alice.GetStatusWithResponse(ctx, "acme", "web", nil)
	require.NoError(t, err)
	require.Equal(t, "Deployed", st.JSON200.State, "nothing changed")

	// alice asks for a destroy and a deprovision; each waits for a platform approval, which carol
	// gives from the plan summary she reads in the status.
	approve := func(id string) pc.OperationResult {
		var hash, what string
		require.Eventually(t, func() bool {
			r, err := carol.GetStatusWithResponse(ctx, "acme", "web", nil)
			if err == nil && r.JSON200 != nil && r.JSON200.Approval != nil {
				hash, what = r.JSON200.Approval.Hash, r.JSON200.Approval.What
			}
			return hash != ""
		}, time.Minute, 100*time.Millisecond)
		require.NotEmpty(t, what, "the approver reads the plan summary")
		r, err := carol.ApprovalWithResponse(ctx, "acme", "web", "approve", pc.ApprovalRequest{Plan: &hash})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
		return apiDone(t, alice, ref, id)
	}
	require.Equal(t, "Destroyed", approve(submit(t, alice, ref, "destroy", pc.OperationRequest{})).State)
	require.Equal(t, "Deprovisioned", approve(submit(t, alice, ref, "deprovision", pc.OperationRequest{Confirm: ptr(true)})).State)
}
