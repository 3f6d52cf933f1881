package approval

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func TestNeeds(t *testing.T) {
	replace := []string{"terraform_data.b"}
	for _, tc := range []struct {
		name    string
		policy  Policy
		op      lifecycle.Operation
		removed []string
		want    bool
	}{
		{"never, even a destroy", Never, lifecycle.OpDestroy, replace, false},
		{"unset is never", "", lifecycle.OpDeprovision, nil, false},
		{"always, even no changes", Always, lifecycle.OpDeploy, nil, true},
		{"destructive: adds only", Destructive, lifecycle.OpDeploy, nil, false},
		{"destructive: a replace", Destructive, lifecycle.OpDeploy, replace, true},
		{"destructive: archive has no plan", Destructive, lifecycle.OpArchive, nil, true},
		{"destructive: destroy", Destructive, lifecycle.OpDestroy, nil, true},
		{"destructive: deprovision", Destructive, lifecycle.OpDeprovision, nil, true},
		{"destructive: provision", Destructive, lifecycle.OpProvision, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Rule{Policy: tc.policy}.Needs(tc.op, tc.removed)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want, why != "", "a reason exactly when approval is needed: %q", why)
		})
	}
	_, why := Rule{Policy: Destructive}.Needs(lifecycle.OpDeploy, replace)
	assert.Contains(t, why, "terraform_data.b")
}

func TestRuleOverAndWait(t *testing.T) {
	stack := Rule{Policy: Destructive, Approvers: []string{"alice"}, Timeout: time.Hour}
	got := stack.Over(Rule{Policy: Always})
	assert.Equal(t, Rule{Policy: Always, Approvers: []string{"alice"}, Timeout: time.Hour}, got)
	assert.Equal(t, []string{"alice"}, stack.Over(Rule{Approvers: []string{}}).Approvers, "an empty list never clears the stack's")
	assert.Equal(t, stack, stack.Over(Rule{Policy: Never, Approvers: []string{"mallory"}, Timeout: 48 * time.Hour}), "weakenings are ignored")
	assert.Equal(t, Rule{Policy: Always, Approvers: []string{"bob"}, Timeout: time.Minute},
		Rule{Policy: Destructive, Approvers: []string{"alice", "bob"}}.Over(Rule{Policy: Always, Approvers: []string{"bob"}, Timeout: time.Minute}))
	assert.Equal(t, Rule{Policy: Destructive}, Rule{Policy: Destructive}.Over(Rule{Approvers: []string{"mallory"}}), "no approvers on the stack: the instance names none")
	assert.Equal(t, DefaultTimeout, Rule{}.Wait())
	assert.Equal(t, time.Hour, stack.Wait())
}

func TestParsePolicyAndTimeout(t *testing.T) {
	p, err := ParsePolicy("destructive")
	require.NoError(t, err)
	assert.Equal(t, Destructive, p)
	_, err = ParsePolicy("sometimes")
	assert.ErrorContains(t, err, `"sometimes" is not a policy`)
	assert.NoError(t, CheckTimeout(0))
	assert.Error(t, CheckTimeout(-time.Second))
	assert.Error(t, CheckTimeout(MaxTimeout+time.Second))
}

func TestHashes(t *testing.T) {
	h := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	assert.True(t, Names(h, h))
	assert.True(t, Names(h, "0123456"))
	assert.False(t, Names(h, "012345"), "too short a prefix")
	assert.False(t, Names(h, "1123456"))
	assert.False(t, Names(h, "0123456789ABCDEF"), "upper case is not how slipway prints it")
	assert.Error(t, CheckHash("xyz1234"))
}

func TestAllows(t *testing.T) {
	assert.True(t, Rule{}.Allows("anyone@host"))
	r := Rule{Approvers: []string{"alice", "bob@laptop"}}
	assert.True(t, r.Allows("alice@host"), "the user part of a CLI actor")
	assert.True(t, r.Allows("alice"), "a forge login")
	assert.True(t, r.Allows("bob@laptop"))
	assert.False(t, r.Allows("bob@other"))
	assert.False(t, r.Allows("mallory@host"))
}

func TestWeakens(t *testing.T) {
	stack := Rule{Policy: Destructive, Approvers: []string{"alice", "bob"}, Timeout: time.Hour}
	for _, tc := range []struct {
		name  string
		stack Rule
		inst  Rule
		field string // "" when nothing weakens
		msg   string
	}{
		{"same", stack, stack, "", ""},
		{"tighter everywhere", stack, Rule{Policy: Always, Approvers: []string{"bob"}, Timeout: time.Minute}, "", ""},
		{"nothing set", stack, Rule{}, "", ""},
		{"never under destructive", stack, Rule{Policy: Never}, "approval.policy", "never is weaker than the stack's destructive"},
		{"destructive under always", Rule{Policy: Always}, Rule{Policy: Destructive}, "approval.policy", "weaker than the stack's always"},
		{"always under unset", Rule{}, Rule{Policy: Always}, "", ""},
		{"never under unset", Rule{}, Rule{Policy: Never}, "", ""},
		{"empty approvers", stack, Rule{Approvers: []string{}}, "approval.approvers", "an empty list would let anyone approve"},
		{"own approver", stack, Rule{Approvers: []string{"alice", "mallory"}}, "approval.approvers", "mallory not among the stack's approvers (alice, bob)"},
		{"approvers where the stack names none", Rule{Policy: Always}, Rule{Approvers: []string{"mallory"}}, "approval.approvers", "the stack names no approvers"},
		{"longer timeout", stack, Rule{Timeout: 2 * time.Hour}, "approval.timeout", "longer than the stack's 1h0m0s"},
		{"longer than the default", Rule{}, Rule{Timeout: 48 * time.Hour}, "approval.timeout", "longer than the stack's 24h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.stack.Weakens(tc.inst)
			if tc.field == "" {
				assert.Empty(t, got)
				assert.Equal(t, tc.stack.Over(tc.inst), tc.stack.Over(tc.inst).Over(tc.inst), "Over is idempotent")
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tc.field, got[0].Field)
			assert.Contains(t, got[0].Message, tc.msg)
			assert.Equal(t, tc.stack, tc.stack.Over(tc.inst), "a weakening changes nothing")
		})
	}
}
