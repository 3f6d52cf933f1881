package config

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/gates"
)

func TestSchedulingGatesParseAndSurviveCanonical(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: example\nparameters: {greeting: hi}\nschedulingGates:\n  - network\n  - {name: \"instance:acme/db\", timeout: 10m}\n"))
	require.NoError(t, err)
	want := []gates.Spec{{Name: "network"}, {Name: "instance:acme/db", Timeout: 10 * time.Minute}}
	require.Equal(t, want, inst.SchedulingGates)
	again, err := ParseInstance(inst.Canonical())
	require.NoError(t, err)
	require.Equal(t, want, again.SchedulingGates, "canonical form:\n%s", inst.Canonical())
}

func TestBadSchedulingGatesNameTheField(t *testing.T) {
	cases := map[string]string{
		"schedulingGates: network\n":                          "schedulingGates",
		"schedulingGates: [network, \"dns:acme/db\"]\n":       `schedulingGates[1]`,
		"schedulingGates: [network, network]\n":               `schedulingGates[1]`,
		"schedulingGates: [{name: network, timeout: soon}]\n": "schedulingGates[0].timeout",
		"schedulingGates: [{name: network, colour: red}]\n":   "schedulingGates[0].colour",
		"schedulingGates: [\"instance:just-a-name\"]\n":       "schedulingGates[0]",
	}
	for body, field := range cases {
		_, err := ParseInstance([]byte("stack: example\nparameters: {greeting: hi}\n" + body))
		var ve *ValidationError
		require.True(t, errors.As(err, &ve), body)
		require.Equal(t, field, ve.Errors[0].Field, "%s: %v", body, err)
	}
	_, err := ParseInstance([]byte("stack: example\nschedulingGates: [\"dns:acme/db\"]\n"))
	require.ErrorContains(t, err, `unknown gate kind "dns"`)
}
