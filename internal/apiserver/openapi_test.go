package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

type openAPIDoc struct {
	OpenAPI string                                 `json:"openapi"`
	Paths   map[string]map[string]openAPIOperation `json:"paths"`
}

type openAPIOperation struct {
	OperationID string `json:"operationId"`
	Parameters  []struct {
		Name string `json:"name"`
		In   string `json:"in"`
	} `json:"parameters"`
	Responses map[string]struct {
		Content map[string]struct {
			Schema map[string]any `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
}

// The OpenAPI description and the server's route table name the same routes, each with its path
// parameters, an operationId, and every error answer as a problem detail: a route added to the
// server and not described, or described and not served, fails here.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	var doc openAPIDoc
	require.NoError(t, json.Unmarshal(OpenAPI, &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	s := &Server{mux: http.NewServeMux()}
	s.routes()
	served := map[string]bool{}
	for _, p := range s.patterns {
		method, path, ok := strings.Cut(p, " ")
		require.True(t, ok, p)
		served[strings.ToLower(method)+" "+path] = true
		require.Contains(t, doc.Paths[path], strings.ToLower(method), "%s is served but not described in openapi.json", p)
	}
	pathParam := regexp.MustCompile(`\{([^}]+)\}`)
	var ids []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			require.True(t, served[method+" "+path], "%s %s is described in openapi.json but not served", method, path)
			require.NotEmpty(t, op.OperationID, "%s %s", method, path)
			require.NotContains(t, ids, op.OperationID, "operationId %s twice", op.OperationID)
			ids = append(ids, op.OperationID)
			var declared []string
			for _, p := range op.Parameters {
				if p.In == "path" {
					declared = append(declared, p.Name)
				}
			}
			var want []string
			for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
				want = append(want, m[1])
			}
			slices.Sort(declared)
			slices.Sort(want)
			require.Equal(t, want, declared, "%s %s: its path parameters", method, path)
			def := op.Responses["default"].Content["application/problem+json"].Schema
			require.Equal(t, "#/components/schemas/Problem", def["$ref"], "%s %s: errors are problem details", method, path)
		}
	}
}

// Every error the server writes is valid against the description's Problem schema, with the
// fields the Problem type has: type, title, status, detail, kind and errors naming the field.
func TestOpenAPIProblemIsWhatTheServerWrites(t *testing.T) {
	var raw map[string]any
	require.NoError(t, json.Unmarshal(OpenAPI, &raw))
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource("openapi.json", raw))
	sch, err := c.Compile("openapi.json#/components/schemas/Problem")
	require.NoError(t, err)

	props := raw["components"].(map[string]any)["schemas"].(map[string]any)["Problem"].(map[string]any)["properties"].(map[string]any)
	var tags []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Problem]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		tags = append(tags, name)
		require.Contains(t, props, name, "Problem.%s is not described", f.Name)
	}
	require.Len(t, props, len(tags), "the description has fields Problem has not")

	s := &Server{}
	for _, err := range []error{
		&client.RefusedError{Message: "bob may not read instances of tenant acme"},
		&client.InvalidConfigError{Message: "bad", Fields: []contract.FieldError{{Field: "parameters.replicas", Message: "must be an int"}}},
		badRequest("request.configYAML: create needs the instance file"),
		&TooManyError{Message: "follow: alice already follows 4 event streams"},
		errors.New("boom"),
	} {
		rec := httptest.NewRecorder()
		code := s.writeErr(rec, err)
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
		v, jerr := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
		require.NoError(t, jerr)
		require.NoError(t, sch.Validate(v), "%s", rec.Body)
		var p Problem
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
		require.Equal(t, code, p.Status)
	}
	// A bad request names its field.
	rec := httptest.NewRecorder()
	s.writeErr(rec, badRequest("request.configYAML: create needs the instance file"))
	var p Problem
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, []contract.FieldError{{Field: "request.configYAML", Message: "create needs the instance file"}}, p.Errors)
	// httpserve's refusal of a body too large names the body.
	rec = httptest.NewRecorder()
	s.Refuse(rec, http.StatusRequestEntityTooLarge, "request body over 1048576 bytes")
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, http.StatusRequestEntityTooLarge, p.Status)
	require.Equal(t, "body", p.Errors[0].Field)
}
