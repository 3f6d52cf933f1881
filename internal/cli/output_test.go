package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/version"
)

// goldenStatus is an instance's status with nested objects, lists, maps and times.
var goldenStatus = &contract.Status{
	Name: "acme/shop", Tenant: "acme", Instance: "shop", Stack: "example", State: lifecycle.State("Deployed"),
	Names:   &names.Names{Namespace: "acme-shop", Application: "acme-shop", Schema: "acme_shop"},
	Allowed: []lifecycle.Operation{"deploy", "archive"}, Revision: "4f2a9c1", Deployed: "4f2a9c1",
	Conditions: []lifecycle.Condition{
		{Type: "Programmed", Status: "True", Reason: "Deployed"},
		{Type: "Ready", Status: "False", Reason: "CrashLoopBackOff", Message: "1/2 pods: yes: no", ObservedAt: goldenTime("2026-03-01T09:06:30.5Z")},
	},
	Operation: &contract.OperationStatus{ID: "3-abc", Kind: "deploy", Result: "succeeded", Attempt: 1,
		StartedAt: goldenTime("2026-03-01T09:00:00Z"), EndedAt: goldenTime("2026-03-01T09:01:00Z")},
	RsyncStatus: map[string]int{"Applied": 3, "Failed": 0},
	ObservedAt:  goldenTime("2026-03-01T09:06:30.5Z"),
}

var goldenList = []client.ListItem{
	{Tenant: "acme", Name: "shop", State: "Deployed", Ready: "True", Stack: "example", Release: "example@1.4.0", Running: true, Started: goldenTime("2026-03-01T09:00:00Z")},
	{Tenant: "beta", Name: "old", State: "Deprovisioned", Started: goldenTime("2026-02-01T08:00:00Z"), Closed: new(goldenTime("2026-02-02T08:00:00Z"))},
}

// render prints v with -o format through the one output helper every read command uses.
func render(t *testing.T, format string, v any) []byte {
	t.Helper()
	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	require.NoError(t, g.output(&outputFormat{value: format}, v, func(w io.Writer) { t.Fatal("text asked for") }))
	return out.Bytes()
}

// -o json and -o yaml print the same object: parsed, each gives what the other does.
func TestJSONAndYAMLAreTheSameObject(t *testing.T) {
	tricky := map[string]any{
		"bool-like": "true", "yes": "yes", "number-like": "1.50", "octal-like": "0755", "null-like": "null", "empty": "",
		"time-like": "2026-03-01T09:00:00Z", "colon": "a: b", "hash": "# not a comment", "multi": "line 1\nline 2\n",
		"int": 9007199254740993, "float": 1.5, "neg": -3, "t": true, "nil": nil, "emptyList": []string{}, "emptyMap": map[string]int{},
		"nested": []any{map[string]any{"k": []int{1, 2}}, "x"},
	}
	for name, v := range map[string]any{
		"status": goldenStatus, "list": goldenList, "deliveries": goldenDeliveries, "events": goldenEvents,
		"version": version.Get(), "tricky": tricky,
	} {
		t.Run(name, func(t *testing.T) {
			var fromJSON, fromYAML any
			dec := json.NewDecoder(bytes.NewReader(render(t, formatJSON, v)))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&fromJSON))
			y := render(t, formatYAML, v)
			require.NoError(t, yaml.Unmarshal(y, &fromYAML), "%s", y)
			// Through JSON once more, so both sides' numbers and maps have one Go type.
			require.Equal(t, normalize(t, fromJSON), normalize(t, fromYAML), "YAML:\n%s", y)
		})
	}
}

func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&out))
	return out
}

// The keys and their order are the JSON's: a script's jq path works as a yq path.
func TestStatusAndListGolden(t *testing.T) {
	golden(t, "status.json", render(t, formatJSON, goldenStatus))
	golden(t, "status.yaml", render(t, formatYAML, goldenStatus))
	golden(t, "list.json", render(t, formatJSON, goldenList))
	golden(t, "list.yaml", render(t, formatYAML, goldenList))
	var out bytes.Buffer
	writeList(&out, goldenList)
	golden(t, "list.txt", out.Bytes())
}

// runMain runs the CLI in process.
func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// Every read command refuses an unknown format with exit 2, naming the flag and what it accepts,
// before it reads or dials anything.
func TestBadOutputExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"status", "acme/web"}, {"list"}, {"events"}, {"events", "acme/web"}, {"gate", "list", "acme/web"},
		{"drift", "check"}, {"drift", "list"}, {"rollout", "plan", "--stack", "example"}, {"rollout", "status", "r-1"},
		{"rollout", "list"}, {"control-planes"}, {"whoami"}, {"secrets", "acme/web"}, {"plan", "acme/web"}, {"version"},
		{"audit"}, {"policy", "eval", "-"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runMain(append(args, "-o", "xml")...)
			require.Equal(t, ExitUsage, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "--output")
			assert.Contains(t, errOut, `"xml" is not one of`)
			assert.Contains(t, errOut, "json")
			assert.Contains(t, errOut, "yaml")
		})
	}
}

// rollout status --follow prints text lines as they happen: a format for it is refused, not ignored.
func TestRolloutFollowTakesNoFormat(t *testing.T) {
	code, out, errOut := runMain("rollout", "status", "r-1", "--follow", "-o", "json")
	require.Equal(t, ExitUsage, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "--follow")
}

func TestVersion(t *testing.T) {
	want := "slipway " + version.Get().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"version", "-o", "text"}} {
		code, out, errOut := runMain(args...)
		require.Equal(t, ExitOK, code, errOut)
		assert.Equal(t, want, out, args)
	}
	for _, format := range []string{"json", "yaml"} {
		code, out, errOut := runMain("version", "-o", format)
		require.Equal(t, ExitOK, code, errOut)
		var got version.Info
		if format == "json" {
			require.NoError(t, json.Unmarshal([]byte(out), &got))
		} else {
			require.NoError(t, yaml.Unmarshal([]byte(out), &got))
		}
		assert.Equal(t, version.Get(), got, format)
		assert.NotEmpty(t, got.Commit)
	}
}

// cobra's completion command prints each shell's script; the dynamic completion behind them
// (__complete) answers for a command taking TENANT/NAME and offers -o's formats.
func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "__start_slipway", "zsh": "#compdef slipway", "fish": "complete -c slipway", "powershell": "Register-ArgumentCompleter"} {
		code, out, errOut := runMain("completion", shell)
		require.Equal(t, ExitOK, code, errOut)
		assert.Contains(t, out, marker, shell)
	}
	code, out, errOut := runMain("__complete", "status", "acme/")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, ":", "a directive line, not an error")
	code, out, _ = runMain("__complete", "status", "acme/web", "-o", "")
	require.Equal(t, ExitOK, code)
	assert.Equal(t, []string{"text", "json", "yaml", ":4"}, strings.Fields(out)[:4])
}
