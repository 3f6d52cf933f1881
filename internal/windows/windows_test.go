package windows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func set(t *testing.T, raw string) Set {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(raw), &v))
	s, err := Parse(v)
	require.NoError(t, err)
	return s
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Weekday business hours in Berlin, with a year-end freeze for acme: inside, outside, the next
// opening across a weekend and a time zone, and a deny window that wins over an allow one.
func TestWindowsSayWhetherAndWhenAnOperationMayStart(t *testing.T) {
	s := set(t, `[
	  {"name": "business-hours", "start": "0 9 * * 1-5", "duration": "8h", "timeZone": "Europe/Berlin", "stacks": ["web"]},
	  {"name": "freeze", "kind": "deny", "start": "0 0 20 12 *", "duration": "168h", "tenants": ["acme"]}
	]`)
	web := s.For("acme", "web", nil)
	require.Len(t, web, 2)
	require.Len(t, s.For("other", "db", nil), 0, "no window covers it: always open")
	require.True(t, Set(nil).At(at("2026-11-28T03:00:00Z")).Open)

	st := web.At(at("2026-11-27T10:00:00Z")) // Friday 11:00 in Berlin
	require.True(t, st.Open)
	require.Equal(t, []string{"business-hours"}, st.Inside)

	st = web.At(at("2026-11-27T17:30:00Z")) // Friday 18:30 in Berlin: closed until Monday 09:00 CET
	require.False(t, st.Open)
	require.Empty(t, st.Inside)
	require.Equal(t, at("2026-11-30T08:00:00Z"), st.Next)

	st = web.At(at("2026-12-21T10:00:00Z")) // Monday in the freeze: inside both, closed until the 28th
	require.False(t, st.Open)
	require.ElementsMatch(t, []string{"business-hours", "freeze"}, st.Inside)
	require.Equal(t, at("2026-12-28T08:00:00Z"), st.Next, "the first business hour after the freeze")

	require.True(t, s.For("other", "web", nil).At(at("2026-12-21T10:00:00Z")).Open, "the freeze is acme's")
}

func TestBadWindowsNameTheField(t *testing.T) {
	for raw, want := range map[string]string{
		`[{"name": "x", "start": "0 25 * * *", "duration": "1h"}]`:                         "data.slipway.windows[0] (x).start",
		`[{"name": "x", "start": "@every 1h", "duration": "1h"}]`:                          "data.slipway.windows[0] (x).start",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "timeZone": "Mars/Base"}]`: "data.slipway.windows[0] (x).timeZone",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "timeZone": "Local"}]`:     "data.slipway.windows[0] (x).timeZone",
		`[{"name": "x", "start": "0 9 * * *", "duration": "0s"}]`:                          "data.slipway.windows[0] (x).duration",
		`[{"name": "x", "kind": "maybe", "start": "0 9 * * *", "duration": "1h"}]`:         "data.slipway.windows[0] (x).kind",
		`[{"start": "0 9 * * *", "duration": "1h"}]`:                                       "data.slipway.windows[0].name",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "when": 1}]`:               "data.slipway.windows[0].when",
		`{"name": "x"}`: "data.slipway.windows",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "labels": {"tier": "gold gold"}}]`: "data.slipway.windows[0] (x).labels.tier",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "labels": {"-tier": "gold"}}]`:     "data.slipway.windows[0] (x).labels.-tier",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "labels": {"tier": 1}}]`:           "data.slipway.windows[0] (x).labels.tier",
		`[{"name": "x", "start": "0 9 * * *", "duration": "1h", "labels": ["tier"]}]`:              "data.slipway.windows[0] (x).labels",
	} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(raw), &v))
		_, err := Parse(v)
		require.Error(t, err, raw)
		var fe *FieldError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, want, fe.Field, raw)
	}
}

// A label-scoped window covers only instances carrying all its labels, and combines with stacks
// and tenants as AND.
func TestALabelScopedWindowCoversOnlyInstancesCarryingAllItsLabels(t *testing.T) {
	s := set(t, `[{"name": "gold-hours", "start": "0 9 * * *", "duration": "1h", "stacks": ["web"], "labels": {"tier": "gold", "region": "eu"}}]`)
	require.Len(t, s.For("acme", "web", map[string]string{"tier": "gold", "region": "eu", "team": "a"}), 1)
	require.Len(t, s.For("acme", "web", map[string]string{"tier": "gold"}), 0, "every label must match")
	require.Len(t, s.For("acme", "web", map[string]string{"tier": "silver", "region": "eu"}), 0, "values must match")
	require.Len(t, s.For("acme", "db", map[string]string{"tier": "gold", "region": "eu"}), 0, "the stack still counts")
	require.Len(t, s.For("acme", "web", nil), 0)
}
