package webhook

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestParseApprovalsReadsEverySlipwayLine(t *testing.T) {
	cmds, errs := ParseApprovals("Looks good.\n\n/slipway approve\n  /slipway approve 3f9a1c2\r\n" +
		"/Slipway REJECT  the plan drops   the orders table \n> /slipway approve\nplease /slipway approve\n" +
		"/slipwayapprove\n/slipway reject\n/slipway merge now\n/slipway approve 3F9A1C2\n/slipway approve abc\n" +
		"/slipway approve 3f9a1c2 3f9a1c3\n/slipway\n/slipway approve " + strings.Repeat("a", 64) + "\n")
	require.Equal(t, []Approval{
		{Verb: contract.VerbApprove},
		{Verb: contract.VerbApprove, Plan: "3f9a1c2"},
		{Verb: contract.VerbReject, Reason: "the plan drops   the orders table"},
		{Verb: contract.VerbApprove, Plan: strings.Repeat("a", 64)},
	}, cmds, "quoted, mid-line and run-together lines are not commands")
	require.Len(t, errs, 6)
	require.ErrorContains(t, errs[0], "line 9: /slipway reject needs a reason")
	require.ErrorContains(t, errs[1], `line 10: "merge" is not a /slipway verb (one of approve, reject)`)
	require.ErrorContains(t, errs[2], `"3F9A1C2" is not a plan hash`, "hashes are lowercase hex")
	require.ErrorContains(t, errs[3], `"abc" is not a plan hash (7 to 64 lowercase hex characters)`)
	require.ErrorContains(t, errs[4], "at most one plan hash")
	require.ErrorContains(t, errs[5], "line 14: /slipway needs a verb")
}

func TestParseApprovalsRefusesOverlongHash(t *testing.T) {
	_, errs := ParseApprovals("/slipway approve " + strings.Repeat("a", 65))
	require.Len(t, errs, 1)
	require.ErrorContains(t, errs[0], "not a plan hash")
}

func TestInstanceOfTitle(t *testing.T) {
	for title, want := range map[string]contract.Ref{
		"slipway: deploy acme/web":       {Tenant: "acme", Name: "web"},
		"slipway: provision globex/shop": {Tenant: "globex", Name: "shop"},
		" slipway: archive a-b/c-d ":     {Tenant: "a-b", Name: "c-d"},
	} {
		ref, ok := InstanceOfTitle(title)
		require.True(t, ok, title)
		require.Equal(t, want, ref, title)
	}
	for _, title := range []string{"", "Fix the docs", "slipway: deploy", "slipway: deploy Acme/web",
		"slipway: deploy acme/web/x", "Re: slipway: deploy acme/web", "slipway: deploy acme/web please", "[slipway][deploy] acme/web"} {
		_, ok := InstanceOfTitle(title)
		require.False(t, ok, title)
	}
}

var hashRE = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

func FuzzParseApprovals(f *testing.F) {
	f.Add("/slipway approve\n/slipway reject no")
	f.Add("  /slipway approve 3f9a1c2\r\n/slipway frob")
	f.Add("/slipway\t reject \t\n/slipway approve \u00a0abc1234")
	f.Fuzz(func(t *testing.T, body string) {
		cmds, errs := ParseApprovals(body)
		for _, c := range cmds {
			switch {
			case c.Verb == contract.VerbApprove && (c.Reason != "" || c.Plan != "" && !hashRE.MatchString(c.Plan)):
				t.Fatalf("bad approve %+v from %q", c, body)
			case c.Verb == contract.VerbReject && (c.Reason == "" || c.Plan != ""):
				t.Fatalf("bad reject %+v from %q", c, body)
			case c.Verb != contract.VerbApprove && c.Verb != contract.VerbReject:
				t.Fatalf("unknown verb %+v from %q", c, body)
			}
		}
		for _, err := range errs {
			if err == nil || err.Error() == "" {
				t.Fatalf("empty error from %q", body)
			}
		}
	})
}
