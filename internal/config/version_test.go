package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOlderVersion(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		older bool
	}{{"1.4.0", "1.5.0", true}, {"1.9.0", "1.10.0", true}, {"1.10.0", "1.9.0", false}, {"1.5.0", "1.5.0", false},
		{"1.5.0-rc.1", "1.5.0", true}, {"1.5.0", "1.5.0-rc.1", false}, {"1.5", "1.5.1", true}, {"2.0.0", "1.99.99", false}} {
		assert.Equal(t, c.older, OlderVersion(c.a, c.b), "%s older than %s", c.a, c.b)
	}
}
