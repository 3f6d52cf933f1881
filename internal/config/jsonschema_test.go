package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// The example stack's JSON Schema, compiled by a JSON Schema 2020-12 validator, accepts the
// parameters Validate accepts and refuses those it refuses: a wrong type, a missing required
// parameter, a value outside the enum, an unknown parameter. An initial parameter is readOnly
// only for a deployed instance.
func TestJSONSchemaAgreesWithValidate(t *testing.T) {
	st, _ := loadExample(t)
	doc := st.Schema.JSONSchema("example", false)
	// Through JSON, as the API serves it.
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	parsed, err := jsonschema.UnmarshalJSON(bytesReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource("example.json", parsed))
	sch, err := c.Compile("example.json")
	require.NoError(t, err)

	for _, tc := range []struct {
		params string
		ok     bool
	}{
		{`{"greeting":"hello"}`, true},
		{`{"greeting":"hello","replicas":3,"region":"us-east","debug":true}`, true},
		{`{"greeting":"hello","replicas":"three"}`, false},
		{`{"replicas":2}`, false},
		{`{"greeting":"hello","region":"mars"}`, false},
		{`{"greeting":"hello","colour":"red"}`, false},
		{`{"greeting":"hello","debug":"yes"}`, false},
	} {
		v, err := jsonschema.UnmarshalJSON(bytesReader([]byte(tc.params)))
		require.NoError(t, err)
		require.Equal(t, tc.ok, sch.Validate(v) == nil, "JSON Schema on %s", tc.params)
		// JSON is YAML: the instance file a portal sends.
		inst, err := ParseInstance([]byte(fmt.Sprintf(`{"stack":"example","parameters":%s}`, tc.params)))
		require.NoError(t, err)
		_, err = Validate(st, inst, nil)
		require.Equal(t, tc.ok, err == nil, "Validate on %s: %v", tc.params, err)
	}

	props := doc["properties"].(map[string]any)
	region := props["region"].(map[string]any)
	require.Equal(t, true, region["x-slipway-initial"])
	require.NotContains(t, region, "readOnly", "a create sets it")
	require.Equal(t, "eu-west", region["default"])
	require.Equal(t, []string{"eu-west", "us-east"}, region["enum"])
	require.Equal(t, "integer", props["replicas"].(map[string]any)["type"])
	require.Equal(t, []string{"greeting"}, doc["required"])
	require.Equal(t, "The text the app greets with.", props["greeting"].(map[string]any)["description"])
	deployed := st.Schema.JSONSchema("example", true)["properties"].(map[string]any)
	require.Equal(t, true, deployed["region"].(map[string]any)["readOnly"])
	require.NotContains(t, deployed["replicas"], "readOnly")
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
